/* The phone: join, pick and confirm a card, see the reveal and what it did to you.
   The seat token lives in localStorage; a reloaded or re-woken page finds its
   seat with GET /api/v1/me, never by name. */

import { api } from "./common/api.js";
import { fillStory, renderHand as drawCards, revealList, story } from "./common/cards.js";
import { modal } from "./common/dialog.js";
import { $, el } from "./common/dom.js";
import { colourTag, onLang, t } from "./common/i18n.js";
import { live } from "./common/live.js";
import { nameCounter } from "./common/namecount.js";
import { playbackLine } from "./common/playline.js";
import { seatOf } from "./common/names.js";
import { startPage } from "./common/page.js";
import { storageGet, storageSet } from "./common/storage.js";
import { toast } from "./common/toast.js";

const TOKEN_KEY = "kalimambo.token";

const state = {
  token: storageGet(TOKEN_KEY),
  view: null,       // the newest public view
  me: null,         // "me" from GET /api/v1/me
  meKey: "",        // game/round/phase the "me" belongs to
  selected: null,   // tapped but not yet confirmed
  sending: false,
  seenRound: null,  // last resolved round whose reveal the player has seen
  hintKey: "",      // the round the hint text belongs to
};

// closed, the reveal gives focus back to where it was, or else to the first card in hand
const sheet = modal($("sheet"), null, () => $("hand").querySelector(".card:not([disabled])"));

// ---------------------------------------------------------------- the seat
function viewKey(view) {
  return `${view.game_id || ""}/${view.round}/${view.phase}/${(view.history || []).length}`;
}

async function loadMe() {
  if (!state.token) return;
  try {
    const data = await api("GET", "/me", { token: state.token });
    state.me = data.me;
    state.meKey = viewKey(data);
    if (!state.view || (data.version || 0) >= (state.view.version || 0)) state.view = data;
    if (state.seenRound === null) state.seenRound = lastRoundNumber(state.view);
    $("seat-lost").hidden = true;
  } catch (err) {
    if (err.status === 401 || err.status === 403 || err.status === 404) {
      forgetSeat(true);
    } else {
      toast(err.message, "error");
    }
  }
  render();
}

function forgetSeat(lost) {
  state.token = null;
  state.me = null;
  state.selected = null;
  storageSet(TOKEN_KEY, null);
  $("seat-lost").hidden = !lost;
}

async function join(event) {
  event.preventDefault();
  const name = /** @type {HTMLInputElement} */ ($("name")).value.trim();
  if (!name) { $("name").focus(); return; }
  const button = /** @type {HTMLButtonElement} */ ($("join-button"));
  button.disabled = true;
  button.textContent = t("join.busy");
  try {
    const data = await api("POST", "/join", { body: { name } });
    state.token = data.token;
    storageSet(TOKEN_KEY, data.token);
    $("seat-lost").hidden = true;
    await loadMe();
    stream.reconnect();
  } catch (err) {
    toast(err.message, "error");
  } finally {
    button.disabled = false;
    button.textContent = t("join.button");
  }
}

// ------------------------------------------------------------- picking
function tapCard(card) {
  if (state.sending) return;
  state.selected = state.me && state.me.pick === card ? null : card;
  renderHand();
}

async function confirmPick() {
  const card = state.selected;
  if (card === null || !state.view || state.sending) return;
  state.sending = true;
  $("confirm").textContent = t("pick.sending");
  try {
    await api("POST", "/pick", { token: state.token, body: { round: state.view.round, card } });
    if (state.me) state.me.pick = card;
    state.selected = null;
  } catch (err) {
    toast(err.message, "error");
    if (err.status === 401) forgetSeat(true);
    else await loadMe();
  } finally {
    state.sending = false;
  }
  render();
}

