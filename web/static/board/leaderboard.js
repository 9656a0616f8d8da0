/* The day's leaderboard, in place of the ring while the table waits between games (the
   lobby, and once a game's last round has been played) and someone has finished a game
   that day: the top players since the day began (GET /api/v1/stats?since=<view.day_start>), the best single game, and titles
   drawn from the same figures.

   At game over the final ring comes first, beside the ranking, so the table can check
   the last positions against the real board; then the leaderboard and the ring take
   turns (TURN_MS each; ?turn=<ms> in the address for a test). In the lobby the
   leaderboard stays.

   Computer players fill empty seats at a booth and play every game, so the table ranks
   people; what the computers won is said in a line of its own, and with no win by a
   person yet the Wins column (all zeros) is left out: people are ranked by their best
   game. Names are data: only text nodes, never markup. */

import { $, el, setText } from "../common/dom.js";
import { api } from "../common/api.js";
import { currentLang, t } from "../common/i18n.js";
import { say } from "./narration.js";
import { drawRing } from "./ring.js";

/** @typedef {import("../common/api.js").View} View */
/** @typedef {import("./state.js").Board} Board */

const SHOWN = 8;  // rows: readable across a room at 1920x1080
/** @type {[string, (p: any) => string][]} */
const TITLES = [  // [figure, its line]: the player with the most of it (> 0)
  ["rammed", (p) => t("lb.t_rammed", { name: p.name, points: p.rammed })],
  ["for_kali", (p) => t("lb.t_kali", { name: p.name, points: p.for_kali })],
  ["dung", (p) => t("lb.t_dung", { name: p.name, points: p.dung })],
];

const TURN_MS = Number(new URLSearchParams(window.location.search).get("turn")) || 30000;

/** @type {any} */
let stats = null;     // the last answer, for the key below
/** @type {string | null} */
let askedFor = null;  // the view it was asked for: day start, game and phase
/** @type {string | null} */
let asking = null;

/** Is the table between games, so the leaderboard takes the ring's place?
    @param {Board} board */
export function leaderboardShown(board) {
  const view = board.view;
  return view !== null && !board.playing
    && (view.phase === "lobby" || view.phase === "finished");
}

let overGame = null;  // the finished game whose turns are counted, and since when
let overSince = 0;
/** @type {number | undefined} */
let turnTimer;

/** At game over: the ring's turn first, then the leaderboard's, and so on (true while
    it is the leaderboard's). In the lobby it always is.
    @param {Board} board */
function leaderboardsTurn(board, view) {
  clearTimeout(turnTimer);
  if (view.phase !== "finished") {
    overGame = null;
    return true;
  }
  if (overGame !== view.game_id) {
    overGame = view.game_id;
    overSince = performance.now();
  }
  const elapsed = performance.now() - overSince;
  turnTimer = setTimeout(() => renderLeaderboard(board), TURN_MS - (elapsed % TURN_MS) + 10);
  return Math.floor(elapsed / TURN_MS) % 2 === 1;
}

function keyOf(view) {
  return `${view.day_start}|${view.game_id}|${view.phase}`;
}

/** @param {Board} board */
async function fetchStats(board, view) {
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
  renderLeaderboard(board);
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

function row(p, wins) {
  return el("tr", { class: p.place === 1 ? "lb-first" : "" },
    el("td", { class: "lb-place" }, String(p.place)),
    el("th", { class: "lb-name", scope: "row" }, p.name),
    wins ? el("td", {}, String(p.wins)) : null,
    el("td", {}, String(p.games)),
    el("td", {}, String(p.best)),
    el("td", {}, decimal().format(p.mean)));
}

function drawRanking(people) {
  const ranking = $("lb-table");
  ranking.textContent = "";
  // the Wins column only once a person has won: a column of zeros beside "Winner: Zuri"
  // would rank nobody
  const wins = people.some((p) => p.wins > 0);
  const head = el("tr", {}, el("th", { scope: "col", class: "lb-place" }, "#"),
    el("th", { scope: "col", class: "lb-name" }, t("lb.player")),
    wins ? el("th", { scope: "col" }, t("lb.wins")) : null,
    el("th", { scope: "col" }, t("lb.games")),
    el("th", { scope: "col" }, t("lb.best")),
    el("th", { scope: "col" }, t("lb.mean")));
  ranking.appendChild(el("thead", {}, head));
  ranking.appendChild(el("tbody", {}, people.slice(0, SHOWN).map((p) => row(p, wins))));
}

/** What the computer players won today, and how people are ranked without a win. */
function drawBots(players, people) {
  const won = players.filter((p) => p.bot && p.wins > 0)
    .sort((a, b) => b.wins - a.wins);
  const lines = [];
  if (won.length) {
    lines.push(t("lb.bots_won", { names: won.map((p) => `${p.name} ${p.wins}`).join(", ") }));
  }
  if (!people.some((p) => p.wins > 0)) lines.push(t("lb.by_best"));
  setText($("lb-bots"), lines.join(" "));
  $("lb-bots").hidden = !lines.length;
}

function drawTitles(people) {
  const list = $("lb-titles");
  list.textContent = "";
  /** @type {any} */
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
/** @param {Board} board */
export function renderLeaderboard(board) {
  const view = /** @type {View} */ (board.view);  // drawn once the first view came
  const between = leaderboardShown(board);
  if (between) fetchStats(board, view);
  const people = between && stats && askedFor === keyOf(view) ? ranked(stats.players || [])
    : [];
  const show = people.length > 0 && leaderboardsTurn(board, view);
  const ring = $("ring");
  const back = !show && ring.classList.contains("behind");
  const turned = show === $("leaderboard").hidden;
  $("leaderboard").hidden = !show;
  ring.classList.toggle("behind", show);
  if (back && !board.playing) drawRing(board);  // drawn for its size on screen, now it has one
  // the caption's box is lower beside the leaderboard: its words fitted again
  if (turned) say($("narration").textContent);
  if (!show) return;
  setText($("lb-sub"), t("lb.games_today", { games: stats.games }));
  drawBots(stats.players || [], people);
  drawRanking(people);
  drawTitles(people);
  fit();
}

/** Nothing cut on a smaller screen: the last rows go (down to three), then the last
    titles, until the leaderboard fits its place. */
function fit() {
  const box = $("leaderboard");
  const over = () => box.scrollHeight > box.clientHeight + 1;
  const rows = /** @type {HTMLTableElement} */ ($("lb-table")).tBodies[0];
  while (over() && rows && rows.rows.length > 3) rows.rows[rows.rows.length - 1].remove();
  const titles = $("lb-titles");
  while (over() && titles.lastElementChild) titles.lastElementChild.remove();
}
