/* The host page's links to printable score sheets: the game at the table (once started)
   and the last finished games of the archive (GET /api/v1/games, asked again when the
   table moves on to another game or one finishes). */

import { api } from "../common/api.js";
import { $, el, keyed, setText } from "../common/dom.js";
import { t } from "../common/i18n.js";
import { when } from "../common/when.js";
import { replayGame } from "./booth.js";

const LAST = 5;  // finished games listed
let games = [];
let askedFor = null;

const sheetPath = (id) => `/games/${encodeURIComponent(id)}/sheet`;

async function load(key) {
  try {
    const answer = await api("GET", "/games");
    games = (answer && answer.games) || [];
    askedFor = key;
  } catch (e) {
    return;  // the next view asks again
  }
  drawList();
}

function drawList() {
  const finished = games.filter((g) => g.finished).slice(-LAST).reverse();
  $("archive-none").hidden = finished.length > 0;
  keyed($("archive-list"), finished, (g) => String(g.id),
    (g) => el("li", {}, el("a", {}), " ",
      el("button", { type: "button", class: "secondary replay-game", dataset: { game: g.id },
        onclick: (event) => replayGame(event.currentTarget, g.id) })),
    (node, g) => {
      const link = node.firstChild;
      link.setAttribute("href", sheetPath(g.id));
      link.textContent = t("host.archive_game", { game: g.id, time: when(g.finished),
        players: (g.players || []).join(", ") });
      const button = node.querySelector("button");
      setText(button, t("host.replay"));
      button.setAttribute("aria-label", t("host.replay_game", { game: g.id }));
    });
}

export function renderArchive(view) {
  const started = view.phase !== "lobby";
  const current = $("sheet");
  current.hidden = !started;
  if (started) current.setAttribute("href", sheetPath(view.game_id));
  const key = `${view.game_id}|${view.phase}`;
  if (askedFor !== key) load(key);
  else drawList();
}
