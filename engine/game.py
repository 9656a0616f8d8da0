"""A game in progress: the board plus hands, Kali's deck, the rounds so far and undo."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from kalimambo.engine.errors import PlayError
from kalimambo.engine.events import KALI, Event, Reveal, RoundEnd
from kalimambo.engine.rules import CARD_VALUES, DEFAULT_TRACK_LENGTH, ROUNDS, Board, leaders
from kalimambo.engine.setup import (
    Setup,
    check_players,
    check_setup,
    check_track_length,
    is_card,
)

RECORD_FORMAT = "kalimambo-record/1"


class PlayedRound(NamedTuple):
    """One round's cards: ``cards[i]`` is seat ``i``'s card, ``kali`` Kali's.

    A named tuple rather than a dataclass: resolving a record builds thousands a second.
    """

    cards: tuple[int, ...]
    kali: int


def record_dict(players: Sequence[str], track_length: int, setup: Setup,
                rounds: Sequence[PlayedRound]) -> dict[str, Any]:
    """A ``kalimambo-record/1`` as JSON-ready data."""
    return {
        "format": RECORD_FORMAT,
        "track_length": track_length,
        "players": list(players),
        "setup": setup.to_dict(),
        "rounds": [{"cards": dict(zip(players, played.cards, strict=True)),
                    "kali": played.kali} for played in rounds],
    }


def shuffled_deck(seed: int | str | None) -> list[int]:
    """Kali's twelve cards in a seeded random order; the top card is the last."""
    deck = list(range(CARD_VALUES))
    random.Random(seed).shuffle(deck)
    return deck


class Game:
    """One game of Kalimambo, from set-up to the end of round 12.

    ``play_round`` checks the cards against the hands, resolves the round by the
    rules and returns its events; ``undo`` takes the last round back exactly.
    """

    def __init__(self, players: Sequence[str], setup: Setup,
                 track_length: int = DEFAULT_TRACK_LENGTH,
                 kali_deck: Sequence[int] | None = None, seed: int | str | None = None
                 ) -> None:
        self.players = check_players(list(players))
        self.track_length = check_track_length(track_length, len(self.players),
                                               len(setup.dung))
        self.setup = check_setup(setup.to_dict(), self.players, self.track_length)
        self.names: tuple[str, ...] = (*self.players, KALI)
        self.seat = {name: i for i, name in enumerate(self.players)}
        start = self.setup.positions(self.track_length)
        self.board = Board(self.track_length, self.setup.rhino,
                           [start[name] for name in self.names], self.setup.dung)
        self.hands: list[set[int]] = [set(range(CARD_VALUES)) for _ in self.players]
        self.kali_deck: list[int] = (list(kali_deck) if kali_deck is not None
                                     else shuffled_deck(seed))
        if sorted(self.kali_deck) != list(range(CARD_VALUES)):
            raise ValueError(f"Kali's deck must hold each card 0..{CARD_VALUES - 1} once")
        self.rounds: list[PlayedRound] = []
        self._boards_before: list[Board] = []

    # -- what the table asks --------------------------------------------------
    @property
    def rounds_played(self) -> int:
        return len(self.rounds)

    @property
    def current_round(self) -> int:
        """The round being picked now, counted from 1 (13 once the game is over)."""
        return len(self.rounds) + 1

    @property
    def finished(self) -> bool:
        return len(self.rounds) >= ROUNDS

    def hand(self, player: str) -> list[int]:
        return sorted(self.hands[self._seat_of(player)])

    def positions(self) -> dict[str, int]:
        return dict(zip(self.names, self.board.positions, strict=True))

    def minus_points(self) -> dict[str, int]:
        return dict(zip(self.players, self.board.minus, strict=True))

    def winners(self) -> list[str]:
        """The players with the fewest minus points, in seat order."""
        return [self.players[i] for i in leaders(self.board.minus)]

    def check_card(self, player: str, card: object) -> int:
        """Raise ``PlayError`` unless ``player`` may play ``card`` this round."""
        seat = self._seat_of(player)
        if self.finished:
            raise PlayError("game_over", "The game is over: no more cards to play.")
        if not is_card(card):
            raise PlayError("bad_card", f"There is no card {card!r}: "
                                        f"cards run 0 to {CARD_VALUES - 1}.")
        if card not in self.hands[seat]:
            raise PlayError("card_not_in_hand", f"You already played your {card}.")
        return card

    # -- playing ----------------------------------------------------------------
    def play_round(self, cards: Mapping[str, int], kali: int | None = None) -> list[Event]:
        """Play every player's card (and Kali's top card, or ``kali``); return the events.

        Nothing changes when a card is refused.
        """
        for name in cards:
            if name not in self.seat:
                raise PlayError("unknown_player", f"{name!r} is not at this table.")
        for name in self.players:
            if name not in cards:
                raise PlayError("missing_card", f"{name} has not picked a card yet.")
            self.check_card(name, cards[name])
        if kali is None:
            kali = self.kali_deck[-1]
        elif kali not in self.kali_deck:
            raise PlayError("card_not_in_hand", f"Kali already played the {kali}.")
        played = PlayedRound(tuple(cards[name] for name in self.players), kali)
        self._boards_before.append(self.board.copy())
        self.kali_deck.remove(kali)
        for seat, card in enumerate(played.cards):
            self.hands[seat].discard(card)
        self.rounds.append(played)
        events: list[Event] = [Reveal(len(self.rounds), dict(cards), kali)]
        self.board.play_round((*played.cards, kali), self.names, events)
        events.append(RoundEnd(len(self.rounds), self.minus_points(), self.finished,
                               tuple(self.winners()) if self.finished else ()))
        return events

    def undo(self) -> PlayedRound:
        """Take the last round back: cards to the hands, Kali's card on top of his deck."""
        if not self.rounds:
            raise PlayError("nothing_to_undo", "No round has been played yet.")
        played = self.rounds.pop()
        self.board = self._boards_before.pop()
        self.kali_deck.append(played.kali)
        for seat, card in enumerate(played.cards):
            self.hands[seat].add(card)
        return played

    # -- records ---------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """The game so far as a ``kalimambo-record/1`` (RECORD.md)."""
        return record_dict(self.players, self.track_length, self.setup, self.rounds)

    def _seat_of(self, player: str) -> int:
        try:
            return self.seat[player]
        except KeyError:
            raise PlayError("unknown_player", f"{player!r} is not at this table.") from None
