/* At the end of a game: a link to its printable score sheet and the sheet's address as
   a QR code (drawn by the table, under the join address), so a phone can open and print
   it. */

import { $, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";
/** @typedef {import("./state.js").Board} Board */

/** @param {Board} board */
export function renderSheetLink(board) {
  const view = board.view;
  // not for a replay's end (board/replay.js): its game_id names the replay, not a sheet
  const show = view !== null && view.phase === "finished" && !board.playing && !view.replay;
  $("sheet-box").hidden = !show;
  if (!show) return;
  const path = `/games/${encodeURIComponent(String(view.game_id))}/sheet`;
  const link = $("sheet-link");
  if (link.getAttribute("href") !== path) link.setAttribute("href", path);
  setText(link, t("board.sheet", { game: view.game_id }));
  const qr = /** @type {HTMLImageElement} */ ($("sheet-qr"));
  const src = `${path}-qr.svg`;
  if (qr.getAttribute("src") !== src) qr.setAttribute("src", src);
  qr.alt = t("board.sheet_qr_alt", { game: view.game_id });
}
