/* Waiting on the board page: the table's cursor sets the pace, so only short waits
   between the parts of one step are left here. */

/** @typedef {import("../common/api.js").View} View */

/** Wait `ms`, or less: the wait ends as soon as `cut()` says a newer step has come.
    @param {number} ms  @param {() => boolean} [cut] */
export const wait = (ms, cut = () => false) => new Promise((resolve) => {
  const end = performance.now() + ms;
  const tick = () => {
    const left = end - performance.now();
    if (left <= 0 || cut()) resolve(undefined);
    else setTimeout(tick, Math.min(25, left));
  };
  tick();
});

const paceOverride = Number(new URLSearchParams(window.location.search).get("pace")) || null;

/** The table's pause per step in ms (or ?pace= in the address): slides scale with it.
    @param {View | null} view */
export function pause(view) {
  if (paceOverride) return paceOverride;
  const lights = view && view.lights;
  return lights && lights.pause_ms ? lights.pause_ms : 3000;
}
