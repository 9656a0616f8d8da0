/* At the end of a game: every player's minus points over the rounds, one line each. */

import { $, svg } from "../common/dom.js";
import { own } from "../common/names.js";
import { state } from "./state.js";

const W = 560;
const H = 300;
const LEFT = 40;
const RIGHT = 110;
const TOP = 16;
const BOTTOM = 34;

export function renderChart() {
  const view = state.view;
  const box = $("chart-box");
  const show = view.phase === "finished" && !state.playing;
  box.hidden = !show;
  if (!show) return;
  const chart = $("chart");
  chart.textContent = "";
  const history = view.history || [];
  let max = 1;
  for (const entry of history) {
    for (const v of Object.values(entry.minus_points || {})) max = Math.max(max, v);
  }
  const step = max <= 10 ? 2 : max <= 25 ? 5 : 10;
  max = Math.ceil(max / step) * step;
  const x = (r) => LEFT + ((W - LEFT - RIGHT) * r) / 12;
  const y = (v) => H - BOTTOM - ((H - TOP - BOTTOM) * v) / max;
  for (let v = 0; v <= max; v += step) {
    chart.appendChild(svg("line", { x1: LEFT, x2: W - RIGHT, y1: y(v), y2: y(v), class: "grid" }));
    chart.appendChild(svg("text", { x: LEFT - 8, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  for (let r = 0; r <= 12; r += 1) {
    chart.appendChild(svg("text", { x: x(r), y: H - BOTTOM + 18, "text-anchor": "middle" },
      String(r)));
  }
  chart.appendChild(svg("line", { x1: LEFT, x2: W - RIGHT, y1: y(0), y2: y(0), class: "axis" }));
  chart.appendChild(svg("line", { x1: LEFT, x2: LEFT, y1: TOP, y2: y(0), class: "axis" }));
  const ends = [];
  for (const seat of view.seats || []) {
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
  // labels at the line ends, nudged apart so they never overlap
  ends.sort((a, b) => a.y - b.y);
  for (let i = 1; i < ends.length; i += 1) {
    if (ends[i].y - ends[i - 1].y < 15) ends[i].y = ends[i - 1].y + 15;
  }
  for (const end of ends) {
    chart.appendChild(svg("text", { x: W - RIGHT + 8, y: end.y + 4, class: `c-${end.colour}`,
      style: "fill: var(--c); font-size: 14px; font-weight: 700" }, end.name));
  }
}
