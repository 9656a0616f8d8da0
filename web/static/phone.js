/* The phone: join, pick and confirm a card, see the reveal and what it did to you.
   The seat token lives in localStorage; a reloaded or re-woken page finds its seat by
   opening the event stream with it (the seat's own stream carries its hand and pick as
   the view's "me"), never by name. */

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
import { forgetSeat } from "./phone/seat.js";
import { lastRoundNumber, newPhone, TOKEN_KEY, tooLate } from "./phone/state.js";

// ---------------------------------------------------------------- the seat
// (its state, seat, picking and drawing are in phone/: state.js, seat.js, pick.js, draw.js)

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
    render(phone);
    stream.reconnect();  // the seat's own stream: its first view brings the hand
  } catch (err) {
    toast(err.message, "error");
  } finally {
    button.disabled = false;
    button.textContent = t("join.button");
  }
}

/** A view from the stream; `token`: the seat token the stream was opened with (its
    view then holds the seat's "me", or none when the table no longer knows the seat);
    `happened`: what the change did, told beside it. */
function onView(view, whole, token, happened) {
  // a change of pick the round's end overtook (the last player picked first): say so
  const before = phone.view;
  const late = before && before.phase === "picking" && view.phase !== "picking"
    && view.game_id === before.game_id ? tooLate(phone, phone.selected, before.round) : null;
  if (late) toast(t("pick.too_late", late), "error");
  phone.view = view;
  if (phone.token && token === phone.token) {
    if (view.me) {
      phone.me = view.me;
      if (phone.seenRound === null) phone.seenRound = lastRoundNumber(view);
    } else {
      forgetSeat(phone, true);
    }
  }
  render(phone);
  if (!phone.me) return;
  if (whole) onWoken(phone, view); else onHappened(phone, view, happened);
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

startPage();
render(phone);
const stream = live(onView, () => phone.token);
