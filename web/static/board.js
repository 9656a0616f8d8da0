/* The board page for a TV: the ring of spaces with every figure, Kali, Mambo and
   the heaps; the round being played back, one step at a time as the table's cursor
   moves (the table decides the steps and their pace: this page only animates each step
   it is sent), with a line of narration; the join QR code, the score table, and at
   the end the winners and a chart of minus points over the rounds.

   One moment at a time: a step that comes while another is animated ends that one at
   once (its figures land where it leaves them), so the page is on the table's step
   however fast the host presses "Next"; every part of the page draws the view of the
   step it shows (body[data-moment] names it).  A page (re)loaded mid-playback shows the
   board at the cursor and goes on from there. */

import { api } from "./common/api.js";
import { $ } from "./common/dom.js";
import { onLang, t } from "./common/i18n.js";
import { live } from "./common/live.js";
import { startPage } from "./common/page.js";
import { storageGet } from "./common/storage.js";
import { renderChart } from "./board/chart.js";
import { renderPlacing } from "./common/placing.js";
import { renderLeaderboard } from "./board/leaderboard.js";
import { loadLocal, ownScreen, renderLobby, wireLobby } from "./board/lobby.js";
import { gameOver, narrate, playbackCaption, say } from "./board/narration.js";
import { pause, wait } from "./board/pacing.js";
import { renderReplay, setHost, shownView, wireReplay } from "./board/replay.js";
import { MAMBO, drawRing, drawRingCentre, figureKey, slide } from "./board/ring.js";
import { renderScores } from "./board/scores.js";
import { renderSheetLink } from "./board/sheetlink.js";
import { cue, unlockOnGesture } from "./board/sound.js";
import { newBoard, snapshot } from "./board/state.js";
import { startStrip } from "./board/strip.js";

/** @typedef {import("./common/api.js").View} View */

/** What the board shows now: the page's one, passed to every part that draws it. */
const board = newBoard();

/** A key for the step a view shows: game, round and cursor (for the tests). */
function stepKey(view) {
  const p = view.playback;
  return p ? `${view.game_id}/${p.round}/${p.step}` : `${view.game_id}/-`;
}

/** The moment the whole page shows from now on (the strip's own is the same key). */
function showMoment(view) {
  document.body.dataset.moment = stepKey(view);
}

/* What the table says happened, as the board acts on it (told beside each patch): nothing
   here compares two views. */
const START_AFRESH = new Set(["step_skipped", "round_undone", "lobby_opened",
  "replay_started", "replay_stopped"]);
/** What a playback tells (the table's own, or a replay's: "replay": true). */
const PLAYBACK = new Set(["step_shown", "step_skipped", "playback_ended"]);

/** The table's account of the change, for the board shown: during a replay the
    replay's steps, else the table's own. */
function told(tableView, happened) {
  const replaying = Boolean(tableView.replay);
  return happened.filter((ev) =>
    !PLAYBACK.has(ev.type) || Boolean(ev.replay) === replaying);
}

/** Animate one step's events over the board as it was before the step; at once, without
    waiting, when `cut()` says a newer step has come.
    @param {import("./board/state.js").Queued["step"]} step  @param {View} view
    @param {() => boolean} cut */
async function animate(step, view, cut) {
  const shown = /** @type {import("./board/state.js").Shown} */ (board.shown);
  // the step on the board from now on (a round's end is told over its last step, which
  // stays on the board until the next round's reveal)
  if (step.kind !== "round_end") document.body.dataset.playing = stepKey(view);
  const events = step.events || [];
  // the round so far, up to this step: its reveal says who played the lowest card
  const round = (view.playback && view.playback.shown) || events;
  for (let index = 0; index < events.length; index += 1) {
    const ev = events[index];
    const text = narrate(ev, index, events, round, view);
    if (!cut()) cue(ev, board);  // the booth's sound, as the cursor's step is animated
    if (ev.type === "reveal") board.cards = ev;
    if (ev.type === "move") {
      say(text);
      drawRing(board);
      await slide(figureKey(ev.figure), ev.from_space, ev.to_space, view, cut);
      shown.positions.set(ev.figure, ev.to_space);
    } else if (ev.type === "rhino_run") {
      say(text);
      drawRing(board);
      await slide(MAMBO, ev.from_space, ev.to_space, view, cut);
      shown.rhino = ev.to_space;
      board.hit = figureKey(ev.rammed);
    } else if (ev.type === "dung") {
      say(text);
      board.flashHeap = ev.space;
      board.hit = figureKey(ev.figure);
    } else if (ev.type === "penalty") {
      if (text) say(text);
      shown.minus.set(ev.player, ev.total);
    } else if (ev.type === "round_end") {
      board.cards = null;
      say(text);
    } else if (text) {
      say(text);
    }
    drawRing(board);
    renderScores(board);
  }
  // a short rest before the next step: within the table's time for this one
  await wait(Math.min(600, step.seconds ? step.seconds * 1000 : pause(view)), cut);
  board.hit = null;
  board.flashHeap = null;
}

