/* The light strip's state and its power (the Pi's own supply, the strip's current
   against its supply), and whether players get hints. */

import { $, el, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";

/** Amps, as a builder reads them ("0.96 A").  @param {number} ma */
const amps = (ma) => `${(ma / 1000).toFixed(2)} A`;

/** The lights' power in a builder's words: each line [words, trouble?].
    @param {import("../common/api.js").Power} power */
export function powerLines(power) {
  /** @type {[string, boolean][]} */
  const lines = [];
  if (power.pi === "low") lines.push([t("host.power_low"), true]);
  else if (power.pi === "sagged") lines.push([t("host.power_sagged", { count: power.pi_sags }), true]);
  if (power.throttled) lines.push([t("host.power_throttled"), true]);
  if (power.dimming) {
    lines.push([t("host.power_dimming", { asked: amps(power.asked_ma),
      supply: amps(power.supply_ma) }), true]);
  } else if (power.supply_ma) {
    lines.push([t("host.power_ok", { asked: amps(power.asked_ma),
      supply: amps(power.supply_ma) }), false]);
  }
  if (power.pi === "unknown") lines.push([t("host.power_unknown"), false]);
  return lines;
}

/** @param {import("../common/api.js").Power | null | undefined} power */
function renderPower(power) {
  const list = $("lights-power");
  list.textContent = "";
  list.hidden = !power;
  if (!power) return;
  for (const [words, trouble] of powerLines(power)) {
    list.appendChild(el("li", { class: trouble ? "state-bad" : "muted" }, words));
  }
}

export function renderLights(view) {
  const lights = view.lights || {};
  const status = $("lights-status");
  status.className = lights.ok ? "state-ok" : "state-bad";
  setText(status, lights.ok
    ? t("host.lights_ok", { backend: lights.backend || "?" })
    : t("host.lights_error", { backend: lights.backend || "?", error: lights.error || "—" }));
  $("lights-retry").hidden = Boolean(lights.ok);
  renderPower(lights.power);
  /** @type {HTMLInputElement} */ ($("hints")).checked = Boolean(view.hints);
  setText($("hints-label"), view.hints ? t("host.on") : t("host.off"));
}
