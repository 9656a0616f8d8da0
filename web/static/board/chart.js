/* At the end of a game: every player's minus points over the rounds, one line each.

   The chart takes the height left beside the ring under the ranking, whatever the
   screen: it is drawn in the screen's own pixels (its viewBox is its size on screen),
   so its text keeps the page's size, and the names at the line ends stay inside it
   (nudged apart, the whole column moved up if they would run past the bottom). */

import { $, svg } from "../common/dom.js";
import { own } from "../common/names.js";

/** @typedef {import("../common/api.js").View} View */
/** @typedef {import("./state.js").Board} Board */

const FALLBACK = [560, 300];  // before the chart has a size of its own
let watched = false;

/** Drawn again whenever its place on screen changes size (a new screen, the sheet's
    QR code coming in above it, ...). */
function watch(chart, board) {
  if (watched || typeof ResizeObserver === "undefined") return;
  watched = true;
  let size = "";
  new ResizeObserver(() => {
    const rect = chart.getBoundingClientRect();
    const now = `${Math.round(rect.width)}x${Math.round(rect.height)}`;
    if (now === size || !rect.width) return;
    size = now;
    if (board.view) renderChart(board);
  }).observe(chart);
}

/** @param {Board} board */
export function renderChart(board) {
  const view = /** @type {View} */ (board.view);  // drawn once the first view came
  const box = $("chart-box");
  const show = view.phase === "finished" && !board.playing;
  box.hidden = !show;
  if (!show) return;
  const chart = $("chart");
  watch(chart, board);
  chart.textContent = "";
  const rect = chart.getBoundingClientRect();
  const [W, H] = rect.width > 1 && rect.height > 1
    ? [rect.width, rect.height] : FALLBACK;
  chart.setAttribute("viewBox", `0 0 ${W.toFixed(1)} ${H.toFixed(1)}`);
  const base = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  const small = Math.round(0.8 * base);   // the axes' numbers
  const label = Math.round(0.9 * base);   // the names at the line ends
  const history = view.history || [];
  const seats = view.seats || [];

  // the names' column: as wide as the longest name, at most a third of the chart
  const probe = svg("text", { style: `font-size: ${label}px; font-weight: 700` });
  chart.appendChild(probe);
  let widest = 0;
  for (const seat of seats) {
    probe.textContent = seat.name;
    widest = Math.max(widest, probe.getComputedTextLength());
  }
  probe.remove();
  const LEFT = 2.6 * small;
  const RIGHT = Math.min(W / 3, widest + 14);
  const TOP = 0.8 * label;
  const BOTTOM = 1.9 * small;

  let max = 1;
  for (const entry of history) {
    for (const v of Object.values(entry.minus_points || {})) max = Math.max(max, v);
  }
  const step = max <= 10 ? 2 : max <= 25 ? 5 : 10;
  max = Math.ceil(max / step) * step;
  const x = (r) => LEFT + ((W - LEFT - RIGHT) * r) / 12;
  const y = (v) => H - BOTTOM - ((H - TOP - BOTTOM) * v) / max;
  const text = (attrs, words) => svg("text", { style: `font-size: ${small}px`, ...attrs }, words);
  for (let v = 0; v <= max; v += step) {
    chart.appendChild(svg("line", { x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v), class: "grid" }));
    chart.appendChild(text({ x: LEFT - 6, y: y(v), "text-anchor": "end",
      "dominant-baseline": "central" }, String(v)));
  }
  for (let r = 0; r <= 12; r += 1) {
    chart.appendChild(text({ x: x(r), y: H - BOTTOM + 0.6 * small, "text-anchor": "middle",
      "dominant-baseline": "hanging" }, String(r)));
  }
  chart.appendChild(svg("line", { x1: LEFT, x2: W - RIGHT, y1: y(0), y2: y(0), class: "axis" }));
  chart.appendChild(svg("line", { x1: LEFT, x2: LEFT, y1: TOP, y2: y(0), class: "axis" }));
  const ends = [];
  for (const seat of seats) {
    const pts = [[x(0), y(0)]];
    history.forEach((entry, i) => {
      pts.push([x(i + 1), y(own(entry.minus_points, seat.name, 0))]);
    });
    chart.appendChild(svg("polyline", {
      class: `line c-${seat.colour}`, style: "stroke: var(--c)",
      points: pts.map((p) => p.map((n) => n.toFixed(1)).join(",")).join(" "),
    }, svg("title", {}, seat.name)));
    const last = pts[pts.length - 1];
    ends.push({ y: last[1], name: seat.name, colour: seat.colour });
  }
  // labels at the line ends, nudged apart so they never overlap, and kept inside
  const gap = 1.1 * label;
  ends.sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i += 1) {
    if (ends[i].y - ends[i - 1].y < gap) ends[i].y = ends[i - 1].y + gap;
  }
  const lowest = H - label / 2 - 2;
  const over = ends.length ? ends[ends.length - 1].y - lowest : 0;
  for (const end of ends) {
    if (over > 0) end.y -= over;
    end.y = Math.max(end.y, label / 2 + 2);
  }
  for (const end of ends) {
    const node = svg("text", { x: W - RIGHT + 8, y: end.y, class: `c-${end.colour}`,
      "dominant-baseline": "central",
      style: `fill: var(--c); font-size: ${label}px; font-weight: 700` }, end.name);
    chart.appendChild(node);
    if (node.getComputedTextLength() > RIGHT - 10) {  // a long name on a narrow chart
      node.setAttribute("textLength", String(RIGHT - 10));
      node.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
  }
}
