/* A name field's limit, said under it: "7 of 20 letters", and when the limit is reached
   that a name has at most 20 (the field's maxlength stops the typing; without a word a
   longer name would just be cut). */

import { onLang, t } from "./i18n.js";

/** Keep `counter` (its data-max is the limit) in step with what `input` holds. */
export function nameCounter(input, counter) {
  const max = Number(counter.dataset.max) || input.maxLength;
  function update() {
    const count = input.value.length;  // what maxlength counts
    counter.textContent = t(count >= max ? "join.count_full" : "join.count", { count, max });
    counter.classList.toggle("full", count >= max);
  }
  input.addEventListener("input", update);
  onLang(update);
  update();
  return update;
}
