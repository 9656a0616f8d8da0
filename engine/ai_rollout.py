"""Monte Carlo play-outs: how good is each card, played now, over the rest of the game?

One *iteration* samples one possible world from public information: an order
for Kali's remaining cards and, for every other seat, the order in which it will
play its remaining hand.  Every candidate card is then played out in that same
world (common random numbers): the candidates differ only by their own choice,
so the comparison between them is much less noisy than independent samples.

A play-out is scored by the deciding seat's minus points relative to the table
(its own minus the others' mean); lower is better.  The work is counted in
iterations so a seed gives the same answer; a deadline only cuts it short when
the machine is too slow or busy.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kalimambo.engine.ai_view import KnownState

Scorer = Callable[[Sequence[int], int], float]
"""How a finished play-out is scored for the deciding seat: lower is better."""
RootModel = Sequence[Sequence[float] | None]
"""Per seat, cumulative weights over that seat's sorted hand for its card this
round (``None``: uniform).  Used by stronger players to model the opponents."""


@dataclass(slots=True)
class CardStats:
    """Play-out results per candidate card (``cards`` in hand order)."""

    cards: tuple[int, ...]
    totals: list[float]
    counts: list[int]
    iterations: int = 0
    rollouts: int = 0
    cut_short: bool = False

    def mean(self, index: int) -> float:
        count = self.counts[index]
        return self.totals[index] / count if count else 0.0

    def means(self) -> list[float]:
        return [self.mean(i) for i in range(len(self.cards))]


def new_stats(cards: Sequence[int]) -> CardStats:
    size = len(cards)
    return CardStats(tuple(cards), [0.0] * size, [0] * size)


def relative_score(minus: Sequence[int], me: int) -> float:
    """The seat's minus points minus the mean of the others' (lower is better)."""
    others = len(minus) - 1
    return minus[me] - (sum(minus) - minus[me]) / others


def sample_world(view: KnownState, rng: random.Random, model: RootModel | None
                 ) -> list[list[int]]:
    """One possible future: per round, every seat's card and Kali's last.

    The deciding seat's entries are placeholders (``-1``): the caller fills
    them in for each candidate.
    """
    me = view.me
    sequences: list[list[int]] = []
    shuffle = rng.shuffle
    for seat, hand in enumerate(view.hands):
        if seat == me:
            sequences.append([-1] * len(hand))
            continue
        order = list(hand)
        shuffle(order)
        weights = model[seat] if model is not None else None
        if weights is not None:
            first = rng.choices(hand, cum_weights=weights)[0]
            index = order.index(first)
            order[0], order[index] = order[index], order[0]
        sequences.append(order)
    kali = list(view.kali_cards)
    shuffle(kali)
    sequences.append(kali)
    return [list(row) for row in zip(*sequences, strict=True)]


def play_out(view: KnownState, world: Sequence[Sequence[int]], own: Sequence[int],
             score: Scorer = relative_score) -> float:
    """Play the world to the end with the deciding seat playing ``own`` in order."""
    board = view.board.copy()
    me = view.me
    play = board.play_round
    for row, card in zip(world, own, strict=True):
        cards = list(row)
        cards[me] = card
        play(cards)
    return score(board.minus, me)


def run(view: KnownState, rng: random.Random, iterations: int, deadline: float | None,
        candidates: Sequence[int] | None = None, model: RootModel | None = None,
        stats: CardStats | None = None, score: Scorer = relative_score) -> CardStats:
    """Add ``iterations`` sampled worlds to ``stats`` (new when ``None``).

    Every candidate is played out in every world; after the first card the
    deciding seat plays its remaining cards in one random order shared by all
    candidates.  Stops early, marking ``cut_short``, once ``deadline`` (a
    ``time.perf_counter`` value) has passed.
    """
    cards = tuple(candidates if candidates is not None else view.my_hand)
    if stats is None:
        stats = new_stats(cards)
    index_of = {card: i for i, card in enumerate(stats.cards)}
    totals = stats.totals
    counts = stats.counts
    hand = list(view.my_hand)
    clock = time.perf_counter
    for done in range(iterations):
        if deadline is not None and done and clock() > deadline:
            stats.cut_short = True
            break
        world = sample_world(view, rng, model)
        rng.shuffle(hand)
        for card in cards:
            own = [card, *(c for c in hand if c != card)]
            value = play_out(view, world, own, score)
            slot = index_of[card]
            totals[slot] += value
            counts[slot] += 1
        stats.iterations += 1
        stats.rollouts += len(cards)
    return stats
