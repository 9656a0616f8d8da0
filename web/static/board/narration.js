/* The line of words under the ring: what each event did, as it is played. */

import { $ } from "../common/dom.js";
import { figureName, t } from "../common/i18n.js";
import { forward, trackLength } from "../common/ring.js";
import { state } from "./state.js";

/** The players who pay for the hit at `index` (the penalties right after it). */
function payersAfter(events, index, cause) {
  const names = [];
  let points = 0;
  for (let i = index + 1; i < events.length; i += 1) {
    const ev = events[i];
    if (ev.type !== "penalty") break;
    if (ev.cause !== cause) continue;
    names.push(ev.player);
    points = ev.points;
  }
  return { names, points };
}

/** The sentence for events[index], or null for an event that has none of its own. */
export function narrate(ev, events, index) {
  const L = trackLength(state.view);
  const fig = figureName(ev.figure || "");
  switch (ev.type) {
    case "reveal": return t("ev.reveal", { round: ev.round, kali: ev.kali });
    case "move":
      return ev.passed_rhino ? t("ev.move_past", { figure: fig, card: ev.card, space: ev.to_space })
        : t("ev.move", { figure: fig, card: ev.card,
          spaces: forward(ev.from_space, ev.to_space, L) });
    case "stay":
      if (ev.reason === "zero") return t("ev.stay_zero", { figure: fig });
      if (ev.reason === "front") return t("ev.stay_front", { figure: fig, card: ev.card });
      return t("ev.stay_tie", { figure: fig, card: ev.card,
        other: figureName(ev.beaten_by || "?") });
    case "dung": {
      const paid = payersAfter(events, index, "dung");
      if (!paid.names.length) return t("ev.dung_hit", { figure: fig, space: ev.space });
      return t("ev.dung", { figure: fig, space: ev.space, points: paid.points,
        payers: paid.names.join(", ") });
    }
    case "rhino_run": {
      const paid = payersAfter(events, index, "rammed");
      if (!paid.names.length) {
        return t("ev.rhino_hit", { spaces: ev.spaces, figure: figureName(ev.rammed) });
      }
      return t("ev.rhino_run", { spaces: ev.spaces, figure: figureName(ev.rammed),
        points: paid.points, payers: paid.names.join(", ") });
    }
    case "penalty": {
      // a step of penalties (one hit): said once, at its first
      if (index > 0 && events[index - 1].type === "penalty") return null;
      const paid = payersAfter(events, index - 1, ev.cause);
      return t("ev.penalty", { points: paid.points,
        payers: paid.names.map((name) => figureName(name)).join(", ") });
    }
    case "round_end":
      return ev.game_over ? t("ev.game_over", { names: (ev.winners || []).join(", ") })
        : t("ev.round_end", { round: ev.round });
    default: return null;
  }
}

/** Show `text` as the narration (nothing happens for an empty one). */
export function say(text) {
  if (text) $("narration").textContent = text;
}
