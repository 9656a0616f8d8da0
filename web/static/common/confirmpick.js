/* Confirming a tapped card as a seat's pick for the round, as the phone does it and
   the host page's hand-over (a seat played without a phone) does it. */

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
export async function confirmPick(pending, round, send) {
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
