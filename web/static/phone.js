/* The phone: join, pick and confirm a card, see the reveal and what it did to you.
   The seat token lives in localStorage; a reloaded or re-woken page finds its
   seat with GET /api/v1/me, never by name. */

import { api } from "./common/api.js";
import { $ } from "./common/dom.js";
import { onLang, t } from "./common/i18n.js";
import { live } from "./common/live.js";
import { nameCounter } from "./common/namecount.js";
import { startPage } from "./common/page.js";
import { storageSet } from "./common/storage.js";
import { toast } from "./common/toast.js";
import { onHappened, onWoken, render, sheet } from "./phone/draw.js";
import { askHint, confirmPick } from "./phone/pick.js";
import { loadMe } from "./phone/seat.js";
import { state, TOKEN_KEY, viewKey } from "./phone/state.js";

// ---------------------------------------------------------------- the seat
// (its state, GET /me and drawing are in phone/: state.js, seat.js, pick.js, draw.js)

async function join(event) {
  event.preventDefault();
  const name = /** @type {HTMLInputElement} */ ($("name")).value.trim();
  if (!name) { $("name").focus(); return; }
  const button = /** @type {HTMLButtonElement} */ ($("join-button"));
  button.disabled = true;
  button.textContent = t("join.busy");
  try {
    const data = await api("POST", "/join", { body: { name } });
    state.token = data.token;
    storageSet(TOKEN_KEY, data.token);
    $("seat-lost").hidden = true;
    await loadMe();
    stream.reconnect();
  } catch (err) {
    toast(err.message, "error");
  } finally {
    button.disabled = false;
    button.textContent = t("join.button");
  }
}

// ------------------------------------------------------------- picking

// ------------------------------------------------------------ drawing

function onView(view, whole) {
  state.view = view;
  if (!state.token) { render(); return; }
  const inTable = (view.seats || []).some((s) => state.me && s.name === state.me.name);
  if (!state.me || viewKey(view) !== state.meKey || !inTable) {
    loadMe().then(() => (whole ? onWoken(state.view) : onHappened(view)));
  } else {
    render();
    if (whole) onWoken(view); else onHappened(view);
  }
}

// ------------------------------------------------------------- wiring
$("join-form").addEventListener("submit", join);
nameCounter($("name"), $("name-count"));
$("confirm").addEventListener("click", confirmPick);
$("cancel").addEventListener("click", () => { state.selected = null; render(); });
$("hint").addEventListener("click", askHint);
$("sheet-ok").addEventListener("click", () => sheet.close());
onLang(() => render());
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) loadMe();
});

startPage();
render();
if (state.token) loadMe();
const stream = live(onView, () => state.token);
