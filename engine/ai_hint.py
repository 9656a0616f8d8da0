"""Why a card: a short reason code for a hint (codes listed in ``kalimambo.engine.players``).

The reason comes from the round ahead (``kalimambo.engine.ai_round.risks``): the card was
chosen by a full search, but a newcomer learns most from the risk it dodges
now.  The first reason that clearly holds is given, in order of how much it
saves: Mambo's charge, dung, paying for Kali, a quiet round.
"""

from __future__ import annotations

import random

from kalimambo.engine.ai_round import Risk, risks
from kalimambo.engine.ai_view import KnownState

HINT_SAMPLES = 48
CLEAR_GAP = 0.25
"""A risk counts as dodged when the riskiest other card runs it at least this much
more often (as a chance, 0..1) than the chosen one."""
SAFE_CHANCE = 0.75


def _percent(value: float) -> int:
    return round(100 * value)


def _others(table: list[Risk], chosen: Risk) -> list[Risk]:
    return [risk for risk in table if risk is not chosen]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def explain(view: KnownState, card: int, rng: random.Random) -> tuple[str, dict[str, int]]:
    """The reason ``code`` and ``params`` for playing ``card`` now."""
    if len(view.my_hand) == 1:
        return "only_card", {}
    table = risks(view, rng, HINT_SAMPLES)
    chosen = next(risk for risk in table if risk.card == card)
    others = _others(table, chosen)
    rammed = max(r.rammed for r in others)
    if rammed - chosen.rammed >= CLEAR_GAP:
        return "escape_rhino", {"risk": _percent(rammed)}
    dung = max(r.dung for r in others)
    if dung - chosen.dung >= CLEAR_GAP:
        spaces: dict[int, int] = {}
        for risk in others:
            for space, hits in risk.dung_spaces.items():
                spaces[space] = spaces.get(space, 0) + hits
        space = max(sorted(spaces), key=spaces.__getitem__)
        return "avoid_dung", {"space": space, "risk": _percent(dung)}
    kali = max(r.kali for r in others)
    if kali - chosen.kali >= CLEAR_GAP:
        paying = [r.kali_points / r.kali for r in others if r.kali > 0]
        return "avoid_kali", {"points": round(_mean(paying))}
    if chosen.free >= SAFE_CHANCE:
        return "safe_now", {"chance": _percent(chosen.free)}
    return "plan_ahead", {}