/** Animate the steps that came, one at a time; a step with another behind it is drawn
    at once (so none ever waits behind another). */
async function play() {
  if (board.playing) return;
  board.playing = true;
  while (board.queue.length) {
    const { step, view } = /** @type {import("./board/state.js").Queued} */ (board.queue.shift());
    const generation = board.generation;
    // a round's end is told only while the table is still there: once the next round
    // has begun (computer players pick at once) the page goes with it
    const ended = () => step.kind === "round_end"
      && stepKey(/** @type {View} */ (board.latest)) !== stepKey(view);
    const cut = () => board.queue.length > 0 || board.generation !== generation || ended();
    if (!cut()) {
      board.view = view;  // every part of the page draws this step's moment
      board.round = step.round;
      showMoment(view);
      renderSide();
      await animate(step, view, cut);
    }
    // With nothing more to animate the board is as the newest view has it: the
    // playback's end (its own view right after the last step), or a skip or an undo
    // that came meanwhile.
    const latest = /** @type {View} */ (board.queue.length ? view : board.latest);
    board.shown = snapshot(latest);
    document.body.dataset.step = stepKey(latest);
  }
  board.playing = false;
  board.round = null;
  board.view = board.latest;
  showMoment(/** @type {View} */ (board.view));
  render();
  renderControls();
}

/* A message is drawn at once; many in a row (a skip's steps, the next round opening and
   the computer players' picks) are drawn once per RENDER_GAP_MS, the last of them
   included, not once each: the page keeps up with the table. */
const RENDER_GAP_MS = 16;
/** @type {ReturnType<typeof setTimeout> | null} */
let renderTimer = null;
let renderAgain = false;

function scheduleRender() {
  if (renderTimer !== null) {  // drawn just now: once more when the gap is over
    renderAgain = true;
    return;
  }
  render();
  renderTimer = setTimeout(function gap() {
    renderTimer = null;
    if (renderAgain) {
      renderAgain = false;
      if (!board.playing) scheduleRender();
    }
  }, RENDER_GAP_MS);
}

/** The board at the cursor as it is, nothing replayed: the first view, a reload
    mid-playback, a skip, an undo, a new game, a replay's start or end. */
function drawAfresh(view) {
  const p = view.playback;
  board.queue = [];
  board.generation += 1;  // what is being animated ends at once
  board.view = view;
  board.shown = snapshot(view);
  showMoment(view);
  // mid-playback the round's cards stay on the ring (its reveal has been shown)
  board.cards = view.phase === "playing" && p
    ? (p.shown || []).find((ev) => ev.type === "reveal") || null : null;
  if (!board.playing) document.body.dataset.step = stepKey(view);
  if (!board.playing) scheduleRender();
}

/** A view from the stream and what its change did (`happened`, told beside it). */
function onView(tableView, whole, happened) {
  const view = shownView(tableView);  // a replay's board, or the table's own
  board.table = tableView;
  board.latest = view;
  if (!board.playing) board.view = view;  // else the step being animated keeps its own
  const shown = (view.playback && view.playback.shown) || [];
  let acted = false;
  for (const ev of whole || !board.shown ? [] : told(tableView, happened)) {
    const round = ev.round || 0;
    if (ev.type === "step_shown") {  // the cursor moved: animate that step
      const events = shown.slice(ev.first, ev.first + ev.count);
      board.queue.push({ step: { kind: ev.kind, events, seconds: ev.seconds, round }, view });
      acted = true;
    } else if (ev.type === "playback_ended" && !ev.skipped && shown.length > ev.first) {
      // the round's closing event, held back for the end, is told now
      const events = shown.slice(ev.first);
      board.queue.push({ step: { kind: "round_end", events, seconds: ev.seconds, round },
        view });
      acted = true;
    } else if (START_AFRESH.has(ev.type)) {
      drawAfresh(view);
      acted = true;
    }
  }
  if (whole || !board.shown) drawAfresh(view);
  else if (board.queue.length) play();
  else if (!board.playing && !acted) {
    board.shown = snapshot(view);
    document.body.dataset.step = stepKey(view);
    showMoment(view);
    scheduleRender();
  } else if (board.playing) {
    if (!acted && stepKey(view) !== stepKey(/** @type {View} */ (board.view))) {
      // the table moved on without a step to show (the next round resolved, at its
      // step 0: the board as the last step leaves it): the page says so at once, while
      // the last step's figure lands
      board.view = view;
      board.round = null;
      showMoment(view);
      drawRingCentre(board);
    }
    renderSide();
  }
  renderControls();
}

