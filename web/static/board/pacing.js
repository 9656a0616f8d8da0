/* Waiting on the board page: the table's cursor sets the pace, so only short waits
   between the parts of one step are left here. */

/** @typedef {import("../common/api.js").View} View */

export const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

const paceOverride = Number(new URLSearchParams(window.location.search).get("pace")) || null;

/** The table's pause per step in ms (or ?pace= in the address): slides scale with it.
    @param {View | null} view */
export function pause(view) {
  if (paceOverride) return paceOverride;
  const lights = view && view.lights;
  return lights && lights.pause_ms ? lights.pause_ms : 3000;
}
