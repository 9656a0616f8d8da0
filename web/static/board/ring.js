/* The ring on the board: the spaces and heaps, every figure, Kali and Mambo, the card
   badges of the round being played, the words in the middle, and figures sliding. */

import { $, svg } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { colourOf, initials } from "../common/names.js";
import { forward, ringPoint, trackLength } from "../common/ring.js";
import { pause } from "./pacing.js";

/** @typedef {import("../common/api.js").View} View */
/** @typedef {import("./state.js").Board} Board */

const CX = 500;
const CY = 500;
const R = 400;
const PILE = "M -17 11 Q -18 1 -9 1 Q -12 -8 -3 -10 Q -2 -18 5 -15 Q 11 -9 8 -1"
  + " Q 18 0 17 11 Z";
const figureNodes = new Map();  // figure key -> its <g>, for sliding

/** The key of a figure on the ring: Kali, Mambo, or a player (never clashing with them,
    whatever the player is called). */
export const figureKey = (name) => (name === "Kali" ? "kali" : `player:${name}`);
export const MAMBO = "mambo";

/** The point of `space` on a ring of `length` spaces, at `radius` from the middle. */
const point = (space, length, radius) => ringPoint(space, length, CX, CY, radius);
const spaceRadius = (length) => Math.max(4, Math.min(34, (Math.PI * R) / length * 0.8));
const at = ([x, y]) => `translate(${x.toFixed(1)} ${y.toFixed(1)})`;

/* Readable across a room: no text on the ring under 2.5% of the screen's height (a
   little more here, for rounding).  The ring is drawn in a 1000-unit box scaled to fit
   its place, so the size in units follows the ring's size on screen. */
const READABLE = 0.027;
const TEXT_MIN = 22;  // units: never smaller, however big the ring is on screen

/** The smallest readable text size, in the ring's units (at least TEXT_MIN). */
function textUnits() {
  const box = $("ring").getBoundingClientRect();
  const side = Math.min(box.width, box.height);
  if (!side) return 36;
  return Math.max(TEXT_MIN, (READABLE * window.innerHeight * 1000) / side);
}

let u = 36;  // the readable size for this drawing (textUnits)

/** A line of text in the middle of the ring, squeezed if wider than `width` units. */
function centreText(ring, y, cls, size, text, width) {
  const node = svg("text", { x: CX, y, class: cls, "font-size": size.toFixed(1) }, text);
  ring.appendChild(node);
  if (text && node.getComputedTextLength() > width) {
    node.setAttribute("textLength", String(width));
    node.setAttribute("lengthAdjust", "spacingAndGlyphs");
  }
  return node;
}

/** Draw the whole ring as `board` has it now.  @param {Board} board */
export function drawRing(board) {
  const ring = $("ring");
  const view = board.view;
  const shown = board.shown;
  const title = ring.querySelector("title");
  ring.textContent = "";
  if (title) ring.appendChild(title);
  figureNodes.clear();
  if (!view) return;
  u = textUnits();
  const L = trackLength(view);
  const rs = spaceRadius(L);
  const heaps = new Set(shown ? shown.dung : []);
  const spaces = svg("g", { class: "spaces" });
  for (let i = 0; i < L; i += 1) {
    const [x, y] = point(i, L, R);
    const heap = heaps.has(i);
    if (heap) {
      spaces.appendChild(svg("circle", { cx: x, cy: y, r: rs + 7,
        class: `heap${board.flashHeap === i ? " flash" : ""}`, "data-heap": i }));
    }
    spaces.appendChild(svg("circle", { cx: x, cy: y, r: rs,
      class: heap ? "space dung-space" : "space" }));
    if (heap) {
      spaces.appendChild(svg("path", { class: "pile", d: PILE,
        transform: `${at([x, y])} scale(${(rs / 30).toFixed(3)})` }));
    }
    if (L <= 64 || i % 5 === 0) {
      const [nx, ny] = point(i, L, R - rs - 0.75 * u);
      spaces.appendChild(svg("text", { x: nx, y: ny, class: "space-no",
        "font-size": u.toFixed(1) }, String(i)));
    }
  }
  ring.appendChild(spaces);
  drawCentre(board, ring, L);
  if (!shown) return;
  const figures = svg("g", { class: "figures" });
  if (shown.rhino !== null && shown.rhino !== undefined) {
    figures.appendChild(figure(board, L, MAMBO, "mambo", "M", shown.rhino, t("figure.mambo")));
  }
  for (const [name, space] of shown.positions) {
    if (name === "Kali") {
      figures.appendChild(figure(board, L, figureKey(name), "kali", "K", space, t("figure.kali")));
    } else {
      figures.appendChild(figure(board, L, figureKey(name), `c-${colourOf(view, name)}`,
        initials(name), space, name));
    }
  }
  ring.appendChild(figures);
  if (board.cards) drawBadges(board, ring, L);
}

/** @param {Board} board */
function figure(board, length, key, cls, label, space, name) {
  const rs = Math.max(spaceRadius(length), 1.05 * u);  // big enough for two readable letters
  const group = svg("g", {
    class: `fig ${cls}${board.hit === key ? " hit" : ""}`,
    transform: at(point(space, length, R)),
    "data-figure": key,
    "data-space": space,
  }, svg("title", {}, name),
  svg("circle", { r: rs * 0.95, style: cls.startsWith("c-") ? "fill: var(--c)" : "" }),
  svg("text", { "font-size": u.toFixed(1) }, label));
  figureNodes.set(key, group);
  return group;
}

