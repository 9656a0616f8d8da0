/* A message line at the bottom for a few seconds (role=status: screen readers say it). */

import { $ } from "./dom.js";

/** @type {number | undefined} */
let timer;

/** Show `text` in #toast; kind "error" gives it a red edge. */
export function toast(text, kind) {
  const box = $("toast");
  if (!box) return;
  box.textContent = text;
  box.className = `toast show ${kind || ""}`;
  clearTimeout(timer);
  timer = setTimeout(() => { box.className = "toast"; }, 5000);
}

/** Take the message away at once (it no longer holds, e.g. after a good login). */
export function clearToast() {
  const box = $("toast");
  if (!box) return;
  clearTimeout(timer);
  box.className = "toast";
  box.textContent = "";
}
