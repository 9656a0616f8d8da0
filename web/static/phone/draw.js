/* Drawing the phone page from its state: the join form, the hand, who has picked,
   the status line, the game's end and the round's reveal. */

import { fillStory, renderHand as drawCards, revealList, story } from "../common/cards.js";
import { modal } from "../common/dialog.js";
import { $, el } from "../common/dom.js";
import { colourTag, t } from "../common/i18n.js";
import { renderPlacing } from "../common/placing.js";
import { playbackLine } from "../common/playline.js";
import { mySeat } from "./state.js";

/** @typedef {import("../common/api.js").View} View */
/** @typedef {import("../common/api.js").Happened} Happened */
/** @typedef {import("./state.js").Phone} Phone */

// closed, the reveal gives focus back to where it was, or else to the first card in hand
export const sheet = modal($("sheet"), null, () => $("hand").querySelector(".card:not([disabled])"));

/** A card tapped: select it; tapped again, play it (as the bar's *Play* button does);
    the card already played: nothing to change.
    @param {Phone} phone */
function tapCard(phone, card) {
  if (phone.sending) return;
  if (phone.selected === card && phone.confirm) {
    phone.confirm();
    return;
  }
  phone.selected = phone.me && phone.me.pick === card ? null : card;
  renderHand(phone);
}

/** @param {Phone} phone */
function renderJoin(phone) {
  const view = phone.view;
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

/** @param {Phone} phone */
export function renderHand(phone) {
  const me = phone.me;
  const view = /** @type {View} */ (phone.view);  // drawn only once seated
  const seat = mySeat(phone);
  const picking = view.phase === "picking";
  $("hand-caption").hidden = view.phase !== "lobby";
  drawCards($("hand"), {
    hand: me.hand,
    preview: view.phase === "lobby",
    colour: seat ? seat.colour : "natural",
    pick: picking ? me.pick : null,
    selected: picking ? phone.selected : null,
    locked: !picking,
    onTap: (card) => tapCard(phone, card),
  });
  const bar = $("confirm-bar");
  const showBar = picking && phone.selected !== null && phone.selected !== me.pick;
  bar.hidden = !showBar;
  document.body.classList.toggle("with-bar", showBar);
  // nothing of the page may hide under the bar, however tall it is on this phone
  if (showBar) document.body.style.setProperty("--bar", `${bar.offsetHeight}px`);
  if (showBar && !phone.sending) {
    $("confirm").textContent = t("pick.confirm", { card: phone.selected });
  }
}

/** @param {Phone} phone */
function renderPickers(phone) {
  const view = /** @type {View} */ (phone.view);  // drawn only once seated
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

/** @param {Phone} phone */
function renderStatus(phone) {
  const view = /** @type {View} */ (phone.view);  // drawn only once seated
  const me = phone.me;
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

/** @param {Phone} phone */
function renderOver(phone) {
  const view = /** @type {View} */ (phone.view);  // drawn only once seated
  const box = $("over");
  box.hidden = view.phase !== "finished";
  if (box.hidden) return;
  const winners = view.winners || [];
  const me = phone.me.name;
  const seat = mySeat(phone);
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

/** @param {Phone} phone */
function renderLast(phone) {
  const view = /** @type {View} */ (phone.view);
  const entry = view.last_round;
  const box = $("last");
  box.hidden = !entry;
  if (!entry) return;
  $("last-title").textContent = t("reveal.title", { round: entry.round });
  revealList($("last-cards"), entry, view);
  fillStory($("last-story"), story(entry, phone.me.name, view));
}

/** Act on what the table says happened (told beside the view; never a comparison of
    two views): a round's playback ended, so its reveal opens here (the last round's stays
    in the page under the final ranking: game over comes first, nothing on top of it);
    an undo or a new lobby takes the open reveal away.
    @param {Phone} phone  @param {View} view  @param {Happened[]} happened */
export function onHappened(phone, view, happened) {
  for (const ev of happened) {
    if (ev.type === "playback_ended" && !ev.replay && view.last_round) {
      phone.seenRound = view.last_round.round;
      if (view.phase === "finished") sheet.close();
      else openSheet(phone, view.last_round);
    } else if (ev.type === "round_undone" || ev.type === "lobby_opened") {
      phone.seenRound = view.last_round ? view.last_round.round : 0;
      sheet.close();
    }
  }
}

/** A whole view (the page opened or woke up): a reveal shown while it slept, that this
    player has not seen yet, opens now.
    @param {Phone} phone */
export function onWoken(phone, view) {
  const entry = view.last_round;
  const round = entry ? entry.round : 0;
  if (phone.seenRound !== null && round > phone.seenRound && view.phase !== "finished") {
    openSheet(phone, entry);
  } else if (round < (phone.seenRound || 0)) {
    sheet.close();
  }
  phone.seenRound = round;
}

/** @param {Phone} phone */
function openSheet(phone, entry) {
  const view = /** @type {View} */ (phone.view);
  $("sheet-title").textContent = t("reveal.title", { round: entry.round });
  revealList($("sheet-cards"), entry, view);
  fillStory($("sheet-story"), story(entry, phone.me.name, view));
  sheet.open($("sheet-ok"));
}

/** Draw the whole page from `state`.
    @param {Phone} phone */
export function render(phone) {
  const seated = Boolean(phone.token && phone.me && phone.view);
  const loading = Boolean(phone.token && !phone.me);
  $("join").hidden = seated || loading;
  $("seat").hidden = !seated;
  if (!seated) {
    $("confirm-bar").hidden = true;
    sheet.close();
    renderJoin(phone);
    return;
  }
  const view = /** @type {View} */ (phone.view);  // drawn only once seated
  const seat = mySeat(phone);
  $("me-name").textContent = phone.me.name;
  const colourBox = $("me-colour");
  colourBox.textContent = "";
  if (seat) colourBox.appendChild(colourTag(seat.colour));
  $("me-points").textContent = String(seat ? seat.minus_points : 0);
  if (view.phase !== "picking") phone.selected = null;
  if (phone.selected !== null && !phone.me.hand.includes(phone.selected)) phone.selected = null;
  renderStatus(phone);
  renderPlacing($("placing"), view);
  renderOver(phone);
  $("hand").hidden = view.phase === "finished";
  $("status").hidden = !$("status").textContent;
  renderHand(phone);
  renderPickers(phone);
  renderLast(phone);
  const hintOn = Boolean(view.hints) && view.phase === "picking";
  $("hint").hidden = !hintOn;
  const hintKey = `${view.game_id}/${view.round}`;
  if (!hintOn || phone.hintKey !== hintKey) $("hint-text").textContent = "";
  phone.hintKey = hintKey;
}
