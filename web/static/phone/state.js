/* The phone's own state: its seat's token, the newest view, the tapped card. */

import { seatOf } from "../common/names.js";
import { storageGet } from "../common/storage.js";

/** @typedef {import("../common/api.js").View} View */

export const TOKEN_KEY = "kalimambo.token";

/** @type {{token: string | null, view: View | null, me: any, meKey: string,
      selected: number | null, sending: boolean, seenRound: number | null,
      hintKey: string}} */
export const state = {
  token: storageGet(TOKEN_KEY),
  view: null,       // the newest public view
  me: null,         // "me" from GET /api/v1/me
  meKey: "",        // game/round/phase the "me" belongs to
  selected: null,   // tapped but not yet confirmed
  sending: false,
  seenRound: null,  // last resolved round whose reveal the player has seen
  hintKey: "",      // the round the hint text belongs to
};

/** The game, round, phase and rounds played that a "me" belongs to.
    @param {View} view */
export function viewKey(view) {
  return `${view.game_id || ""}/${view.round}/${view.phase}/${(view.history || []).length}`;
}

/** @param {View | null} view */
export function lastRoundNumber(view) {
  return view && view.last_round ? view.last_round.round : 0;
}

export function mySeat() {
  return state.me ? seatOf(state.view, state.me.name) : null;
}