async function askHint() {
  /** @type {HTMLButtonElement} */ ($("hint")).disabled = true;
  $("hint-text").textContent = "…";
  try {
    const data = await api("GET", "/hint", { token: state.token });
    const params = Object.assign({ card: data.card }, data.params || {});
    const key = `hint.${data.code}`;
    const text = t(key, params);
    $("hint-text").textContent = text === key ? t("hint.text", params) : text;
    if (typeof data.card === "number" && state.me && state.me.hand.includes(data.card)) {
      state.selected = data.card;
      renderHand();
    }
  } catch (err) {
    $("hint-text").textContent = err.message;
  } finally {
    /** @type {HTMLButtonElement} */ ($("hint")).disabled = false;
  }
}

// ------------------------------------------------------------ drawing
function lastRoundNumber(view) {
  return view && view.last_round ? view.last_round.round : 0;
}

function mySeat() {
  return state.me ? seatOf(state.view, state.me.name) : null;
}

function renderJoin() {
  const view = state.view;
  const open = !view || view.phase === "lobby";
  $("join-form").hidden = !open;
  $("join-lead").hidden = !open;
  $("join-closed").hidden = open;
  const list = $("join-seats");
  list.textContent = "";
  const seats = view ? view.seats || [] : [];
  if (!seats.length) list.appendChild(el("li", { class: "muted" }, t("join.nobody")));
  for (const seat of seats) {
    list.appendChild(el("li", { class: "chip" }, el("b", {}, seat.name), " ",
      colourTag(seat.colour)));
  }
}

function renderHand() {
  const me = state.me;
  const view = state.view;
  const seat = mySeat();
  const picking = view.phase === "picking";
  $("hand-caption").hidden = view.phase !== "lobby";
  drawCards($("hand"), {
    hand: me.hand,
    preview: view.phase === "lobby",
    colour: seat ? seat.colour : "natural",
    pick: picking ? me.pick : null,
    selected: picking ? state.selected : null,
    locked: !picking,
    onTap: tapCard,
  });
  const bar = $("confirm-bar");
  const showBar = picking && state.selected !== null && state.selected !== me.pick;
  bar.hidden = !showBar;
  document.body.classList.toggle("with-bar", showBar);
  if (showBar && !state.sending) {
    $("confirm").textContent = t("pick.confirm", { card: state.selected });
  }
}

function renderPickers() {
  const view = state.view;
  const list = $("pickers");
  list.textContent = "";
  if (view.phase !== "picking") return;
  for (const seat of view.seats || []) {
    list.appendChild(el("li", { class: `chip ${seat.picked ? "done" : "waiting"}` },
      el("span", { class: `dot c-${seat.colour}`, "aria-hidden": "true" }),
      seat.name, " ",
      el("span", { class: "muted" }, seat.picked ? `✓ ${t("pick.picked")}` : t("pick.thinking"))));
  }
}

function renderStatus() {
  const view = state.view;
  const me = state.me;
  let text = "";
  if (view.phase === "lobby") text = t("lobby.wait");
  else if (view.phase === "picking") {
    const waiting = (view.seats || []).filter((s) => !s.picked).map((s) => s.name);
    if (me.pick === null || me.pick === undefined) text = t("pick.choose");
    else text = t("pick.done", { card: me.pick });
    if (me.pick !== null && me.pick !== undefined) {
      text += " " + (waiting.length ? t("pick.waiting", { names: waiting.join(", ") })
        : t("pick.everyone"));
    }
    if (view.undone) text = `${t("table.undone", { round: view.undone })} ${text}`;
  } else if (view.phase === "playing" && view.playback) {
    // the board plays the round: its outcome comes here only when the playback ends
    text = playbackLine(view);
  }
  $("status").textContent = text;
  $("round-line").textContent = view.phase === "lobby" ? t("phase.lobby")
    : view.phase === "finished" ? t("phase.finished") : t("phase.picking", { round: view.round });
}

