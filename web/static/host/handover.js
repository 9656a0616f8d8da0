/* Playing a seat without a phone: the device is handed over, the player asks for their
   cards, picks unseen by the others, and the page hides the card again at once. */

import { $ } from "../common/dom.js";
import { renderHand } from "../common/cards.js";
import { sendPick } from "../common/sendpick.js";
import { modal } from "../common/dialog.js";
import { t } from "../common/i18n.js";
import { colourOf } from "../common/names.js";
import { hostedSeatPath } from "./seat-path.js";
import { act } from "./session.js";

/** @type {{seat: import("../common/api.js").Seat, hand: number[], colour: string,
      selected: number | null, pick: number | null, round: number,
      sending?: boolean} | null} */
let handover = null;
const STAGES = { ask: "ho-title", pick: "ho-name", done: "ho-done-title" };

const dialog = modal($("handover"), () => {
  handover = null;
  $("ho-hand").textContent = "";  // nothing of the hand stays in the page
});

function stage(name) {
  for (const key of Object.keys(STAGES)) $(`ho-${key}`).hidden = key !== name;
  $("handover").setAttribute("aria-labelledby", STAGES[name]);
}

/** Open the hand-over for a hosted seat of the public view. */
export function openHandover(seat) {
  handover = { seat, hand: [], colour: "natural", selected: null, pick: null, round: 0 };
  $("ho-title").textContent = t("host.handover", { name: seat.name });
  $("ho-show").textContent = t("host.show_cards", { name: seat.name });
  stage("ask");
  dialog.open($("ho-show"));
}

export function closeHandover() { dialog.close(); }

/** Is a hand-over open at a stage the next view may end (asking or picking)? */
export const handoverPending = () => Boolean(handover) && $("ho-done").hidden;

async function showHand() {
  const ho = handover;
  if (!ho) return;
  const data = await act($("ho-show"), "GET", hostedSeatPath(ho.seat, "me"));
  if (!data || handover !== ho) return;
  ho.hand = data.me.hand;
  ho.pick = data.me.pick;
  ho.round = data.round;
  ho.colour = data.me.colour || colourOf(data, ho.seat.name);
  $("ho-name").textContent = ho.seat.name;
  stage("pick");
  drawHand();
  /** @type {HTMLButtonElement | null} */
  const first = $("ho-hand").querySelector(".card:not([disabled])");
  if (first) first.focus();
}

function drawHand() {
  const ho = handover;
  if (!ho) return;
  renderHand($("ho-hand"), {
    hand: ho.hand, colour: ho.colour, pick: ho.pick, selected: ho.selected,
    onTap: (card) => { ho.selected = card; drawHand(); },
  });
  $("ho-status").textContent = ho.pick === null || ho.pick === undefined
    ? t("pick.choose") : t("pick.done", { card: ho.pick });
  const ready = ho.selected !== null && ho.selected !== ho.pick;
  /** @type {HTMLButtonElement} */ ($("ho-confirm")).disabled = !ready;
  $("ho-confirm").textContent = ready ? t("pick.confirm", { card: ho.selected })
    : t("pick.choose");
}

async function confirmHostedPick() {
  const ho = handover;
  if (!ho) return;
  const taken = await sendPick(ho, ho.round, async (body) =>
    Boolean(await act($("ho-confirm"), "POST", hostedSeatPath(ho.seat, "pick"), body)));
  if (!taken || handover !== ho) return;
  // hide the card at once: the next person to look must not see it
  $("ho-hand").textContent = "";
  stage("done");
  $("ho-back").focus();
}

$("ho-show").addEventListener("click", showHand);
$("ho-cancel").addEventListener("click", closeHandover);
$("ho-abort").addEventListener("click", closeHandover);
$("ho-confirm").addEventListener("click", confirmHostedPick);
$("ho-back").addEventListener("click", closeHandover);
