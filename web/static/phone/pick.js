/* Picking on the phone: confirming the tapped card, and the hint. */

import { api } from "../common/api.js";
import { confirmPick as sendPick } from "../common/confirmpick.js";
import { $ } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { toast } from "../common/toast.js";
import { render, renderHand } from "./draw.js";
import { forgetSeat, loadMe } from "./seat.js";
import { state } from "./state.js";

/** Send the tapped card as this seat's pick. */
export async function confirmPick() {
  const card = state.selected;
  if (!state.view) return;
  const taken = await sendPick(state, state.view.round, async (body) => {
    $("confirm").textContent = t("pick.sending");
    try {
      await api("POST", "/pick", { token: state.token, body });
      return true;
    } catch (err) {
      toast(err.message, "error");
      if (err.status === 401) forgetSeat(true);
      else await loadMe();
      return false;
    }
  });
  if (taken === null) return;
  if (taken && state.me) state.me.pick = card;
  render();
}

/** Ask the table for a hint and select the card it suggests. */
export async function askHint() {
  /** @type {HTMLButtonElement} */ ($("hint")).disabled = true;
  $("hint-text").textContent = "…";
  try {
    const data = await api("GET", "/hint", { token: state.token });
    const params = Object.assign({ card: data.card }, data.params || {});
    const key = `hint.${data.code}`;
    const text = t(key, params);
    $("hint-text").textContent = text === key ? t("hint.text", params) : text;
    if (typeof data.card === "number" && state.me && state.me.hand.includes(data.card)) {
      state.selected = data.card;
      renderHand();
    }
  } catch (err) {
    $("hint-text").textContent = err.message;
  } finally {
    /** @type {HTMLButtonElement} */ ($("hint")).disabled = false;
  }
}
