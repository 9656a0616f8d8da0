"""The ``medium`` and ``hard`` searches: how many play-outs, for which cards, and the pick.

``medium`` spends its samples evenly on every card and takes the best mean.
``hard`` models the opponents' cards this round (each opponent's one-round view,
softened towards uniform, since good play is mixed), spends more play-outs, and
picks at random among the cards whose mean is within a hair of the best.  (Tried
and dropped, measured against ``medium``: halving rounds over the cards, which
gained nothing, scoring by the win or by the margin to the best opponent, which
gained nothing, and a rule-of-thumb play-out policy instead of random play-outs,
which lost clearly.)

Work is counted in simulated rounds (``iterations x (candidates x rounds left
+ sampling)``) so the time per decision stays about even through the game.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from kalimambo.engine.ai_rollout import CardStats, RootModel, run
from kalimambo.engine.ai_round import quick_scores
from kalimambo.engine.ai_view import KnownState

MEDIUM_WORK = 9000
"""Simulated rounds per ``medium`` decision (p99 about 26 ms here for 7 players)."""
HARD_WORK = 20000
"""``hard`` spends a little over twice ``medium``'s play-outs (p99 about 60 ms here
for 7 players on a quiet machine; the 100 ms budget caps it under load)."""
SAMPLING_COST = 2
"""Beyond one per seat: Kali's shuffle and the deciding seat's own, in simulated rounds."""
MIN_ITERATIONS = 8
MAX_ITERATIONS = 3000
MODEL_SAMPLES = 12
"""Samples per card for each opponent's one-round view in ``hard``'s model."""
MODEL_TEMPERATURE = 1.0
"""Softmax temperature over an opponent's one-round scores (minus points)."""
MODEL_UNIFORM = 0.25
"""Share of the opponent model left uniform: nobody is that predictable."""
NEAR_EQUAL_POINTS = 0.1
"""``hard`` treats cards within this many expected points of the best as equal
and picks among them at random (a predictable player is easy to exploit)."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    card: int
    scores: dict[int, float]
    iterations: int
    rollouts: int
    cut_short: bool


def iterations_for(work: int, candidates: int, rounds: int, players: int) -> int:
    """How many sampled worlds ``work`` simulated rounds pay for.

    Sampling a world (shuffling every seat's hand and Kali's cards) costs about
    one simulated round per seat, which dominates late in the game.
    """
    cost = candidates * rounds + players + SAMPLING_COST
    return max(MIN_ITERATIONS, min(MAX_ITERATIONS, work // cost))


def _result(stats: CardStats, card: int) -> SearchResult:
    scores = {c: round(stats.mean(i), 3) for i, c in enumerate(stats.cards) if stats.counts[i]}
    return SearchResult(card, scores, stats.iterations, stats.rollouts, stats.cut_short)


def _best(stats: CardStats, indices: Sequence[int], rng: random.Random) -> int:
    """The lowest mean among ``indices``; ties broken at random."""
    means = {i: stats.mean(i) for i in indices}
    best = min(means.values())
    return rng.choice([i for i, m in means.items() if m <= best + 1e-9])


def medium_scores(view: KnownState, rng: random.Random, deadline: float | None
                  ) -> SearchResult:
    """Even play-outs for every card; the best mean wins."""
    hand = view.my_hand
    count = iterations_for(MEDIUM_WORK, len(hand), view.rounds_left, view.players)
    stats = run(view, rng, count, deadline)
    index = _best(stats, range(len(hand)), rng)
    return _result(stats, hand[index])


def opponent_model(view: KnownState, rng: random.Random) -> RootModel:
    """Per opponent, cumulative weights over its hand for its card this round."""
    model: list[Sequence[float] | None] = []
    for seat, hand in enumerate(view.hands):
        if seat == view.me or len(hand) == 1:
            model.append(None)
            continue
        their = replace(view, me=seat)
        scores = quick_scores(their, rng, MODEL_SAMPLES)
        best = min(scores)
        weights = [math.exp(-(s - best) / MODEL_TEMPERATURE) for s in scores]
        total = sum(weights)
        size = len(hand)
        cumulative: list[float] = []
        running = 0.0
        for w in weights:
            running += (1 - MODEL_UNIFORM) * w / total + MODEL_UNIFORM / size
            cumulative.append(running)
        model.append(cumulative)
    return model


def hard_scores(view: KnownState, rng: random.Random, deadline: float | None
                ) -> SearchResult:
    """Modelled opponents, more play-outs, a mixed pick among the near-equal best."""
    hand = view.my_hand
    model = opponent_model(view, rng)
    count = iterations_for(HARD_WORK, len(hand), view.rounds_left, view.players)
    stats = run(view, rng, count, deadline, model=model)
    means = stats.means()
    best = min(means)
    near = [card for card, mean in zip(hand, means, strict=True)
            if mean <= best + NEAR_EQUAL_POINTS]
    return _result(stats, rng.choice(near))
