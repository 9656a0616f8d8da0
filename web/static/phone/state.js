/* The phone's own state: its seat's token, the newest view, the tapped card.  phone.js
   owns the one (newPhone) and passes it to the parts that fetch, pick and draw. */

import { seatOf } from "../common/names.js";
import { storageGet } from "../common/storage.js";

/** @typedef {import("../common/api.js").View} View */

export const TOKEN_KEY = "kalimambo.token";

/** @typedef {{token: string | null, view: View | null, me: any,
      selected: number | null, sending: boolean, seenRound: number | null,
      hintKey: string, confirm: (() => void) | null, lateRound: number | null}} Phone */

/** The phone as the page opens: its seat's token from the last visit, if any.
    @returns {Phone} */
export function newPhone() {
  return {
    token: storageGet(TOKEN_KEY),
    view: null,       // the newest public view
    me: null,         // the seat's own ("me": hand and pick), from its stream
    selected: null,   // tapped but not yet confirmed
    sending: false,
    seenRound: null,  // last resolved round whose reveal the player has seen
    hintKey: "",      // the round the hint text belongs to
    confirm: null,    // sends the tapped card (phone.js sets it: a second tap confirms)
    lateRound: null,  // the round whose too-late change of pick was told (once)
  };
}

/** @param {View | null} view */
export function lastRoundNumber(view) {
  return view && view.last_round ? view.last_round.round : 0;
}

/** A change of pick that the round's end overtook: the player had a card confirmed and
    had tapped another, not yet sent (or refused as too late), when the round was
    resolved.  The words that tell them, else null.
    @param {Phone} phone  @param {number | null} tapped  @param {number} round */
export function tooLate(phone, tapped, round) {
  const played = phone.me ? phone.me.pick : null;
  if (tapped === null || played === null || played === undefined || tapped === played
      || phone.lateRound === round) {
    return null;
  }
  phone.lateRound = round;  // told once, whichever way it is noticed first
  return { round, card: played, late: tapped };
}

/** @param {Phone} phone */
export function mySeat(phone) {
  return phone.me ? seatOf(phone.view, phone.me.name) : null;
}
