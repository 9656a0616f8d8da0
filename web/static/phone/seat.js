/* The phone's seat: its own view comes with its stream (phone.js); GET /api/v1/me only
   after a refused pick, and forgetting a seat the table no longer knows. */

import { api } from "../common/api.js";
import { $ } from "../common/dom.js";
import { storageSet } from "../common/storage.js";
import { toast } from "../common/toast.js";
import { render } from "./draw.js";
import { lastRoundNumber, TOKEN_KEY } from "./state.js";

/** @typedef {import("./state.js").Phone} Phone */

/** Fetch this seat's own view ("me"); a seat the table no longer knows is forgotten.
    @param {Phone} phone */
export async function loadMe(phone) {
  if (!phone.token) return;
  try {
    const data = await api("GET", "/me", { token: phone.token });
    phone.me = data.me;
    if (!phone.view || (data.version || 0) >= (phone.view.version || 0)) phone.view = data;
    if (phone.seenRound === null) phone.seenRound = lastRoundNumber(phone.view);
    $("seat-lost").hidden = true;
  } catch (err) {
    if (err.status === 401 || err.status === 403 || err.status === 404) {
      forgetSeat(phone, true);
    } else {
      toast(err.message, "error");
    }
  }
  render(phone);
}

/** Forget the seat (`lost`: say so on the join form).
    @param {Phone} phone */
export function forgetSeat(phone, lost) {
  phone.token = null;
  phone.me = null;
  phone.selected = null;
  storageSet(TOKEN_KEY, null);
  $("seat-lost").hidden = !lost;
}
