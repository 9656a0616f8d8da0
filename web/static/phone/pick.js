/* Picking on the phone: confirming the tapped card, and the hint. */

import { api } from "../common/api.js";
import { sendPick } from "../common/sendpick.js";
import { $ } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { toast } from "../common/toast.js";
import { render, renderHand } from "./draw.js";
import { forgetSeat, loadMe } from "./seat.js";
import { tooLate } from "./state.js";

/** @typedef {import("./state.js").Phone} Phone */

/** Send the tapped card as this seat's pick.
    @param {Phone} phone */
export async function confirmPick(phone) {
  const card = phone.selected;
  if (!phone.view) return;
  const round = phone.view.round;
  const taken = await sendPick(phone, round, async (body) => {
    $("confirm").textContent = t("pick.sending");
    try {
      await api("POST", "/pick", { token: phone.token, body });
      return true;
    } catch (err) {
      // the round was resolved meanwhile, with the card played before: say which
      const overtaken = ["playing", "wrong_round"].includes(err.code);
      const late = overtaken ? tooLate(phone, card, round) : null;
      if (overtaken) phone.selected = null;
      if (late) toast(t("pick.too_late", late), "error");
      else if (!overtaken || phone.lateRound !== round) toast(err.message, "error");
      if (err.status === 401) forgetSeat(phone, true);
      else await loadMe(phone);
      return false;
    }
  });
  if (taken === null) return;
  if (taken && phone.me) phone.me = { ...phone.me, pick: card };  // until the stream says it
  render(phone);
}

/** Ask the table for a hint and select the card it suggests.
    @param {Phone} phone */
export async function askHint(phone) {
  /** @type {HTMLButtonElement} */ ($("hint")).disabled = true;
  $("hint-text").textContent = "…";
  try {
    const data = await api("GET", "/hint", { token: phone.token });
    const params = Object.assign({ card: data.card }, data.params || {});
    const key = `hint.${data.code}`;
    const text = t(key, params);
    $("hint-text").textContent = text === key ? t("hint.text", params) : text;
    if (typeof data.card === "number" && phone.me && phone.me.hand.includes(data.card)) {
      phone.selected = data.card;
      renderHand(phone);
    }
  } catch (err) {
    $("hint-text").textContent = err.message;
  } finally {
    /** @type {HTMLButtonElement} */ ($("hint")).disabled = false;
  }
}
