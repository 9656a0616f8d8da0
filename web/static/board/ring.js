/* The ring on the board: the spaces and heaps, every figure, Kali and Mambo, the card
   badges of the round being played, the words in the middle, and figures sliding. */

import { $, svg } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { colourOf, initials } from "../common/names.js";
import { forward, ringPoint, trackLength } from "../common/ring.js";
import { pause } from "./pacing.js";
import { state } from "./state.js";

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

const length = () => trackLength(state.view);
const point = (space, radius) => ringPoint(space, length(), CX, CY, radius);
const spaceRadius = () => Math.max(4, Math.min(34, (Math.PI * R) / length() * 0.8));
const at = ([x, y]) => `translate(${x.toFixed(1)} ${y.toFixed(1)})`;

/** Draw the whole ring as `state` has it now. */
export function drawRing() {
  const ring = $("ring");
  const view = state.view;
  const shown = state.shown;
  const title = ring.querySelector("title");
  ring.textContent = "";
  ring.appendChild(title);
  figureNodes.clear();
  if (!view) return;
  const L = length();
  const rs = spaceRadius();
  const heaps = new Set(shown ? shown.dung : []);
  const spaces = svg("g", { class: "spaces" });
  for (let i = 0; i < L; i += 1) {
    const [x, y] = point(i, R);
    const heap = heaps.has(i);
    if (heap) {
      spaces.appendChild(svg("circle", { cx: x, cy: y, r: rs + 7,
        class: `heap${state.flashHeap === i ? " flash" : ""}`, "data-heap": i }));
    }
    spaces.appendChild(svg("circle", { cx: x, cy: y, r: rs,
      class: heap ? "space dung-space" : "space" }));
    if (heap) {
      spaces.appendChild(svg("path", { class: "pile", d: PILE,
        transform: `${at([x, y])} scale(${(rs / 30).toFixed(3)})` }));
    }
    if (L <= 64 || i % 5 === 0) {
      const [nx, ny] = point(i, R - rs - 24);
      spaces.appendChild(svg("text", { x: nx, y: ny, class: "space-no" }, String(i)));
    }
  }
  ring.appendChild(spaces);
  drawCentre(ring);
  if (!shown) return;
  const figures = svg("g", { class: "figures" });
  if (shown.rhino !== null && shown.rhino !== undefined) {
    figures.appendChild(figure(MAMBO, "mambo", "M", shown.rhino, t("figure.mambo")));
  }
  for (const [name, space] of shown.positions) {
    if (name === "Kali") {
      figures.appendChild(figure(figureKey(name), "kali", "K", space, t("figure.kali")));
    } else {
      figures.appendChild(figure(figureKey(name), `c-${colourOf(view, name)}`,
        initials(name), space, name));
    }
  }
  ring.appendChild(figures);
  if (state.cards) drawBadges(ring);
}

function figure(key, cls, label, space, name) {
  const rs = spaceRadius();
  const group = svg("g", {
    class: `fig ${cls}${state.hit === key ? " hit" : ""}`,
    transform: at(point(space, R)),
    "data-figure": key,
    "data-space": space,
  }, svg("title", {}, name),
  svg("circle", { r: rs * 0.95, style: cls.startsWith("c-") ? "fill: var(--c)" : "" }),
  svg("text", { "font-size": Math.max(8, rs * 0.72).toFixed(0) }, label));
  figureNodes.set(key, group);
  return group;
}

function drawBadges(ring) {
  const group = svg("g", { class: "badges" });
  const rs = spaceRadius();
  const entries = Object.entries(state.cards.cards || {});
  entries.push(["Kali", state.cards.kali]);
  for (const [name, card] of entries) {
    const space = state.shown.positions.get(name);
    if (space === undefined) continue;
    const kali = name === "Kali";
    group.appendChild(svg("g", { class: `fig ${kali ? "kali" : `c-${colourOf(state.view, name)}`}`,
      transform: at(point(space, R + rs + 30)) },
    svg("rect", { x: -16, y: -20, width: 32, height: 40, rx: 6,
      style: kali ? "fill: var(--c-kali); stroke: #f2f2f2; stroke-width: 2"
        : "fill: var(--c); stroke: #000; stroke-width: 2" }),
    svg("text", { "font-size": 20 }, String(card))));
  }
  ring.appendChild(group);
}

function drawCentre(ring) {
  const view = state.view;
  let big = "";
  let small = "";
  if (view.phase === "lobby") {
    big = t("phase.lobby");
    small = t("board.waiting", { count: (view.seats || []).length });
  } else if (view.phase === "finished" && !state.playing) {
    big = t("phase.finished");
    small = t((view.winners || []).length === 1 ? "board.winner" : "board.winners",
      { names: (view.winners || []).join(", ") });
  } else {
    const round = state.playing && state.cards ? state.cards.round : view.round;
    big = t("phase.picking", { round });
    if (!state.playing && view.phase === "picking") {
      const seats = view.seats || [];
      small = t("board.picking", { done: seats.filter((s) => s.picked).length,
        total: seats.length });
    }
  }
  ring.appendChild(svg("text", { x: CX, y: CY - 10, class: "centre-round",
    "font-size": big.length > 16 ? 34 : 44 }, big));
  ring.appendChild(svg("text", { x: CX, y: CY + 34, class: "centre-sub" }, small));
  if (view.phase !== "lobby") {
    ring.appendChild(svg("text", { x: CX, y: CY + 120, class: "centre-legend" },
      t("board.legend")));
  }
}

/** Slide a figure forward round the ring from one space to another. */
export function slide(key, from, to) {
  return new Promise((resolve) => {
    const node = figureNodes.get(key);
    const steps = forward(from, to, length());
    if (!node || steps === 0) { resolve(); return; }
    const duration = Math.min(1400, Math.max(120, steps * 110)) * (pause() / 900);
    const start = performance.now();
    function frame(now) {
      const f = Math.min(1, (now - start) / duration);
      const eased = f < 0.5 ? 2 * f * f : 1 - ((-2 * f + 2) ** 2) / 2;
      node.setAttribute("transform", at(point(from + steps * eased, R)));
      if (f < 1) requestAnimationFrame(frame);
      else resolve();
    }
    requestAnimationFrame(frame);
  });
}
