/* The picture of the light strip beside the board (board.js says when): the LEDs'
   colours as a person sees them (the API's `seen`: not the gamma-corrected numbers the
   strip is sent, which would draw the yellow figure brown and Mambo dark), polled. */

import { $, el } from "../common/dom.js";
import { api } from "../common/api.js";

async function poll() {
  try {
    const data = await api("GET", "/leds");
    const box = $("leds");
    const leds = data.seen || data.leds || [];
    while (box.children.length > leds.length) box.children[box.children.length - 1].remove();
    while (box.children.length < leds.length) box.appendChild(el("span"));
    leds.forEach((rgb, i) => {
      /** @type {HTMLElement} */ (box.children[i]).style.background = `rgb(${rgb[0]}, ${rgb[1]}, ${rgb[2]})`;
    });
  } catch (e) { /* try again on the next tick */ }
  setTimeout(poll, document.hidden ? 2000 : 250);
}

/** Show the strip and keep it up to date. */
export function startStrip() {
  $("leds-box").hidden = false;
  poll();
}
