"""The ``medium`` and ``hard`` searches: how many play-outs, for which cards, and the pick.

``medium`` spends its samples evenly on every card and takes the best mean.
``hard`` models the opponents' cards this round (each opponent's one-round view,
softened towards uniform, since good play is mixed), spends its samples in
halving rounds on the cards still in the running, and picks at random among the
cards whose mean is within noise of the best.

Work is counted in simulated rounds (``iterations x candidates x rounds left``)
so the time per decision stays about even through the game.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engine.ai_rollout import CardStats, RootModel, run
from engine.ai_round import quick_scores
from engine.ai_view import PublicView

MEDIUM_WORK = 9000
"""Simulated rounds per ``medium`` decision (about 40 ms here for 7 players)."""
HARD_WORK = 9000
MIN_ITERATIONS = 8
MAX_ITERATIONS = 3000
MODEL_SAMPLES = 6
"""Samples per card for each opponent's one-round view in ``hard``'s model."""
MODEL_TEMPERATURE = 1.0
"""Softmax temperature over an opponent's one-round scores (minus points)."""
MODEL_UNIFORM = 0.35
"""Share of the opponent model left uniform: nobody is that predictable."""
NEAR_EQUAL_SE = 1.0
"""``hard`` picks among cards within this many standard errors of the best."""


@dataclass(frozen=True, slots=True)
class SearchResult:
    card: int
    scores: dict[int, float]
    iterations: int
    rollouts: int
    cut_short: bool


def iterations_for(work: int, candidates: int, rounds: int) -> int:
    """How many sampled worlds ``work`` simulated rounds pay for."""
    return max(MIN_ITERATIONS, min(MAX_ITERATIONS, work // max(1, candidates * rounds)))


def _result(stats: CardStats, card: int) -> SearchResult:
    scores = {c: round(stats.mean(i), 3) for i, c in enumerate(stats.cards) if stats.counts[i]}
    return SearchResult(card, scores, stats.iterations, stats.rollouts, stats.cut_short)


def _best(stats: CardStats, indices: Sequence[int], rng: random.Random) -> int:
    """The lowest mean among ``indices``; ties broken at random."""
    means = {i: stats.mean(i) for i in indices}
    best = min(means.values())
    return rng.choice([i for i, m in means.items() if m <= best + 1e-9])


def medium_scores(view: PublicView, rng: random.Random, deadline: float | None
                  ) -> SearchResult:
    """Even play-outs for every card; the best mean wins."""
    hand = view.my_hand
    count = iterations_for(MEDIUM_WORK, len(hand), view.rounds_left)
    stats = run(view, rng, count, deadline)
    index = _best(stats, range(len(hand)), rng)
    return _result(stats, hand[index])


def opponent_model(view: PublicView, rng: random.Random) -> RootModel:
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


def _standard_error(stats: CardStats, index: int) -> float:
    count = stats.counts[index]
    if count < 2:
        return math.inf
    mean = stats.totals[index] / count
    variance = max(0.0, stats.squares[index] / count - mean * mean)
    return math.sqrt(variance / count)


def hard_scores(view: PublicView, rng: random.Random, deadline: float | None
                ) -> SearchResult:
    """Modelled opponents, halving rounds over the cards, a mixed pick among the best."""
    hand = view.my_hand
    model = opponent_model(view, rng)
    rounds = view.rounds_left
    budget = HARD_WORK
    alive = list(range(len(hand)))
    phases = max(1, math.ceil(math.log2(len(hand))))
    stats: CardStats | None = None
    while True:
        share = budget // phases
        count = iterations_for(share, len(alive), rounds)
        stats = run(view, rng, count, deadline, [hand[i] for i in alive], model, stats)
        budget -= count * len(alive) * rounds
        phases -= 1
        if phases <= 0 or len(alive) <= 2 or stats.cut_short or budget <= 0:
            break
        alive.sort(key=stats.mean)
        alive = alive[:max(2, (len(alive) + 1) // 2)]
    best = min(alive, key=stats.mean)
    margin = NEAR_EQUAL_SE * _standard_error(stats, best)
    near = [i for i in alive if stats.mean(i) <= stats.mean(best) + margin]
    return _result(stats, hand[rng.choice(sorted(near))])
