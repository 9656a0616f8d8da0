/* The score table: a row per player, a column per round, and the running total (which
   follows the penalties as they are played).  At game over it is the final ranking:
   fewest minus points first, with the place (shared by equals); the rounds are in the
   chart under it and on the score sheet. */

import { $, el } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { own } from "../common/names.js";

/** @typedef {import("./state.js").Board} Board */

/* The name as typed, whole; under it the colour and, while picking, "picked" or
   "thinking" in words (an ellipsis there read like a name cut short).
    @param {Board} board */
function nameCell(board, view, seat) {
  const picking = view.phase === "picking" && !board.playing;
  const colour = t(`colour.${seat.colour}`);
  const about = [seat.bot
    ? t("board.bot_colour", { colour, level: t(`level.${seat.bot_level || "medium"}`) })
    : colour];
  if (picking) about.push(seat.picked ? `✓ ${t("pick.picked")}` : t("pick.thinking"));
  return el("td", { class: "name" },
    el("span", { class: `dot c-${seat.colour}`, "aria-hidden": "true" }), " ",
    seat.name, el("span", { class: "colour-small" }, about.join(" · ")));
}

/** @param {Board} board */
export function renderScores(board) {
  const view = board.view;
  const table = $("scores");
  table.textContent = "";
  if (!view) return;
  const history = (view.history || []).slice(0, board.shown ? board.shown.rounds : 0);
  const over = !board.playing && view.phase === "finished";
  const rounds = view.phase !== "lobby" && !over ? 12 : 0;
  // without the rounds' columns a name has room for its colour on the same line
  table.classList.toggle("wide", rounds === 0);
  const head = el("tr", {});
  if (over) head.appendChild(el("th", { class: "place", scope: "col" }, "#"));
  head.appendChild(el("th", { class: "player", scope: "col" }, t("board.player")));
  for (let r = 1; r <= rounds; r += 1) {
    head.appendChild(el("th", { class: "round-col", scope: "col" },
      t("board.round_short", { round: r })));
  }
  head.appendChild(el("th", { scope: "col" }, t("board.total")));
  table.appendChild(el("thead", {}, head));
  const body = el("tbody");
  const winners = over ? view.winners || [] : [];
  const seats = (view.seats || []).slice();
  if (over) seats.sort((a, b) => a.minus_points - b.minus_points);  // stable: seat order
  for (const seat of seats) {
    const row = el("tr", { class: winners.includes(seat.name) ? "winner" : "" });
    if (over) {
      const place = 1 + seats.filter((o) => o.minus_points < seat.minus_points).length;
      row.appendChild(el("td", { class: "place" }, String(place)));
    }
    row.appendChild(nameCell(board, view, seat));
    let before = 0;
    for (let r = 0; r < rounds; r += 1) {
      const entry = history[r];
      if (!entry) { row.appendChild(el("td", {}, "")); continue; }
      const now = own(entry.minus_points, seat.name, 0);
      const gained = now - before;
      before = now;
      row.appendChild(el("td", { class: gained ? "" : "zero" }, gained ? `+${gained}` : "0"));
    }
    const total = board.shown && board.shown.minus.has(seat.name)
      ? board.shown.minus.get(seat.name) : seat.minus_points;
    row.appendChild(el("td", { class: "total" }, String(total)));
    body.appendChild(row);
  }
  table.appendChild(body);
}
