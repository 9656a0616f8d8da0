"""Computer players and hints: given the public state and a seat's hand, a card.

Levels (``LEVELS``):

- ``random``: any card in hand, uniformly.
- ``easy``: one round ahead: the card with the fewest expected minus points this
  round against random replies, plus the risk of being rammed next round.
- ``medium``: Monte Carlo: for each card, sample Kali's remaining order and the
  opponents' cards from their remaining hands, play the rest of the game out at
  random, and score by minus points relative to the table.
- ``hard``: the same play-outs, over twice as many, with the opponents' cards
  this round drawn from a model of how a sensible player picks (their one-round
  view), and a random pick among near-equal cards.

Every player sees only public information (``kalimambo.engine.ai_view``): the board, every
seat's remaining hand, and the *set* of Kali's remaining cards.  The same seed
gives the same choice; ``budget_ms`` caps the time of one decision (the work is
counted in samples, so a deadline only cuts it short on a slow or busy machine).

Hints: ``suggest`` returns a ``Suggestion(card, code, params)``; pages translate
``code`` and fill in ``params`` (all ints).  The codes:

- ``only_card`` ``{}``: the last card in hand.
- ``escape_rhino`` ``{"risk": percent}``: you are next in line for Mambo;
  this card most likely gets you away (the riskiest other card: rammed in
  ``risk`` percent of the samples).
- ``avoid_dung`` ``{"space": n, "risk": percent}``: other cards often end on
  the dung heap at space ``n`` (the riskiest in ``risk`` percent); this one
  seldom does.
- ``avoid_kali`` ``{"points": n}``: the lowest card pays for Kali, who risks
  about ``n`` minus points this round; this card is seldom the lowest.
- ``safe_now`` ``{"chance": percent}``: this card costs nothing this round in
  ``chance`` percent of the samples.
- ``plan_ahead`` ``{}``: no big risk this round either way; this card keeps the
  better cards for later.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from kalimambo.engine.ai_hint import explain
from kalimambo.engine.ai_round import quick_scores
from kalimambo.engine.ai_search import hard_scores, medium_scores
from kalimambo.engine.ai_view import KnownState, known_state
from kalimambo.engine.errors import PlayError
from kalimambo.engine.game import Game

LEVELS = ("random", "easy", "medium", "hard")
DEFAULT_LEVEL = "medium"
"""The level the host gets unless they choose another."""
DEFAULT_BUDGET_MS = {"random": 10.0, "easy": 40.0, "medium": 100.0, "hard": 100.0}
"""The cap on one decision's time when ``budget_ms`` is not given."""
EASY_SAMPLES = 24
EASY_SLACK = 0.75
"""``easy`` picks at random among cards within this many points of its best."""
HINT_BUDGET_MS = 100.0


@dataclass(frozen=True, slots=True)
class Decision:
    """A choice and how it was reached (for benchmarks and tests)."""

    card: int
    level: str
    scores: dict[int, float] = field(default_factory=dict)
    iterations: int = 0
    rollouts: int = 0
    cut_short: bool = False
    ms: float = 0.0


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A hint: the card, a reason ``code`` and its ``params`` (module docstring)."""

    card: int
    code: str
    params: dict[str, int]

    def to_dict(self) -> dict[str, object]:
        return {"card": self.card, "code": self.code, "params": dict(self.params)}


def check_level(level: object) -> str:
    """The level, or ``ValueError`` naming the choices."""
    if level not in LEVELS:
        raise PlayError("bad_level", f"There is no level {level!r}: choose one of "
                        f"{', '.join(LEVELS)}.")
    assert isinstance(level, str)
    return level


def make_rng(seed: int | str | None, level: str, view: KnownState) -> random.Random:
    """A generator for one decision: the same seed, seat and round give the same one."""
    return random.Random(f"{seed}|{level}|{view.me}|{view.rounds_left}")


def decide(level: str, game: Game, player: str | int, seed: int | str | None,
           budget_ms: float | None = None) -> Decision:
    """Choose a card for ``player`` at ``level``; the ``Decision`` tells how."""
    began = time.perf_counter()
    level = check_level(level)
    view = known_state(game, player)
    budget = DEFAULT_BUDGET_MS[level] if budget_ms is None else float(budget_ms)
    if budget <= 0:
        raise ValueError(f"budget_ms must be more than 0, not {budget_ms}")
    deadline = began + budget / 1000.0
    rng = make_rng(seed, level, view)
    hand = view.my_hand
    if len(hand) == 1 or level == "random":
        card = hand[0] if len(hand) == 1 else rng.choice(hand)
        return Decision(card, level, ms=(time.perf_counter() - began) * 1000)
    if level == "easy":
        scores = quick_scores(view, rng, EASY_SAMPLES)
        best = min(scores)
        near = [c for c, s in zip(hand, scores, strict=True) if s <= best + EASY_SLACK]
        return Decision(rng.choice(near), level, dict(zip(hand, scores, strict=True)),
                        ms=(time.perf_counter() - began) * 1000)
    search = medium_scores if level == "medium" else hard_scores
    result = search(view, rng, deadline)
    return Decision(result.card, level, result.scores, result.iterations, result.rollouts,
                    result.cut_short, (time.perf_counter() - began) * 1000)


def choose_card(level: str, game: Game, player: str | int, seed: int | str | None,
                budget_ms: float | None = None) -> int:
    """A card from ``player``'s hand, chosen at ``level`` from public information.

    Raises ``PlayError`` for an unknown player or level, or a finished game.
    """
    return decide(level, game, player, seed, budget_ms).card


def suggest(game: Game, player: str | int, seed: int | str | None,
            budget_ms: float | None = None) -> Suggestion:
    """A hint for ``player``: the ``hard`` player's card and a reason for it."""
    view = known_state(game, player)
    if len(view.my_hand) == 1:
        return Suggestion(view.my_hand[0], "only_card", {})
    budget = HINT_BUDGET_MS if budget_ms is None else budget_ms
    decision = decide("hard", game, player, seed, budget)
    code, params = explain(view, decision.card, random.Random(f"{seed}|hint"))
    return Suggestion(decision.card, code, params)
