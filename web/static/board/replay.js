/* A replay on the board page: a stored game played back (the host's "watch again", or
   attract mode between games). The table sends it as view.replay, whose `board` has the
   live view's board keys (positions, seats, playback with its cursor, ...): the board
   draws it with the code that draws a live round, from the steps the table made.

   During attract mode the join QR code stays on screen and a line says why this game
   was picked. "Watch again" and "Stop" are for the host only: shown on the table's own
   screen or with the host logged in here (a passer-by at the TV cannot start one). */

import { api } from "../common/api.js";
import { $, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";

/** @typedef {import("./state.js").Board} Board */

/** @type {string | null} */
let hostToken = null;

/** What the board draws: the replay's board over the table's view, or the view. */
export function shownView(view) {
  return view.replay ? { ...view, ...view.replay.board } : view;
}

/** The host's token (board.js finds it): the replay buttons need it.
    @param {Board} board  @param {string | null} token */
export function setHost(board, token) {
  hostToken = token;
  renderReplay(board);
}

/** The reason attract mode picked the game, in words. */
export function reasonText(reason) {
  if (!reason) return "";
  return t(`replay.why.${reason.code}`, reason.params || {});
}

/** Everything beside the ring that changes with a replay (after the others drew).
    @param {Board} board */
export function renderReplay(board) {
  const table = board.table;
  if (!table) return;
  const replay = table.replay;
  const box = $("replay-box");
  box.hidden = !replay;
  document.body.classList.toggle("replaying", Boolean(replay));
  document.body.dataset.replay = replay ? (replay.attract ? "attract" : "host") : "";
  if (replay) {
    const board = replay.board;
    setText($("replay-title"), t(replay.attract ? "replay.attract" : "replay.title",
      { game: replay.game_id }));
    setText($("replay-round"), replay.done ? t("replay.done")
      : t("replay.round", { round: board.round, rounds: replay.rounds }));
    setText($("replay-reason"), reasonText(replay.reason));
    $("replay-reason").hidden = !replay.reason;
    setText($("phase"), t("replay.phase", { game: replay.game_id }));
    // the join code stays on screen: a passer-by can take a seat at once
    $("join-box").hidden = table.phase !== "lobby";
    $("sheet-box").hidden = true;
    $("leaderboard").hidden = true;
    $("ring").classList.remove("behind");
  }
  $("watch-again").hidden = !hostToken || Boolean(replay) || table.phase !== "finished";
  $("replay-stop").hidden = !hostToken || !replay;
}

/** @param {Board} board */
export function wireReplay(board) {
  $("watch-again").addEventListener("click", () => {
    const table = board.table;
    if (hostToken && table) {
      api("POST", "/host/replay", { token: hostToken, body: { game_id: table.game_id } })
        .catch(() => {});
    }
  });
  $("replay-stop").addEventListener("click", () => {
    if (hostToken) api("POST", "/host/replay/stop", { token: hostToken }).catch(() => {});
  });
}
