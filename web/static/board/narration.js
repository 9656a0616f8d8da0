/* The line of words under the ring: what each event did, as it is played, and for
   every hit who pays and why (the hit figure's player; for Kali, whoever played the
   lowest card of the round).  The table makes the steps: the penalties of one hit are
   one step of their own (engine/timeline.py), said here in one sentence. */

import { $ } from "../common/dom.js";
import { figureName, t } from "../common/i18n.js";
import { forward, trackLength } from "../common/ring.js";

/** @typedef {import("../common/api.js").View} View */

/** Who pays for Kali: the players of the round's lowest card (from its reveal). */
function lowestCard(round) {
  const reveal = [...round].reverse().find((ev) => ev.type === "reveal");
  const cards = reveal ? Object.entries(reveal.cards || {}) : [];
  if (!cards.length) return null;
  const card = Math.min(...cards.map(([, value]) => value));
  return { card, names: cards.filter(([, value]) => value === card).map(([name]) => name) };
}

const list = (names) => names.map((name) => figureName(name)).join(", ");

/** The minus points for landing on a heap, as the table's rules have them (the view's
    dung_points): a dung step is shown before the step of its penalties.
    @param {View} view */
function dungPoints(view) {
  const points = view.dung_points;
  return Number.isInteger(points) ? points : null;
}

/** The sentence for a hit (dung or a rhino run) on `figure`, naming who pays and how
    much: the hit explorer's player, or for Kali whoever played the round's lowest card;
    the amount from the rules (dung: the table's amount; a rhino run: one point a
    space), as the step of its penalties comes after this one. */
function hit(ev, params, round, view) {
  const dung = ev.type === "dung";
  const figure = dung ? ev.figure : ev.rammed;
  const points = dung ? dungPoints(view) : ev.spaces;
  if (points === null) return t("ev.dung_hit", params);
  if (figure !== "Kali") return t(dung ? "ev.dung_own" : "ev.rhino_own", { ...params, points });
  const low = lowestCard(round);
  const names = low ? low.names : [];
  if (!low || !names.length) return t(dung ? "ev.dung_hit" : "ev.rhino_hit", params);
  const full = { ...params, points, payers: list(names), card: low.card };
  if (dung) return t(names.length > 1 ? "ev.dung_kali_many" : "ev.dung_kali", full);
  return t(names.length > 1 ? "ev.rhino_kali_many" : "ev.rhino_kali", full);
}

/** The sentence for `step[index]` (`step`: the events of one step the table made), or
    null for an event that has none of its own.  `round` is the round's events so far
    (its reveal tells who played the lowest card); `view` the board drawn.
    @param {any} ev  @param {number} index  @param {any[]} step  @param {any[]} round
    @param {View} view  @returns {string | null} */
export function narrate(ev, index, step, round, view) {
  const L = trackLength(view);
  const seen = round;
  const fig = figureName(ev.figure || "");
  switch (ev.type) {
    case "reveal": return t("ev.reveal", { round: ev.round, kali: ev.kali });
    case "move":
      return ev.passed_rhino ? t("ev.move_past", { figure: fig, card: ev.card, space: ev.to_space })
        : t("ev.move", { figure: fig, card: ev.card,
          spaces: forward(ev.from_space, ev.to_space, L) });
    case "stay":
      if (ev.reason === "zero") return t("ev.stay_zero", { figure: fig });
      if (ev.reason === "front") return t("ev.stay_front", { figure: fig, card: ev.card });
      return t("ev.stay_tie", { figure: fig, card: ev.card,
        other: figureName(ev.beaten_by || "?") });
    case "dung":
      return hit(ev, { figure: fig, space: ev.space }, seen, view);
    case "rhino_run":
      return hit(ev, { figure: figureName(ev.rammed), spaces: ev.spaces }, seen, view);
    case "penalty": {
      // the table's step holds the penalties of one hit: said once, at its first
      if (index > 0) return null;
      const paid = step.filter((e) => e.type === "penalty");
      const payers = list(paid.map((e) => e.player));
      if (!ev.for_kali) {
        return t(ev.cause === "dung" ? "ev.pay_dung" : "ev.pay_rammed",
          { payers, points: ev.points });
      }
      const low = lowestCard(seen);
      return t(paid.length > 1 ? "ev.pay_kali_many" : "ev.pay_kali",
        { payers, points: ev.points, card: low ? low.card : "?" });
    }
    case "round_end":
      return ev.game_over ? gameOver(ev.winners) : t("ev.round_end", { round: ev.round });
    default: return null;
  }
}

/** The caption for a playback as it stands: the sentence of the step just shown (a page
    loaded mid-playback says what the others say), or before the first step that
    everyone has picked.  @param {any} playback  @param {View} view */
export function playbackCaption(playback, view) {
  const shown = playback.shown || [];
  /** @type {string | null} */
  let text = null;
  if (playback.current) {
    const step = shown.slice(playback.current.first);
    step.forEach((ev, i) => { text = narrate(ev, i, step, shown, view) || text; });
  }
  return text || t("board.playing", { round: playback.round });
}

/** "Game over! Winner: Anna." (or "Winners: ..." for a shared win). */
export function gameOver(winners) {
  const names = winners || [];
  return t(names.length === 1 ? "ev.game_over.one" : "ev.game_over",
    { names: names.join(", ") });
}

/** Show `text` as the narration (nothing happens for an empty one).  The box is three
    lines high whatever it says: a caption that does not fit gets smaller type. */
export function say(text) {
  if (!text) return;
  const box = $("narration");
  box.textContent = text;
  box.style.fontSize = "";
  const size = parseFloat(getComputedStyle(box).fontSize);
  for (let scale = 0.9; scale > 0.6 && box.scrollHeight > box.clientHeight + 1; scale -= 0.1) {
    box.style.fontSize = `${(size * scale).toFixed(1)}px`;
  }
}