function renderOver() {
  const view = state.view;
  const box = $("over");
  box.hidden = view.phase !== "finished";
  if (box.hidden) return;
  const winners = view.winners || [];
  const me = state.me.name;
  const seat = mySeat();
  if (winners.includes(me)) {
    $("over-text").textContent = winners.length > 1 ? t("over.shared") : t("over.won");
  } else {
    $("over-text").textContent = t(winners.length === 1 ? "over.lost.one" : "over.lost",
      { names: winners.join(", ") });
  }
  $("over-points").textContent = t("over.place", { points: seat ? seat.minus_points : 0 });
  const ranking = $("over-ranking");
  ranking.textContent = "";
  const seats = (view.seats || []).slice().sort((a, b) => a.minus_points - b.minus_points);
  for (const other of seats) {
    ranking.appendChild(el("li", { class: winners.includes(other.name) ? "winner" : "" },
      el("span", { class: `dot c-${other.colour}`, "aria-hidden": "true" }), " ",
      el("span", { class: "grow" }, other.name), el("b", {}, String(other.minus_points))));
  }
}

function renderLast() {
  const view = state.view;
  const entry = view.last_round;
  const box = $("last");
  box.hidden = !entry;
  if (!entry) {
    if (state.seenRound) sheet.close(); // the only round was undone
    state.seenRound = state.seenRound === null ? null : 0;
    return;
  }
  $("last-title").textContent = t("reveal.title", { round: entry.round });
  revealList($("last-cards"), entry, view);
  fillStory($("last-story"), story(entry, state.me.name, view));
  if (state.seenRound !== null && entry.round > state.seenRound) {
    state.seenRound = entry.round;
    // the last round's reveal stays in the page, under the final ranking: game over
    // comes first, nothing on top of it
    if (view.phase === "finished") sheet.close();
    else openSheet(entry);
  } else if (state.seenRound !== null && entry.round < state.seenRound) {
    state.seenRound = entry.round; // undo took a round back
    sheet.close();
  }
}

function openSheet(entry) {
  $("sheet-title").textContent = t("reveal.title", { round: entry.round });
  revealList($("sheet-cards"), entry, state.view);
  fillStory($("sheet-story"), story(entry, state.me.name, state.view));
  sheet.open($("sheet-ok"));
}

function render() {
  const seated = Boolean(state.token && state.me && state.view);
  const loading = Boolean(state.token && !state.me);
  $("join").hidden = seated || loading;
  $("seat").hidden = !seated;
  if (!seated) {
    $("confirm-bar").hidden = true;
    sheet.close();
    renderJoin();
    return;
  }
  const view = state.view;
  const seat = mySeat();
  $("me-name").textContent = state.me.name;
  const colourBox = $("me-colour");
  colourBox.textContent = "";
  if (seat) colourBox.appendChild(colourTag(seat.colour));
  $("me-points").textContent = String(seat ? seat.minus_points : 0);
  if (view.phase !== "picking") state.selected = null;
  if (state.selected !== null && !state.me.hand.includes(state.selected)) state.selected = null;
  renderStatus();
  renderOver();
  $("hand").hidden = view.phase === "finished";
  $("status").hidden = !$("status").textContent;
  renderHand();
  renderPickers();
  renderLast();
  const hintOn = Boolean(view.hints) && view.phase === "picking";
  $("hint").hidden = !hintOn;
  const hintKey = `${view.game_id}/${view.round}`;
  if (!hintOn || state.hintKey !== hintKey) $("hint-text").textContent = "";
  state.hintKey = hintKey;
}

function onView(view) {
  state.view = view;
  if (!state.token) { render(); return; }
  const inTable = (view.seats || []).some((s) => state.me && s.name === state.me.name);
  if (!state.me || viewKey(view) !== state.meKey || !inTable) {
    loadMe();
  } else {
    render();
  }
}

// ------------------------------------------------------------- wiring
$("join-form").addEventListener("submit", join);
nameCounter($("name"), $("name-count"));
$("confirm").addEventListener("click", confirmPick);
$("cancel").addEventListener("click", () => { state.selected = null; render(); });
$("hint").addEventListener("click", askHint);
$("sheet-ok").addEventListener("click", () => sheet.close());
onLang(() => render());
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) loadMe();
});

startPage();
render();
if (state.token) loadMe();
const stream = live(onView, () => state.token);
