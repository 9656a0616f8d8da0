/* Beside the ring before and after a game: the phase line, the join QR code and
   address, the host PIN (on the table's own screen only), and the winners. */

import { $, setText } from "../common/dom.js";
import { api } from "../common/api.js";
import { t } from "../common/i18n.js";
import { state } from "./state.js";

let pin = null;  // the host PIN, when the board runs on the table's own machine and has one
let hostLink = false;  // the host link's QR code: only on the table's own machine

function phaseText() {
  const view = state.view;
  const seats = view.seats || [];
  if (view.phase === "lobby") return t("board.waiting", { count: seats.length });
  if (state.playing && state.cards) return t("phase.picking", { round: state.cards.round });
  if (view.phase === "finished") return t("phase.finished");
  // during a playback nobody picks: no "0 of 3 have picked" for the round to come
  if (view.phase === "playing" && view.playback) {
    return t("phase.picking", { round: view.playback.round });
  }
  return `${t("phase.picking", { round: view.round })} · ${t("board.picking", {
    done: seats.filter((s) => s.picked).length, total: seats.length })}`;
}

export function renderLobby() {
  const view = state.view;
  setText($("phase"), phaseText());
  $("join-box").hidden = view.phase !== "lobby";
  const url = view.join_url || "";
  const qr = $("qr");
  if ($("join-url").textContent !== url) {
    $("join-url").textContent = url;
    qr.src = `${qr.getAttribute("src").split("?")[0]}?u=${encodeURIComponent(url)}`;
  }
  qr.alt = t("board.qr_alt", { url });
  const over = view.phase === "finished" && !state.playing;
  $("winners").hidden = !over;
  if (over) setText($("winners"), t((view.winners || []).length === 1 ? "board.winner" : "board.winners",
      { names: (view.winners || []).join(", ") }));
  showPin();
}

/* The host's way in shows only in a quiet lobby: a replay for passers-by (attract mode
   at a booth) is no time to offer the table's controls to whoever scans the screen. */
function showPin() {
  const view = state.view;
  const quiet = !view || !view.replay;
  $("pin").hidden = !pin || !quiet;
  if (pin) setText($("pin"), t("board.pin", { pin }));
  $("host-link").hidden = !hostLink || !quiet;
  if (hostLink && quiet) {
    const qr = $("host-qr");
    if (!qr.getAttribute("src")) qr.src = qr.dataset.src;
    qr.alt = t("board.host_qr_alt");
  }
}

/** Ask whether the board runs on the table itself; if so show the host PIN (when one is
    set) and the host link as a QR code, so the host's phone gets in with one scan. */
export async function loadPin() {
  try {
    const data = await api("GET", "/local");
    const local = Boolean(data && data.local);
    pin = local && data.pin ? data.pin : null;
    hostLink = local && Boolean(data.key);
    showPin();
  } catch (e) { /* the board works without it */ }
}
