/* The phone's seat: found again with GET /api/v1/me, never by name. */

import { api } from "../common/api.js";
import { $ } from "../common/dom.js";
import { storageSet } from "../common/storage.js";
import { toast } from "../common/toast.js";
import { render } from "./draw.js";
import { lastRoundNumber, state, TOKEN_KEY, viewKey } from "./state.js";

/** Fetch this seat's own view ("me"); a seat the table no longer knows is forgotten. */
export async function loadMe() {
  if (!state.token) return;
  try {
    const data = await api("GET", "/me", { token: state.token });
    state.me = data.me;
    state.meKey = viewKey(data);
    if (!state.view || (data.version || 0) >= (state.view.version || 0)) state.view = data;
    if (state.seenRound === null) state.seenRound = lastRoundNumber(state.view);
    $("seat-lost").hidden = true;
  } catch (err) {
    if (err.status === 401 || err.status === 403 || err.status === 404) {
      forgetSeat(true);
    } else {
      toast(err.message, "error");
    }
  }
  render();
}

/** Forget the seat (`lost`: say so on the join form). */
export function forgetSeat(lost) {
  state.token = null;
  state.me = null;
  state.selected = null;
  storageSet(TOKEN_KEY, null);
  $("seat-lost").hidden = !lost;
}
