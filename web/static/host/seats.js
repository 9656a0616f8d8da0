/* The seat list and the computer-player count: updated in place, one <li> per seat
   (keyed by name), so a focused button keeps its focus when a new view arrives. */

import { $, el, keyed, setText } from "../common/dom.js";
import { colourTag, t } from "../common/i18n.js";
import { act } from "./session.js";

const TABLE_SIZE = 7;

function seatStatus(seat) {
  if (seat.bot) return ["muted", t("host.bot", { level: t(`level.${seat.bot_level || "medium"}`) })];
  if (seat.hosted) return ["muted", t("host.hosted")];
  return seat.connected ? ["state-ok", `● ${t("host.connected")}`]
    : ["state-bad", `○ ${t("host.away")}`];
}

function createSeat(seat, openHandover) {
  const parts = {
    lineBreak: el("span", { class: "line-break", "aria-hidden": "true" }),
    colour: el("span"),
    status: el("span"),
    picked: el("span"),
    pickFor: el("button", { type: "button", class: "primary" }),
    remove: el("button", { type: "button", class: "danger" }),
    points: el("span"),
  };
  // while picking, "picked" / "thinking" starts a second line in every row alike, the
  // buttons on its right
  const item = el("li", { dataset: { seat: seat.name } },
    el("span", { class: "name" }, seat.name), parts.colour, parts.status, parts.lineBreak,
    parts.picked, el("span", { class: "grow" }), parts.pickFor, parts.remove, parts.points);
  item.parts = parts;
  parts.pickFor.addEventListener("click", () => openHandover(item.seat));
  parts.remove.addEventListener("click", () =>
    act(parts.remove, "POST", "/host/remove", { id: item.seat.id }));
  return item;
}

function updateSeat(item, seat, phase) {
  const parts = item.parts;
  item.seat = seat;
  const colourKey = `${seat.colour}/${t(`colour.${seat.colour}`)}`;
  if (item.colourKey !== colourKey) {
    item.colourKey = colourKey;
    parts.colour.textContent = "";
    parts.colour.appendChild(colourTag(seat.colour));
  }
  const [cls, text] = seatStatus(seat);
  parts.status.className = cls;
  setText(parts.status, text);
  const picking = phase === "picking";
  parts.picked.hidden = !picking;
  parts.lineBreak.hidden = !picking;
  parts.picked.className = seat.picked ? "state-ok" : "muted";
  setText(parts.picked, seat.picked ? `✓ ${t("pick.picked")}` : `… ${t("pick.thinking")}`);
  parts.pickFor.hidden = !(picking && seat.hosted);
  setText(parts.pickFor, t("host.pick_for", { name: seat.name }));
  parts.remove.hidden = phase !== "lobby";
  setText(parts.remove, t("host.remove"));
  parts.points.hidden = phase !== "finished";
  setText(parts.points, String(seat.minus_points));
}

/** Bring the seat list and the "how many computers" choice up to date with `view`. */
export function renderSeats(view, openHandover) {
  const seats = view.seats || [];
  $("no-seats").hidden = seats.length > 0;
  keyed($("seats"), seats, (seat) => seat.name,
    (seat) => createSeat(seat, openHandover), (item, seat) => updateSeat(item, seat, view.phase));
  const free = Math.max(TABLE_SIZE - seats.length, 0);
  const count = /** @type {HTMLSelectElement} */ ($("bot-count"));
  if (count.options.length !== free) {
    const keep = count.value;
    while (count.options.length > free) count.options[count.options.length - 1].remove();
    while (count.options.length < free) {
      const n = count.options.length + 1;
      count.appendChild(el("option", { value: n }, String(n)));
    }
    if (keep && Number(keep) <= free) count.value = keep;
  }
  /** @type {HTMLButtonElement} */ ($("add-bots")).disabled = free <= 0;
}
