/* The set-up already on the board, entered by hand: Mambo's space, the heaps, and the
   explorers' order from Mambo to Kali (reordered with "move up" buttons, in place). */

import { $, el, keyed, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { colourOf } from "../common/names.js";

let order = [];       // names from Mambo to Kali
let orderKey = null;  // the seats the order was made for
let lastView = null;

function createRow(name) {
  const up = el("button", { type: "button", class: "ghost" }, "↑");
  const item = el("li", {}, el("span", { class: "pos" }), el("span", { class: "dot" }),
    el("span", { class: "grow" }, name), up);
  up.addEventListener("click", () => {
    const i = item.index;
    if (i < 1) return;
    [order[i - 1], order[i]] = [order[i], order[i - 1]];
    drawOrder();
    // the row moved up: keep the keyboard on its button, or on the next one at the top
    const below = item.nextElementSibling;
    if (item.index === 0 && below) below.querySelector("button").focus();
  });
  item.up = up;
  return item;
}

function drawOrder() {
  keyed($("setup-order"), order, (name) => name, createRow, (item, name, i) => {
    item.index = i;
    setText(item.firstChild, `${i + 1}.`);
    item.children[1].className = `dot c-${colourOf(lastView, name)}`;
    item.up.setAttribute("aria-label", t("host.up"));
    item.up.disabled = i === 0;
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

/** The set-up as entered, for POST /host/start. */
export function enteredSetup() {
  const rhino = Number($("setup-rhino").value);
  const dungText = $("setup-dung").value.trim();
  const dung = dungText ? dungText.split(/[\s,;]+/).filter(Boolean).map(Number) : [];
  return { rhino, order: order.slice(), dung };
}
