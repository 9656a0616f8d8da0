/* What every page does first: its words in the chosen language and the language switch. */

import { $ } from "./dom.js";
import { applyI18n, langSwitch } from "./i18n.js";

export function startPage() {
  applyI18n();
  const select = $("lang");
  if (select) langSwitch(select);
}
