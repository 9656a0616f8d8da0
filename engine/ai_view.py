"""What a computer player may know: the public state of a game, nothing more.

Every played card is revealed, so each seat's remaining hand is public; what
stays secret is this round's choices and the *order* of Kali's deck.  A
``KnownState`` holds Kali's remaining cards sorted, so no player built on it
can peek at the order even by accident.
"""

from __future__ import annotations

from dataclasses import dataclass

from kalimambo.engine.errors import PlayError
from kalimambo.engine.game import Game
from kalimambo.engine.rules import Board
from kalimambo.engine.values import is_int


@dataclass(frozen=True, slots=True)
class KnownState:
    """The public state seen from one seat.

    ``board`` is a private copy (players may play on it); ``hands[i]`` is seat
    ``i``'s remaining cards, sorted; ``kali_cards`` Kali's remaining cards,
    sorted (the order is secret); ``me`` the deciding seat.
    """

    board: Board
    hands: tuple[tuple[int, ...], ...]
    kali_cards: tuple[int, ...]
    me: int

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def rounds_left(self) -> int:
        return len(self.kali_cards)

    @property
    def my_hand(self) -> tuple[int, ...]:
        return self.hands[self.me]


def seat_of(game: Game, player: str | int) -> int:
    """A seat index from a name or an index; ``PlayError`` for anything else."""
    if is_int(player):
        if 0 <= player < len(game.players):
            return player
        raise PlayError("unknown_player", f"There is no seat {player} at this table.")
    if isinstance(player, str) and player in game.seat:
        return game.seat[player]
    raise PlayError("unknown_player", f"{player!r} is not at this table.")


def known_state(game: Game, player: str | int) -> KnownState:
    """The public state for ``player``; ``PlayError`` when the game is over."""
    me = seat_of(game, player)
    if game.finished:
        raise PlayError("game_over", "The game is over: no more cards to play.")
    return KnownState(
        board=game.board.copy(),
        hands=tuple(tuple(sorted(hand)) for hand in game.hands),
        kali_cards=tuple(sorted(game.kali_deck)),
        me=me,
    )
