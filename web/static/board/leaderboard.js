/* The day's leaderboard, in place of the ring while the table waits between games (the
   lobby, and once a game's last round has been played) and someone has finished a game
   that day: the top players since the day began (GET /api/v1/stats?since=<view.day_start>), the best single game, and titles
   drawn from the same figures.

   Computer players fill empty seats at a booth and play every game, so they are left
   out: the board ranks people. Names are data: only text nodes, never markup. */

import { $, el, setText } from "../common/dom.js";
import { api } from "../common/api.js";
import { currentLang, t } from "../common/i18n.js";
import { state } from "./state.js";

const SHOWN = 8;  // rows: readable across a room at 1920x1080
const TITLES = [  // [figure, its line]: the player with the most of it (> 0)
  ["rammed", (p) => t("lb.t_rammed", { name: p.name, points: p.rammed })],
  ["for_kali", (p) => t("lb.t_kali", { name: p.name, points: p.for_kali })],
  ["dung", (p) => t("lb.t_dung", { name: p.name, points: p.dung })],
];

let stats = null;     // the last answer, for the key below
let askedFor = null;  // the view it was asked for: day start, game and phase
let asking = null;

/** Is the table between games, so the leaderboard takes the ring's place? */
export function leaderboardShown() {
  const view = state.view;
  return Boolean(view) && !state.playing
    && (view.phase === "lobby" || view.phase === "finished");
}

function keyOf(view) {
  return `${view.day_start}|${view.game_id}|${view.phase}`;
}

async function fetchStats(view) {
  const key = keyOf(view);
  if (askedFor === key || asking === key) return;
  asking = key;
  try {
    const since = Number(view.day_start) || 0;
    const answer = await api("GET", `/stats?since=${encodeURIComponent(since)}`);
    if (asking !== key) return;
    stats = answer;
    askedFor = key;
  } catch (e) {
    // keep what was shown; the next view asks again
  } finally {
    if (asking === key) asking = null;
  }
  renderLeaderboard();
}

const decimal = () => new Intl.NumberFormat(currentLang(),
  { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** People only, in the table's order (wins, then best); places shared by equals. */
export function ranked(players) {
  const people = players.filter((p) => !p.bot);
  return people.map((p) => ({
    ...p,
    place: 1 + people.filter((o) => o.wins > p.wins
      || (o.wins === p.wins && o.best < p.best)).length,
  }));
}

function most(people, figure) {
  let found = null;
  for (const p of people) {
    if (p[figure] > 0 && (!found || p[figure] > found[figure])) found = p;
  }
  return found;
}

function row(p) {
  return el("tr", { class: p.place === 1 ? "lb-first" : "" },
    el("td", { class: "lb-place" }, String(p.place)),
    el("th", { class: "lb-name", scope: "row" }, p.name),
    el("td", {}, String(p.wins)),
    el("td", {}, String(p.games)),
    el("td", {}, String(p.best)),
    el("td", {}, decimal().format(p.mean)));
}

function drawTable(people) {
  const table = $("lb-table");
  table.textContent = "";
  const head = el("tr", {}, el("th", { scope: "col", class: "lb-place" }, "#"),
    el("th", { scope: "col", class: "lb-name" }, t("lb.player")),
    el("th", { scope: "col" }, t("lb.wins")),
    el("th", { scope: "col" }, t("lb.games")),
    el("th", { scope: "col" }, t("lb.best")),
    el("th", { scope: "col" }, t("lb.mean")));
  table.appendChild(el("thead", {}, head));
  table.appendChild(el("tbody", {}, people.slice(0, SHOWN).map(row)));
}

function drawTitles(people) {
  const list = $("lb-titles");
  list.textContent = "";
  let best = null;
  for (const p of people) if (!best || p.best < best.best) best = p;
  if (best) {
    list.appendChild(el("li", { class: "lb-title", dataset: { title: "best" } },
      t("lb.best_game", { name: best.name, points: best.best })));
  }
  for (const [figure, line] of TITLES) {
    const p = most(people, figure);
    if (!p) continue;
    list.appendChild(el("li", { class: "lb-title", dataset: { title: figure } }, line(p)));
  }
}

/** Between games, once someone has finished a game today, the leaderboard takes the
    ring's place; before that (a new day) the empty ring stays. */
export function renderLeaderboard() {
  const view = state.view;
  const between = leaderboardShown();
  if (between) fetchStats(view);
  const people = between && stats && askedFor === keyOf(view) ? ranked(stats.players || [])
    : [];
  const show = people.length > 0;
  $("leaderboard").hidden = !show;
  $("ring").classList.toggle("behind", show);
  if (!show) return;
  setText($("lb-sub"), t("lb.games_today", { games: stats.games }));
  drawTable(people);
  drawTitles(people);
}
