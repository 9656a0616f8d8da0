/* The board page for a TV: the ring of spaces with every figure, Kali, Mambo and
   the heaps; each resolved round's events played one after another with a line of
   narration; the join QR code, the score table, and at the end the winners and a
   chart of minus points over the rounds.

   This file steps through the events; board/ holds what draws each part. */

import { onLang, t } from "./common/i18n.js";
import { live } from "./common/live.js";
import { startPage } from "./common/page.js";
import { renderChart } from "./board/chart.js";
import { loadPin, renderLobby } from "./board/lobby.js";
import { narrate, say } from "./board/narration.js";
import { gate, lastOfPenaltyRun, presses, stepping } from "./board/pacing.js";
import { MAMBO, drawRing, figureKey, slide } from "./board/ring.js";
import { renderScores } from "./board/scores.js";
import { snapshot, state } from "./board/state.js";
import { startStrip } from "./board/strip.js";

async function play() {
  if (state.playing) return;
  state.playing = true;
  while (state.queue.length) {
    const item = state.queue.shift();
    if (item.kind === "round") {
      state.cards = item.entry;
      continue;
    }
    const { ev, events, index } = item;
    const shown = state.shown;
    const text = narrate(ev, events, index);
    if (ev.type === "move") {
      say(text);
      drawRing();
      await slide(figureKey(ev.figure), ev.from_space, ev.to_space);
      shown.positions.set(ev.figure, ev.to_space);
    } else if (ev.type === "rhino_run") {
      say(text);
      drawRing();
      await slide(MAMBO, ev.from_space, ev.to_space);
      shown.rhino = ev.to_space;
      state.hit = figureKey(ev.rammed);
    } else if (ev.type === "dung") {
      say(text);
      state.flashHeap = ev.space;
      state.hit = figureKey(ev.figure);
    } else if (ev.type === "penalty") {
      shown.minus.set(ev.player, ev.total);
      renderScores();
      if (stepping() && lastOfPenaltyRun(events, index)) await gate();
      continue;
    } else if (ev.type === "round_end") {
      shown.rounds = item.roundsAfter;
      state.cards = null;
      say(text);
    } else {
      say(text);
    }
    drawRing();
    renderSide();
    await gate();
    state.hit = null;
    state.flashHeap = null;
  }
  state.playing = false;
  state.cards = null;
  if (state.view) state.shown = snapshot(state.view);
  render();
}

function onView(view) {
  const previous = state.view;
  state.view = view;
  const history = view.history || [];
  const fresh = !previous || !state.shown || view.game_id !== state.gameId
    || history.length < state.queuedRounds;
  state.gameId = view.game_id;
  if (fresh) {
    // first view, a new game or an undo: show the state as it is, no replay
    state.queue = [];
    state.queuedRounds = history.length;
    state.shown = snapshot(view);
    state.pressBase = presses();
    if (!state.playing) render();
    return;
  }
  if (!state.playing && !state.queue.length) state.pressBase = presses();
  for (let r = state.queuedRounds; r < history.length; r += 1) {
    const entry = history[r];
    state.queue.push({ kind: "round", entry });
    (entry.events || []).forEach((ev, index) => {
      state.queue.push({ ev, events: entry.events, index, roundsAfter: r + 1 });
    });
  }
  state.queuedRounds = history.length;
  if (state.queue.length) play();
  else if (!state.playing) {
    state.shown = snapshot(view);
    render();
  } else {
    renderSide();
  }
}

/** Everything beside the ring; safe to call while a round is being played. */
function renderSide() {
  renderLobby();
  renderScores();
  renderChart();
}

function render() {
  const view = state.view;
  if (!view) return;
  renderSide();
  if (!state.playing) {
    if (view.phase === "lobby") say(t("board.ready"));
    else if (view.phase === "finished") {
      say(t("ev.game_over", { names: (view.winners || []).join(", ") }));
    }
  }
  drawRing();
}

startPage();
onLang(() => render());
loadPin();
if (new URLSearchParams(window.location.search).get("leds") === "1") startStrip();
live(onView);
