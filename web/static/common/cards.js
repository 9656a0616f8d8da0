/* A hand of cards and a round's reveal, shared by the phone and the host page
   (which plays the seats of players without a phone). */

import { el } from "./dom.js";
import { figureName, t } from "./i18n.js";
import { colourOf, own } from "./names.js";
import { forward, trackLength } from "./ring.js";

const VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];

/** The hand before the game starts: the twelve cards to look at, not to tap (plain
    items, flat, no pointer: nothing about them says "tap me" while nothing can be
    played). */
function renderPreview(box, colour) {
  if (box.dataset.kind !== "preview" || box.children.length !== VALUES.length) {
    box.textContent = "";
    box.dataset.kind = "preview";
    box.setAttribute("role", "list");
    for (const value of VALUES) {
      box.appendChild(el("span", { role: "listitem", dataset: { card: String(value) } },
        el("span", { class: "value" }, String(value))));
    }
  }
  for (const item of box.children) item.className = `card preview c-${colour || "natural"}`;
}

/** Draw twelve cards into `box`: played ones greyed, `pick` marked, `selected` raised.
    onTap(card) is called for cards still in hand.  The twelve buttons are made once
    and then updated in place, so the focused card keeps its focus.  With
    `opts.preview` (the lobby) the cards are only shown, not buttons. */
export function renderHand(box, opts) {
  if (opts.preview) { renderPreview(box, opts.colour); return; }
  const inHand = new Set(opts.hand || []);
  if (box.dataset.kind !== "buttons" || box.children.length !== VALUES.length) {
    box.textContent = "";
    box.dataset.kind = "buttons";
    box.setAttribute("role", "group");
    for (const value of VALUES) {
      const button = el("button", { type: "button", dataset: { card: String(value) } },
        el("span", { class: "value" }, String(value)),
        el("span", { class: "badge", hidden: true }, ""));
      button.addEventListener("click", () => {
        if (box.onTap && !button.disabled) box.onTap(value);
      });
      box.appendChild(button);
    }
  }
  box.onTap = opts.onTap;
  box.classList.toggle("locked", Boolean(opts.locked) && !opts.preview);
  VALUES.forEach((value, i) => {
    const button = box.children[i];
    const classes = ["card", `c-${opts.colour || "natural"}`];
    if (!inHand.has(value)) classes.push("played");
    if (opts.pick === value) classes.push("picked");
    if (opts.selected === value) classes.push("selected");
    button.className = classes.join(" ");
    button.disabled = !inHand.has(value) || Boolean(opts.locked);
    button.setAttribute("aria-pressed",
      opts.selected === value || opts.pick === value ? "true" : "false");
    const badge = button.lastChild;
    badge.hidden = opts.pick !== value;
    badge.textContent = opts.pick === value ? t("pick.picked") : "";
  });
}

/** Every card of a resolved round, Kali's last, each with its figure's colour. */
export function revealList(box, entry, view) {
  box.textContent = "";
  for (const [name, card] of Object.entries(entry.cards || {})) {
    box.appendChild(el("li", { class: `mini c-${colourOf(view, name)}` },
      el("span", { class: "mini-card" }, String(card)),
      el("span", { class: "mini-name" }, name)));
  }
  box.appendChild(el("li", { class: "mini c-kali" },
    el("span", { class: "mini-card" }, String(entry.kali)),
    el("span", { class: "mini-name" }, t("figure.kali"))));
}

/** What a round did to `me`, in words: one line per thing that happened. */
export function story(entry, me, view) {
  const lines = [];
  const L = trackLength(view);
  /** @type {any} */
  let lastRun = null;
  let paid = 0;
  for (const ev of entry.events || []) {
    if (ev.type === "rhino_run") lastRun = ev;
    if (ev.type === "stay" && ev.figure === me) {
      if (ev.reason === "zero") lines.push(t("story.stay_zero"));
      else if (ev.reason === "front") lines.push(t("story.stay_front"));
      else lines.push(t("story.stay_tie", { other: figureName(ev.beaten_by || "?"),
        card: ev.card }));
    } else if (ev.type === "move" && ev.figure === me) {
      if (ev.passed_rhino) lines.push(t("story.moved_past", { space: ev.to_space }));
      else lines.push(t("story.moved", { spaces: forward(ev.from_space, ev.to_space, L) }));
    } else if (ev.type === "penalty" && ev.player === me) {
      paid += ev.points;
      if (ev.for_kali) {
        lines.push(t(ev.cause === "dung" ? "story.kali_dung" : "story.kali_rammed",
          { points: ev.points }));
      } else if (ev.cause === "dung") {
        lines.push(t("story.dung", { points: ev.points }));
      } else {
        lines.push(t("story.rammed", { points: ev.points,
          spaces: lastRun ? lastRun.spaces : ev.points }));
      }
    }
  }
  if (paid === 0) lines.push(t("story.quiet"));
  const total = own(entry.minus_points, me);
  if (paid > 0 && total !== undefined) {
    lines.push(t("story.round_total", { points: paid, total }));
  }
  return lines;
}

/** One list item per line of a story. */
export function fillStory(box, lines) {
  box.textContent = "";
  for (const line of lines) box.appendChild(el("li", {}, line));
}
