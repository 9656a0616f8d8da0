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
import { newPhone, TOKEN_KEY, tooLate, viewKey } from "./phone/state.js";

// ---------------------------------------------------------------- the seat
// (its state, GET /me and drawing are in phone/: state.js, seat.js, pick.js, draw.js)

/** The phone's state: the page's one, passed to the parts that fetch, pick and draw. */
const phone = newPhone();

async function join(event) {
  event.preventDefault();
  const name = /** @type {HTMLInputElement} */ ($("name")).value.trim();
  if (!name) { $("name").focus(); return; }
  const button = /** @type {HTMLButtonElement} */ ($("join-button"));
  button.disabled = true;
  button.textContent = t("join.busy");
  try {
    const data = await api("POST", "/join", { body: { name } });
    phone.token = data.token;
    storageSet(TOKEN_KEY, data.token);
    $("seat-lost").hidden = true;
    await loadMe(phone);
    stream.reconnect();
  } catch (err) {
    toast(err.message, "error");
  } finally {
    button.disabled = false;
    button.textContent = t("join.button");
  }
}

function onView(view, whole) {
  // a change of pick the round's end overtook (the last player picked first): say so
  const before = phone.view;
  const late = before && before.phase === "picking" && view.phase !== "picking"
    && view.game_id === before.game_id ? tooLate(phone, phone.selected, before.round) : null;
  if (late) toast(t("pick.too_late", late), "error");
  phone.view = view;
  if (!phone.token) { render(phone); return; }
  const inTable = (view.seats || []).some((s) => phone.me && s.name === phone.me.name);
  if (!phone.me || viewKey(view) !== phone.meKey || !inTable) {
    loadMe(phone).then(() => (whole ? onWoken(phone, phone.view) : onHappened(phone, view)));
  } else {
    render(phone);
    if (whole) onWoken(phone, view); else onHappened(phone, view);
  }
}

// ----------------------------------------------------- event handlers
$("join-form").addEventListener("submit", join);
nameCounter($("name"), $("name-count"));
phone.confirm = () => { confirmPick(phone); };
$("confirm").addEventListener("click", () => confirmPick(phone));
$("cancel").addEventListener("click", () => { phone.selected = null; render(phone); });
$("hint").addEventListener("click", () => askHint(phone));
$("sheet-ok").addEventListener("click", () => sheet.close());
onLang(() => render(phone));
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) loadMe(phone);
});

startPage();
render(phone);
if (phone.token) loadMe(phone);
const stream = live(onView, () => phone.token);
