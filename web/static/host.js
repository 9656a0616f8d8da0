/* The host page: PIN login, seats (remove, computer players, seats without a phone),
   start with a random or an entered set-up, undo, new game, the light strip and
   hints.  A new view updates the controls in place (never rebuilds them), so the
   keyboard focus and anything typed survive it. */

import { api } from "./common/api.js";
import { modal } from "./common/dialog.js";
import { $, setText } from "./common/dom.js";
import { onLang, t } from "./common/i18n.js";
import { live } from "./common/live.js";
import { playbackLine } from "./common/playline.js";
import { renderPlacing } from "./common/placing.js";
import { nameCounter } from "./common/namecount.js";
import { startPage } from "./common/page.js";
import { clearToast, toast } from "./common/toast.js";
import { renderArchive } from "./host/archive.js";
import { renderBooth, wireBooth } from "./host/booth.js";
import { renderDay, wireNewDay } from "./host/day.js";
import { closeHandover, handoverPending, openHandover } from "./host/handover.js";
import { renderLights } from "./host/lights.js";
import { renderPace, wirePace } from "./host/pace.js";
import { renderSeats } from "./host/seats.js";
import { act, checkLogin, hostToken, logout, onLogout, setHostToken } from "./host/session.js";
import { enteredSetup, renderOrder, wireOrder } from "./host/setup.js";

/** @typedef {import("./common/api.js").View} View */

/** @type {View | null} the newest public view */
let view = null;

async function login(event) {
  event.preventDefault();
  try {
    const data = await api("POST", "/host", { body: { pin: /** @type {HTMLInputElement} */ ($("pin")).value.trim() } });
    setHostToken(data.token);
    clearToast();
    /** @type {HTMLInputElement} */ ($("pin")).value = "";
    render();
  } catch (err) {
    toast(err.message, "error");
  }
}

/** Log in with a body: the host link's key (or the first-host code of the table's own
    screen's QR code, which comes the same way). */
async function loginWith(body) {
  try {
    const data = await api("POST", "/host", { body });
    setHostToken(data.token);
    clearToast();
    render();
  } catch (err) {
    toast(err.message, "error");
  }
}

/** The host link's key in the address (#key=...), taken out of it (and so out of the
    history) as it is read. */
function keyFromAddress() {
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (key) history.replaceState(null, "", location.pathname + location.search);
  return key;
}

/** Without typing: the host link's key (#key=..., printed when the table starts, or the
    first host's code from the table's own screen) logs in at once. */
async function loginBySight() {
  const key = keyFromAddress();
  if (hostToken()) return;
  if (key) {
    await loginWith({ key });
  }
}

/** @param {View} view */
function gameStatus(view) {
  if (view.phase === "lobby") return t("host.lobby_status", { count: (view.seats || []).length });
  if (view.phase === "playing" && view.playback) return playbackLine(view, true);
  const status = view.phase === "finished" ? t("phase.finished")
    : t("phase.picking", { round: view.round });
  return view.undone ? `${t("table.undone", { round: view.undone })} ${status}` : status;
}

/** The confirm dialogs' words for the game as it stands: the round an undo takes back
    (the one being played back, or the last one played), what a new game ends. */
/** @param {View} view */
function renderDialogs(view) {
  const round = view.phase === "playing" && view.playback ? view.playback.round
    : view.last_round ? view.last_round.round : view.round;
  setText($("confirm-undo-title"), t("host.undo_title", { round }));
  const ends = { lobby: t("host.new_text_lobby"), finished: t("host.new_text_over") };
  setText($("confirm-new-text"), ends[view.phase] || t("host.new_text"));
}

function render() {
  const logged = Boolean(hostToken());
  $("login").hidden = logged;
  $("console").hidden = !logged;
  if (!logged || !view) return;
  const lobby = view.phase === "lobby";
  setText($("game-status"), gameStatus(view));
  renderPlacing($("placing"), view);
  $("undo").hidden = lobby || (!(view.history || []).length && view.phase !== "playing");
  $("record").hidden = lobby;
  $("lobby-tools").hidden = !lobby;
  $("start-box").hidden = !lobby;
  renderSeats(view, openHandover);
  if (lobby) renderOrder(view);
  renderLights(view);
  renderPace(view);
  renderArchive(view);
  renderDay(view);
  renderBooth(view);
  renderDialogs(view);
  const storage = view.storage || { ok: true };
  $("storage-warning").hidden = storage.ok !== false;
  if (storage.ok === false) {
    setText($("storage-warning"), storage.in_memory ? t("host.storage_memory")
      : t("host.storage", { error: storage.error || "" }));
  }
  // the game moved on without the hosted seat's pick (undo, new game): nothing to hand over
  if (!["picking", "playing"].includes(view.phase) && handoverPending()) closeHandover();
}

// a new game: ask first, in a dialog (Escape or Cancel keeps the game); the seats stay
// unless the host ticks "clear them"
const confirmNew = modal($("confirm-new"), (answer) => {
  if (answer === "new") {
    act($("new-game"), "POST", "/host/new", { keep_seats: !/** @type {HTMLInputElement} */ ($("new-clear")).checked });
  }
});
const confirmUndo = modal($("confirm-undo"), (answer) => {
  if (answer === "undo") act($("undo"), "POST", "/host/undo", {});
});

wireNewDay();
wireBooth();
wireOrder();
wirePace();
$("login-form").addEventListener("submit", login);
$("logout").addEventListener("click", logout);
$("undo").addEventListener("click", () => confirmUndo.open($("undo-cancel")));
$("new-game").addEventListener("click", () => confirmNew.open($("new-cancel")));
$("add-bots").addEventListener("click", () => act($("add-bots"), "POST", "/host/bots",
  { count: Number(/** @type {HTMLInputElement} */ ($("bot-count")).value), level: /** @type {HTMLInputElement} */ ($("bot-level")).value }));
const hostedCount = nameCounter($("hosted-name"), $("hosted-count"));
$("hosted-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = /** @type {HTMLInputElement} */ ($("hosted-name")).value.trim();
  if (!name) return;
  if (await act(null, "POST", "/host/seats", { name })) {
    /** @type {HTMLInputElement} */ ($("hosted-name")).value = "";
    hostedCount();
  }
});
$("start-random").addEventListener("click", () => act($("start-random"), "POST", "/host/start", {}));
$("setup-form").addEventListener("submit", (event) => {
  event.preventDefault();
  act(null, "POST", "/host/start", { setup: enteredSetup() });
});
$("placing-done").addEventListener("click", () =>
  act($("placing-done"), "POST", "/host/placed", {}));
$("lights-retry").addEventListener("click", () =>
  act($("lights-retry"), "POST", "/host/lights/retry", {}));
$("hints").addEventListener("change", () =>
  act(null, "POST", "/host/settings", { hints: /** @type {HTMLInputElement} */ ($("hints")).checked }));
onLogout(() => { closeHandover(); render(); });
onLang(() => render());

startPage();
render();
checkLogin().then(loginBySight);
// the host link opened in a tab already on this page changes only the #key= part: no
// new page load, so the key is taken from here
window.addEventListener("hashchange", () => { loginBySight(); });
live((next) => { view = next; render(); });
