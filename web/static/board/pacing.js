/* How long the board lingers on each event: a pause (the table's, or ?pace= in the
   address), or in step pacing the same "next" press as the strip. */

import { state } from "./state.js";

const paceOverride = Number(new URLSearchParams(window.location.search).get("pace")) || null;

export const wait = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** The pause after each event, in ms. */
export function pause() {
  if (paceOverride) return paceOverride;
  const lights = state.view && state.view.lights;
  return lights && lights.pause_ms ? lights.pause_ms : 900;
}

/** In step pacing the board waits for the same "next" (host page or the board's
    button) as the strip, one press per strip step. */
export function stepping() {
  const lights = state.view && state.view.lights;
  return !paceOverride && Boolean(lights) && lights.pacing === "step";
}

/** How many "next" presses the table has counted. */
export function presses() {
  const lights = state.view && state.view.lights;
  return (lights && lights.next_presses) || 0;
}

/** Wait for the pause, or in step pacing for the next press. */
export async function gate() {
  if (!stepping()) {
    await wait(pause());
    return;
  }
  while (stepping() && presses() <= state.pressBase) await wait(100);
  state.pressBase += 1;
}

/** The strip flashes a run of penalties for one hit as one step. */
export function lastOfPenaltyRun(events, index) {
  const ev = events[index];
  const next = events[index + 1];
  return !next || next.type !== "penalty" || next.figure !== ev.figure
    || next.cause !== ev.cause;
}