/** Everything beside the ring; safe to call while a step is being animated. */
function renderSide() {
  const view = /** @type {import("./common/api.js").View} */ (board.view);
  document.body.dataset.phase = view.phase;
  document.body.classList.toggle("over", view.phase === "finished" && !board.playing);
  renderLobby(board);
  // at the game's end the ring is the final board to check the figures against (and the
  // strip blinks them); the side keeps its room for the ranking and the chart
  renderPlacing($("placing"), view.phase === "finished" ? null : view);
  renderScores(board);
  renderLeaderboard(board);
  renderSheetLink(board);
  renderReplay(board);
  fitSide();
  renderChart(board);  // last: it takes the height the others leave
}

/** The column beside the ring fits the screen (a TV cannot scroll): when what it holds
    is taller (seven seats and the join code in attract mode, say), the score table's
    second lines go (colour, computer, picked: the dot, the phase line and the caption
    say them too), then its heading, and the QR codes get smaller. */
function fitSide() {
  const side = /** @type {HTMLElement} */ (document.querySelector(".side"));
  side.classList.remove("tight", "tighter");
  for (const step of ["tight", "tighter"]) {
    if (side.scrollHeight <= side.clientHeight + 1) return;
    side.classList.add(step);
  }
}

function render() {
  const view = board.view;
  if (!view) return;
  // the round is over (played through, skipped or undone): its cards leave the ring
  if (!board.playing && view.phase !== "playing") board.cards = null;
  renderSide();
  if (!board.playing) {
    if (view.phase === "lobby") {
      // with the Wi-Fi's code beside the table's, the caption says which comes first
      say(t(document.getElementById("wifi-box") ? "board.ready_wifi" : "board.ready"));
    }
    else if (view.phase === "finished") {
      say(gameOver(view.winners));
    } else if (view.undone && view.phase === "picking") {
      say(t("table.undone", { round: view.undone }));
    } else if (view.phase === "picking") {
      // the count ("Picked: 1 of 4") is on the phase line: here, who is still at it
      const waiting = (view.seats || []).filter((s) => !s.picked).map((s) => s.name);
      say(waiting.length ? t("pick.waiting", { names: waiting.join(", ") })
        : t("pick.everyone"));
    } else if (view.phase === "playing" && view.playback) {
      say(playbackCaption(view.playback, view));  // not the lobby's or the picking's words
    }
  }
  drawRing(board);
}

/* "Next" on the board itself: with the host logged in in this browser (and "Skip"), or
   on the table's own screen in step pacing ("Next" only: that screen is not the host). */
/** @type {string | null} */
let hostToken = null;

function renderControls() {
  const box = $("board-controls");
  if (!box) return;
  const view = board.latest;  // what the table takes now, not the step still animated
  const playing = view !== null && view.phase === "playing";
  const stepping = playing && ownScreen() && (view.playback || {}).pacing === "step";
  box.hidden = !(playing && hostToken) && !stepping;
  $("board-skip").hidden = !hostToken;
}

/** The host's token: the host page's login in this browser, if any. */
async function findHost() {
  const saved = storageGet("kalimambo.host");
  try {
    if (saved) {
      await api("GET", "/host", { token: saved });
      hostToken = saved;
    }
  } catch (e) {
    hostToken = null;
  }
  setHost(board, hostToken);
  renderControls();
}

function wireControls() {
  const next = $("board-next");
  const skip = $("board-skip");
  if (next) {
    next.addEventListener("click", () => {
      if (hostToken) api("POST", "/host/next", { token: hostToken }).catch(() => {});
      else api("POST", "/screen/next").catch(() => {});  // the table's own screen
    });
  }
  if (skip) {
    skip.addEventListener("click", () => {
      if (hostToken) api("POST", "/host/skip", { token: hostToken }).catch(() => {});
    });
  }
}

startPage();
onLang(() => render());
// the ring's text sizes follow its size on screen (ring.js): drawn again for a new size
// (and the caption's type fitted again to its box)
window.addEventListener("resize", () => {
  if (!board.playing) drawRing(board);
  if (board.view) fitSide();
  say($("narration").textContent);
});
loadLocal(board).then(renderControls);
wireLobby(board);
wireControls();
wireReplay(board);
unlockOnGesture(board);
findHost();
/* The picture of the strip: shown whenever the strip is simulated (there is no other to
   see), on a real strip only when asked (?leds=1); ?leds=0 hides it. */
const ledsWanted = new URLSearchParams(window.location.search).get("leds");
let stripShown = false;

/** @param {View} view */
function showStripIfSimulated(view) {
  const simulated = Boolean(view.lights && view.lights.backend === "sim");
  if (stripShown || ledsWanted === "0" || !(ledsWanted === "1" || simulated)) return;
  stripShown = true;
  startStrip();
}

live((tableView, whole, _token, happened) => {
  onView(tableView, whole, happened);
  showStripIfSimulated(tableView);
});
