"""One round ahead: what each card risks this round, against random replies.

The ``easy`` player and the hints stand on this.  Each sample draws every other
seat's card from its remaining hand and Kali's from his remaining cards; every
candidate is tried against the same samples, so their risks compare fairly.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from kalimambo.engine.ai_view import KnownState
from kalimambo.engine.events import KALI, Event, Penalty

EXPOSURE = (0.0, 0.5, 0.2)
"""Weight of the ram risk by place from the back after the round (last, second,
third): the figure second from the back is rammed as soon as the last one moves."""


def sample_replies(view: KnownState, rng: random.Random) -> list[int]:
    """Every seat's card (the deciding seat's left as ``-1``) and Kali's, last."""
    cards = [-1 if seat == view.me else rng.choice(hand)
             for seat, hand in enumerate(view.hands)]
    cards.append(rng.choice(view.kali_cards))
    return cards


def exposure(view: KnownState, order: Sequence[int], positions: Sequence[int],
             rhino: int) -> float:
    """How many minus points the deciding seat stands to lose to Mambo next round."""
    place = order.index(view.me)
    if place >= len(EXPOSURE):
        return 0.0
    gap = (positions[view.me] - rhino) % view.board.length - 1
    return EXPOSURE[place] * gap


def quick_scores(view: KnownState, rng: random.Random, samples: int) -> list[float]:
    """Per card in hand: mean minus points this round plus the ram exposure after it."""
    hand = view.my_hand
    scores = [0.0] * len(hand)
    me = view.me
    for _ in range(samples):
        cards = sample_replies(view, rng)
        for i, card in enumerate(hand):
            board = view.board.copy()
            cards[me] = card
            board.play_round(cards)
            scores[i] += board.minus[me] + exposure(view, board.order, board.positions,
                                                    board.rhino)
    return [score / samples for score in scores]


@dataclass(slots=True)
class Risk:
    """What one card risked over the samples: chances (0..1) and mean points."""

    card: int
    samples: int = 0
    points: float = 0.0
    free: float = 0.0
    dung: float = 0.0
    rammed: float = 0.0
    kali: float = 0.0
    kali_points: float = 0.0
    dung_spaces: dict[int, int] = field(default_factory=dict)


def risks(view: KnownState, rng: random.Random, samples: int) -> list[Risk]:
    """Per card in hand, what it risks this round, by cause (for hints)."""
    names = [*(str(seat) for seat in range(view.players)), KALI]
    mine = names[view.me]
    me = view.me
    result = [Risk(card) for card in view.my_hand]
    for _ in range(samples):
        cards = sample_replies(view, rng)
        for risk in result:
            cards[me] = risk.card
            board = view.board.copy()
            events: list[Event] = []
            board.play_round(cards, names, events)
            points = dung = rammed = kali = 0
            for event in events:
                if isinstance(event, Penalty) and event.player == mine:
                    points += event.points
                    if event.for_kali:
                        kali += event.points
                    elif event.cause == "dung":
                        dung += 1
                        space = board.positions[me]
                        risk.dung_spaces[space] = risk.dung_spaces.get(space, 0) + 1
                    else:
                        rammed += 1
            risk.samples += 1
            risk.points += points
            risk.free += points == 0
            risk.dung += dung > 0
            risk.rammed += rammed > 0
            risk.kali += kali > 0
            risk.kali_points += kali
    for risk in result:
        count = max(risk.samples, 1)
        risk.points /= count
        risk.free /= count
        risk.dung /= count
        risk.rammed /= count
        risk.kali /= count
        risk.kali_points /= count
    return result
