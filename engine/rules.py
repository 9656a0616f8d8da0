"""The rules of a round (RULES.md), on a compact board state.

Figures are numbered: players ``0..n-1`` in seat order, Kali is ``n``.  The
board keeps ``order``, the figures from the last (directly in front of Mambo) to
the front, because every rule asks "who is behind whom": a tie goes to the figure
furthest behind, a move goes ahead of the front, and Mambo runs when the last one
leaves.  Keeping that list up to date is much cheaper than measuring distances
again for every move, which matters because the computer players play out
thousands of games per decision.
"""

from __future__ import annotations

from collections.abc import Sequence

from kalimambo.engine.events import (
    KALI,
    Dung,
    Event,
    Move,
    Penalty,
    PenaltyCause,
    RhinoRun,
    Stay,
)

CARD_VALUES = 12
"""Cards run 0..11; a game has 12 rounds."""
ROUNDS = CARD_VALUES
DUNG_POINTS = 3
MIN_PLAYERS = 3
MAX_PLAYERS = 7
EXPLORER_COLOURS = ("green", "yellow", "violet", "red", "blue", "orange", "natural")
"""The wooden explorers' colours, one per player, in the order seats are given them."""
MAX_HEAPS = 6
DEFAULT_TRACK_LENGTH = 32
MAX_TRACK_LENGTH = 1000


def forward(start: int, end: int, length: int) -> int:
    """How many spaces forward from ``start`` to ``end`` on a track of ``length``
    (0 .. length - 1): the one ring sum of the Python side (the pages' is
    ``common/ring.js`` ``forward``)."""
    return (end - start) % length


class Board:
    """Where everything stands and the minus points so far.

    Mutable and cheap to copy; ``play_round`` changes it in place.
    """

    __slots__ = ("dung", "is_dung", "length", "minus", "order", "positions", "rhino")

    def __init__(self, length: int, rhino: int, positions: Sequence[int],
                 dung: Sequence[int], minus: Sequence[int] | None = None) -> None:
        self.length = length
        self.rhino = rhino
        self.positions = list(positions)
        self.dung = tuple(sorted(dung))
        self.is_dung = [False] * length
        for space in self.dung:
            self.is_dung[space] = True
        players = len(self.positions) - 1
        self.minus = list(minus) if minus is not None else [0] * players
        self.order = sorted(range(len(self.positions)),
                            key=lambda f: forward(rhino, self.positions[f], length))

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.length = self.length
        other.rhino = self.rhino
        other.positions = self.positions[:]
        other.dung = self.dung
        other.is_dung = self.is_dung
        other.minus = self.minus[:]
        other.order = self.order[:]
        return other

    def distance(self, figure: int) -> int:
        """How many spaces ``figure`` stands ahead of Mambo."""
        return forward(self.rhino, self.positions[figure], self.length)

    def play_round(self, cards: Sequence[int], names: Sequence[str] | None = None,
                   events: list[Event] | None = None) -> None:
        """Resolve one round: ``cards[f]`` is figure ``f``'s card (Kali's last).

        When ``events`` is given, every step is appended to it, with figures
        named by ``names`` (players in seat order, then Kali).
        """
        length = self.length
        positions = self.positions
        order = self.order
        is_dung = self.is_dung
        rhino = self.rhino
        # Stable sort: equal cards keep the rear-to-front order, so the first
        # figure of each value is the one furthest behind (the tie rule).  Nobody
        # with that value moves before its turn, so this order still holds then.
        sequence = sorted(order, key=cards.__getitem__, reverse=True)
        previous = -1
        actor = -1
        for figure in sequence:
            card = cards[figure]
            if card == previous:
                if events is not None and names is not None:
                    if card:
                        events.append(Stay(names[figure], card, positions[figure], "tie",
                                           names[actor]))
                    else:
                        events.append(Stay(names[figure], card, positions[figure], "zero"))
                continue
            previous = card
            actor = figure
            front = order[-1]
            if card == 0 or front == figure:
                if events is not None and names is not None:
                    events.append(Stay(names[figure], card, positions[figure],
                                       "zero" if card == 0 else "front"))
                continue
            was_last = order[0] == figure
            start = positions[figure]
            target = positions[front] + 1
            if target == length:
                target = 0
            passed_rhino = target == rhino
            order.remove(figure)
            if passed_rhino:
                target = self._first_free_after_rhino(start)
                distance = forward(rhino, target, length)
                index = 0
                while forward(rhino, positions[order[index]], length) < distance:
                    index += 1
                order.insert(index, figure)
            else:
                order.append(figure)
            positions[figure] = target
            if events is not None and names is not None:
                events.append(Move(names[figure], card, start, target, passed_rhino))
            if is_dung[target]:
                if events is not None and names is not None:
                    events.append(Dung(names[figure], target))
                self._charge(figure, DUNG_POINTS, "dung", cards, names, events)
            if was_last:
                rammed = order[0]
                new_rhino = positions[rammed] - 1
                if new_rhino < 0:
                    new_rhino += length
                spaces = forward(rhino, new_rhino, length)
                if events is not None and names is not None:
                    events.append(RhinoRun(rhino, new_rhino, spaces, names[rammed]))
                rhino = self.rhino = new_rhino
                self._charge(rammed, spaces, "rammed", cards, names, events)

    def _charge(self, figure: int, points: int, cause: PenaltyCause, cards: Sequence[int],
                names: Sequence[str] | None, events: list[Event] | None) -> None:
        """``figure`` pays ``points``; Kali's go to every player with the lowest card
        (rule 9)."""
        minus = self.minus
        if figure == len(cards) - 1:
            for payer in _lowest_card_players(cards):
                minus[payer] += points
                if events is not None and names is not None:
                    events.append(Penalty(names[payer], points, cause, KALI, minus[payer],
                                          True))
        else:
            minus[figure] += points
            if events is not None and names is not None:
                events.append(Penalty(names[figure], points, cause, names[figure],
                                      minus[figure]))

    def _first_free_after_rhino(self, own_space: int) -> int:
        """Loop-full ruling: the first space past Mambo holding no figure."""
        taken = set(self.positions)
        taken.add(own_space)
        taken.add(self.rhino)
        space = self.rhino
        while True:
            space = (space + 1) % self.length
            if space not in taken:
                return space


def _lowest_card_players(cards: Sequence[int]) -> list[int]:
    """Who pays for Kali: every player with the lowest card (Kali's excluded)."""
    players = cards[:-1]
    lowest = min(players)
    return [player for player, card in enumerate(players) if card == lowest]


def leaders(minus: Sequence[int]) -> list[int]:
    """Players with the fewest minus points, in seat order (ties all win)."""
    best = min(minus)
    return [player for player, points in enumerate(minus) if points == best]
