/* The light strip's state, and whether players get hints. */

import { $, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";

export function renderLights(view) {
  const lights = view.lights || {};
  const status = $("lights-status");
  status.className = lights.ok ? "state-ok" : "state-bad";
  setText(status, lights.ok
    ? t("host.lights_ok", { backend: lights.backend || "?" })
    : t("host.lights_error", { backend: lights.backend || "?", error: lights.error || "—" }));
  $("lights-retry").hidden = Boolean(lights.ok);
  /** @type {HTMLInputElement} */ ($("hints")).checked = Boolean(view.hints);
  setText($("hints-label"), view.hints ? t("host.on") : t("host.off"));
}