/** The round's cards beside the figures (drawRing draws them only with cards and a
    shown state).
    @param {Board} board */
function drawBadges(board, ring, length) {
  const cards = /** @type {NonNullable<Board["cards"]>} */ (board.cards);
  const shown = /** @type {import("./state.js").Shown} */ (board.shown);
  const group = svg("g", { class: "badges" });
  const rs = spaceRadius(length);
  const entries = Object.entries(cards.cards || {});
  entries.push(["Kali", cards.kali]);
  for (const [name, card] of entries) {
    const space = shown.positions.get(name);
    if (space === undefined) continue;
    const kali = name === "Kali";
    const w = 1.5 * u;  // "11" in bold at the readable size
    const h = 1.35 * u;
    group.appendChild(svg("g", { class: `fig ${kali ? "kali" : `c-${colourOf(board.view, name)}`}`,
      transform: at(point(space, length, Math.min(R + rs + 0.75 * u + 10, 500 - h / 2))) },
    svg("rect", { x: -w / 2, y: -h / 2, width: w, height: h, rx: 6,
      style: kali ? "fill: var(--c-kali); stroke: #f2f2f2; stroke-width: 2"
        : "fill: var(--c); stroke: #000; stroke-width: 2" }),
    svg("text", { "font-size": u.toFixed(1) }, String(card))));
  }
  ring.appendChild(group);
}

/** The words in the ring's middle (the round, what to do, the legend), in a group of
    their own so that they can be drawn again alone.
    @param {Board} board */
function drawCentre(board, ring, length) {
  const view = /** @type {View} */ (board.view);  // drawRing drew nothing without one
  const centre = svg("g", { class: "centre" });
  ring.appendChild(centre);
  let big = "";
  let small = "";
  if (view.phase === "lobby") {
    big = t("phase.lobby");
    small = t("board.waiting", { count: (view.seats || []).length });
  } else if (view.phase === "finished" && !board.playing) {
    big = t("phase.finished");
    small = t((view.winners || []).length === 1 ? "board.winner" : "board.winners",
      { names: (view.winners || []).join(", ") });
  } else {
    const round = board.playing && board.round ? board.round : view.round;
    big = t("phase.picking", { round });
    // how many have picked is said once, on the phase line beside the ring
    if (!board.playing && view.phase === "picking") small = t("board.pick_now");
  }
  // the space numbers stand at R - rs - 0.75u: the middle has the rest, less a margin
  const inner = R - spaceRadius(length) - 1.5 * u;
  const width = (y) => 2 * Math.sqrt(Math.max(0, inner * inner - (y - CY) ** 2)) - 20;
  const top = CY - 0.3 * u;
  centreText(centre, top, "centre-round", Math.max(44, 1.3 * u), big, width(top));
  centreText(centre, top + 1.3 * u, "centre-sub", u, small, width(top + 1.3 * u));
  if (view.phase !== "lobby") {
    // the legend, one key a line ("M: Mambo the rhino", "K: Kali")
    t("board.legend").split(" · ").forEach((line, i) => {
      const y = CY + 2.6 * u + i * 1.15 * u;
      centreText(centre, y, "centre-legend", u, line, width(y + 0.3 * u));
    });
  }
}

/** Only the ring's middle again (the round it names), leaving the figures alone: one
    may be sliding.  @param {Board} board */
export function drawRingCentre(board) {
  const ring = $("ring");
  const old = ring.querySelector("g.centre");
  if (!old || !board.view) return;
  const figures = ring.querySelector("g.figures");
  old.remove();
  drawCentre(board, ring, trackLength(board.view));
  // back where it was: under the figures
  if (figures) ring.insertBefore(/** @type {Element} */ (ring.querySelector("g.centre")), figures);
}

/** Slide a figure forward round the ring from one space to another (of `view`'s track,
    at its pace); it lands at once when `cut()` says a newer step has come.
    @param {string} key  @param {number} from  @param {number} to
    @param {View} view  @param {() => boolean} [cut] */
export function slide(key, from, to, view, cut = () => false) {
  return new Promise(/** @param {(value?: void) => void} resolve */ (resolve) => {
    const node = figureNodes.get(key);
    const L = trackLength(view);
    const steps = forward(from, to, L);
    if (!node || steps === 0) { resolve(); return; }
    // about a tenth of a second a space, never more than 40 % of the step: the figure
    // lands early and the rest of the step is for moving the real one
    const duration = Math.min(0.4 * pause(view), Math.max(120, steps * 110));
    const start = performance.now();
    function frame(now) {
      const f = cut() ? 1 : Math.min(1, (now - start) / duration);  // a newer step: land
      const eased = f < 0.5 ? 2 * f * f : 1 - ((-2 * f + 2) ** 2) / 2;
      node.setAttribute("transform", at(point(from + steps * eased, L, R)));
      if (f < 1) requestAnimationFrame(frame);
      else resolve();
    }
    requestAnimationFrame(frame);
  });
}
