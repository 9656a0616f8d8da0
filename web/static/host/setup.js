/* The set-up already on the board, entered by hand: Mambo's space, the heaps, and the
   explorers' order from Mambo to Kali (reordered with "move up" buttons, in place).
   The list ends with Kali, who always stands in front, and once Mambo's space is typed
   each row says its figure's space. */

import { $, el, keyed, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { colourOf } from "../common/names.js";
import { trackLength } from "../common/ring.js";

const KALI = "Kali";  // Kali's row (no player may be called Kali: a safe key)

let order = [];       // names from Mambo to Kali
/** @type {string | null} */
let orderKey = null;  // the seats the order was made for
let lastView = null;

function createRow(name) {
  if (name === KALI) {
    const item = el("li", { class: "kali-row" }, el("span", { class: "pos" }),
      el("span", { class: "dot c-kali" }), el("span", { class: "grow" }, t("figure.kali")),
      el("span", { class: "muted where" }), el("span", { class: "spacer" }));
    return item;
  }
  const up = el("button", { type: "button", class: "ghost" }, "↑");
  const item = el("li", {}, el("span", { class: "pos" }), el("span", { class: "dot" }),
    el("span", { class: "grow" }, name), el("span", { class: "muted where" }), up);
  up.addEventListener("click", () => {
    const i = item.index;
    if (i < 1) return;
    [order[i - 1], order[i]] = [order[i], order[i - 1]];
    drawOrder();
    // the row moved to the top, where there is no "move up": the keyboard goes on to
    // the next row's button
    const below = item.nextElementSibling;
    const next = below && below.querySelector("button");
    if (item.index === 0 && next) next.focus();
  });
  item.up = up;
  return item;
}

/** The space of the figure `i` places in front of Mambo, once Mambo's space is typed. */
function spaceText(i) {
  const text = /** @type {HTMLInputElement} */ ($("setup-rhino")).value.trim();
  const rhino = Number(text);
  const L = trackLength(lastView);
  if (!text || !Number.isInteger(rhino) || rhino < 0 || rhino >= L) return "";
  return t("host.space", { space: (rhino + 1 + i) % L });
}

function drawOrder() {
  keyed($("setup-order"), [...order, KALI], (name) => name, createRow, (item, name, i) => {
    item.index = i;
    setText(item.firstChild, `${i + 1}.`);
    const where = spaceText(i);
    if (name === KALI) {
      setText(item.children[2], t("figure.kali"));
      setText(item.children[3], where ? `${where} · ${t("host.kali_last")}` : t("host.kali_last"));
      return;
    }
    setText(item.children[3], where);
    item.children[1].className = `dot c-${colourOf(lastView, name)}`;
    item.up.setAttribute("aria-label", t("host.up"));
    // the first row has nowhere to go (hidden, its place kept: the spaces stay in line)
    item.up.classList.toggle("gone", i === 0);
  });
}

/** Keep the order in step with the seats (a new seat list starts a new order). */
export function renderOrder(view) {
  lastView = view;
  const names = (view.seats || []).map((s) => s.name);
  const key = JSON.stringify(names);
  if (key !== orderKey) {
    order = names.slice();
    orderKey = key;
  }
  drawOrder();
}

/** Mambo's space typed: every row's space follows. */
export function wireOrder() {
  $("setup-rhino").addEventListener("input", () => { if (lastView) drawOrder(); });
}

/** The set-up as entered, for POST /host/start. */
export function enteredSetup() {
  const rhino = Number(/** @type {HTMLInputElement} */ ($("setup-rhino")).value);
  const dungText = /** @type {HTMLInputElement} */ ($("setup-dung")).value.trim();
  const dung = dungText ? dungText.split(/[\s,;]+/).filter(Boolean).map(Number) : [];
  return { rhino, order: order.slice(), dung };
}
