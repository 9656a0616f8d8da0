/* The playback's pace, in the game's own panel (automatic or step by step, and how long
   each step stays up), and the bar at the bottom of the screen during a playback: Next
   and Skip where the host's thumb is, on a phone-sized page, without scrolling. */

import { $, el, setText } from "../common/dom.js";
import { currentLang, t } from "../common/i18n.js";
import { playbackLine } from "../common/playline.js";
import { act } from "./session.js";

const PAUSES_MS = [1000, 1500, 2000, 2500, 3000, 3500, 4000, 5000, 6000, 7000, 8000];

function seconds(ms) {
  const s = new Intl.NumberFormat(currentLang(), { maximumFractionDigits: 1 }).format(ms / 1000);
  return t("host.seconds", { s });
}

function fillPauses(current) {
  const select = /** @type {HTMLSelectElement} */ ($("pause"));
  const values = PAUSES_MS.includes(current) ? PAUSES_MS
    : [...PAUSES_MS, current].sort((a, b) => a - b);  // a pause set through the API
  const wanted = values.join(",");
  if (select.dataset.values !== wanted || select.dataset.lang !== currentLang()) {
    select.textContent = "";
    for (const ms of values) select.appendChild(el("option", { value: String(ms) }, seconds(ms)));
    select.dataset.values = wanted;
    select.dataset.lang = currentLang();
  }
  if (select.value !== String(current)) select.value = String(current);
}

/** Draw the pace controls and the playback bar for ``view``. */
export function renderPace(view) {
  const lights = view.lights || {};
  const pacing = lights.pacing || "auto";
  if (/** @type {HTMLInputElement} */ ($("pacing")).value !== pacing) /** @type {HTMLInputElement} */ ($("pacing")).value = pacing;
  fillPauses(lights.pause_ms || 3000);
  $("pause-box").hidden = pacing !== "auto";
  const replaying = Boolean(view.replay);
  const playing = view.phase === "playing" || replaying;
  const bar = $("playbar");
  bar.hidden = !playing;
  document.body.classList.toggle("with-playbar", playing);
  setText($("playbar-line"), playing ? playbackLine(view, true) : "");
  $("lights-next").hidden = pacing !== "step";
  $("skip").hidden = !playing;
}

export function wirePace() {
  $("pacing").addEventListener("change", () =>
    act(null, "POST", "/host/settings", { pacing: /** @type {HTMLInputElement} */ ($("pacing")).value }));
  $("pause").addEventListener("change", () =>
    act(null, "POST", "/host/settings", { pause_ms: Number(/** @type {HTMLInputElement} */ ($("pause")).value) }));
  $("lights-next").addEventListener("click", () =>
    act($("lights-next"), "POST", "/host/next", {}));
  $("skip").addEventListener("click", () => act($("skip"), "POST", "/host/skip", {}));
}
