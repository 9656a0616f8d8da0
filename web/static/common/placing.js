/* The wooden pieces to move by hand (the view's `placing`): after an undo, a skip, a
   restart mid-round or a new game's set-up the board jumps instead of following a step,
   and every page says which piece goes where ("Ana: back from space 12 to 5") while
   the strip blinks each target, until the next reveal or the host's "Done". */

import { el, setText } from "./dom.js";
import { t } from "./i18n.js";

/** @typedef {import("./api.js").View} View */
/** @typedef {import("./api.js").PieceMove} PieceMove */

/** The piece's name in words: a player's name as typed, Kali, Mambo, a heap.
    @param {PieceMove} move */
function pieceName(move) {
  if (move.piece === "mambo") return t("figure.mambo");
  if (move.piece === "kali") return t("figure.kali");
  return move.name || "";
}

/** One line: what to do with one piece.  @param {PieceMove} move  @param {string} reason */
export function moveLine(move, reason) {
  if (move.piece === "heap") return t("place.heap", { to: move.to });
  const name = pieceName(move);
  if (move.from === undefined || move.from === null) return t("place.to", { name, to: move.to });
  const key = reason === "undo" ? "place.back" : "place.move";
  return t(key, { name, from: move.from, to: move.to });
}

/** The heading: why the pieces must be moved.  @param {NonNullable<View["placing"]>} placing */
export function placingTitle(placing) {
  return t(`place.title.${placing.reason}`, { round: placing.round });
}

/** A phone's list folds when it is longer than this (the hand stays in sight). */
const FOLD_AFTER = 4;

/** Fill a placing box (a section, or on the phone a <details>, with an h2 and a ul;
    hidden when there is nothing to move).  Each line carries the piece and its target
    for the tests and for styling.
    @param {HTMLElement} box  @param {View | null} view */
export function renderPlacing(box, view) {
  const placing = view && !view.replay ? view.placing : null;
  box.hidden = !placing;
  if (!placing) return;
  const key = JSON.stringify(placing);
  if (box instanceof HTMLDetailsElement && box.dataset.key !== key) {
    box.open = placing.moves.length <= FOLD_AFTER;  // a new list: open if short
  }
  box.dataset.key = key;
  setText(/** @type {HTMLElement} */ (box.querySelector("h2")), placingTitle(placing));
  const list = /** @type {HTMLElement} */ (box.querySelector("ul"));
  list.textContent = "";
  // a set-up's heaps in one line ("Dung heaps on spaces 9, 14, 20"): the list stays short
  const heaps = placing.moves.filter((move) => move.piece === "heap").map((move) => move.to);
  if (heaps.length > 1) {
    list.appendChild(el("li", { dataset: { piece: "heap", name: "", to: heaps.join(",") } },
      t("place.heaps", { spaces: heaps.join(", ") })));
  }
  for (const move of placing.moves) {
    if (move.piece === "heap" && heaps.length > 1) continue;
    list.appendChild(el("li", { dataset: { piece: move.piece, name: move.name || "",
      to: String(move.to) } }, moveLine(move, placing.reason)));
  }
}
