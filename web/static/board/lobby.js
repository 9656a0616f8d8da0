/* Beside the ring before and after a game: the phase line, the join QR code and
   address, the winners, and on the table's own screen (only there, and only before the
   first host has logged in) the first host's QR code.

   The board never shows the host PIN or key: this screen faces the room. */

import { $, setText } from "../common/dom.js";
import { api } from "../common/api.js";
import { t } from "../common/i18n.js";

/** @typedef {import("../common/api.js").View} View */
/** @typedef {import("./state.js").Board} Board */

const RECHECK_MS = 2000;  // while the first host's QR code shows: is it still offered?

let own = false;  // the board runs on the table's own screen (the server says so)
let hostQr = false;  // the server offers the first host's QR code to this screen
/** @type {number | null} */
let recheck = null;

/** Whether the board runs on the table's own screen (it may show "Next" in step pacing). */
export const ownScreen = () => own;

/** @param {Board} board */
function phaseText(board) {
  const view = /** @type {View} */ (board.view);  // drawn once the first view came
  const seats = view.seats || [];
  // the lobby's "waiting for players" is in the ring's centre (ring.js): here only
  // while the day's leaderboard takes the ring's place
  if (view.phase === "lobby") {
    return ringHidden() ? t("board.waiting", { count: seats.length }) : "";
  }
  if (board.playing && board.round) return t("phase.picking", { round: board.round });
  if (view.phase === "finished") return t("phase.finished");
  // during a playback nobody picks: no "Picked: 0 of 3" for the round to come
  if (view.phase === "playing" && view.playback) {
    return t("phase.picking", { round: view.playback.round });
  }
  return `${t("phase.picking", { round: view.round })} · ${t("board.picking", {
    done: seats.filter((s) => s.picked).length, total: seats.length })}`;
}

const ringHidden = () => $("ring").classList.contains("behind");

/** The phase line; again when the leaderboard takes the ring's place or gives it back
    (it decides once the day's figures are in, after this drew).
    @param {Board} board */
function renderPhase(board) {
  if (!board.view) return;
  const replaying = Boolean(board.table && board.table.replay);
  if (replaying) return;  // the replay's line (replay.js)
  const phase = phaseText(board);
  setText($("phase"), phase);
  $("phase").hidden = !phase;
}

/** The phase line follows the ring going behind the leaderboard and coming back.
    @param {Board} board */
export function wireLobby(board) {
  new MutationObserver(() => renderPhase(board)).observe($("ring"), { attributes: true,
    attributeFilter: ["class"] });
}

/** @param {Board} board */
export function renderLobby(board) {
  const view = /** @type {View} */ (board.view);  // drawn once the first view came
  const replaying = Boolean(board.table && board.table.replay);
  renderPhase(board);
  if (replaying) $("phase").hidden = false;  // its line comes next (replay.js)
  $("join-box").hidden = view.phase !== "lobby";
  // "Scan the code..." is the lobby's narration under the ring (board.js): beside the
  // code only while a replay has the narration
  /** @type {HTMLElement | null} */
  const ready = document.getElementById("ready-line");
  if (ready) ready.hidden = !replaying;
  const url = view.join_url || "";
  const qr = /** @type {HTMLImageElement} */ ($("qr"));
  if ($("join-url").textContent !== url) {
    $("join-url").textContent = url;
    qr.src = `${(qr.getAttribute("src") || "").split("?")[0]}?u=${encodeURIComponent(url)}`;
  }
  qr.alt = t("board.qr_alt", { url });
  const over = view.phase === "finished" && !board.playing;
  $("winners").hidden = !over;
  if (over) setText($("winners"), t((view.winners || []).length === 1 ? "board.winner" : "board.winners",
      { names: (view.winners || []).join(", ") }));
  showHostQr(board);
}

/* The first host's QR code shows only in a quiet lobby, outside booth mode: a replay for
   passers-by is no time to offer the table's controls to whoever scans the screen. The
   server decides (it refuses the picture otherwise); this only hides it the moment the
   view says so, and drops the picture itself, not just its box. */
/** @param {Board} board */
function showHostQr(board) {
  const table = board.table || board.view;
  const quiet = table !== null && !table.replay && table.phase === "lobby"
    && !(table.booth && table.booth.attract !== false);
  const shown = hostQr && quiet;
  const figure = $("host-link");
  const img = /** @type {HTMLImageElement} */ ($("host-qr"));
  figure.hidden = !shown;
  if (shown) {
    if (!img.getAttribute("src")) img.src = `${img.dataset.src}?t=${Date.now()}`;
    img.alt = t("board.host_qr_alt");
  } else if (img.getAttribute("src")) {
    img.removeAttribute("src");
  }
}

/** Ask the table what this screen may know: whether it is the table's own screen, and
    whether it may show the first host's QR code (until a host logs in: asked again
    every few seconds while it shows, so it goes as soon as the first host is in).
    @param {Board} board */
export async function loadLocal(board) {
  try {
    const data = await api("GET", "/local");
    own = Boolean(data && data.local);
    hostQr = own && Boolean(data.host_qr);
  } catch (e) { /* the board works without it */ }
  showHostQr(board);
  if (hostQr && recheck === null) {
    recheck = setInterval(() => loadLocal(board), RECHECK_MS);
  } else if (!hostQr && recheck !== null) {
    clearInterval(recheck);
    recheck = null;
  }
  return own;
}
