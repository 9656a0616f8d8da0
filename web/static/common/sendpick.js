/* Sending a tapped card as a seat's pick for the round, one send at a time: for the
   phone's confirm and the host page's hand-over (a seat played without a phone). */

/** The seat's tapped card and whether its pick is on its way.
    @typedef {{selected: number | null, sending?: boolean}} Pending */

/** Send `pending.selected` as the pick for `round`, one send at a time: `send(body)`
    posts `{round, card}` and resolves true if the table took it. A taken pick clears
    `pending.selected`.

    Resolves with null when nothing was sent (no card tapped, or a send still under way),
    else with whether the table took the pick.
    @param {Pending} pending  @param {number} round
    @param {(body: {round: number, card: number}) => Promise<boolean>} send
    @returns {Promise<boolean | null>} */
export async function sendPick(pending, round, send) {
  const card = pending.selected;
  if (card === null || pending.sending) return null;
  pending.sending = true;
  try {
    const taken = await send({ round, card });
    if (taken) pending.selected = null;
    return taken;
  } finally {
    pending.sending = false;
  }
}
