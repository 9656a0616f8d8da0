/* The one line that says where a playback is, for the phones, the host page and its
   bar: the round, the step within that round (never to be mistaken for the 12 rounds),
   and, in step pacing, that the board waits for the host's Next. */

import { t } from "./i18n.js";

/** The line for a view whose round is being played back, or "" when none is; ``forHost``:
    the host's own page, whose Next the board waits for. */
export function playbackLine(view, forHost = false) {
  const p = view && view.playback;
  if (!p) return "";
  const params = { round: p.round, step: p.step, steps: p.steps };
  if (p.pacing === "step" && p.step < p.steps) {
    return t(forHost ? "host.watch_step" : "phone.watch_step", params);
  }
  return t("phone.watch", params);
}
