"""The wooden figures to put by hand: what the people must do when the board jumps.

A step of the playback moves one piece and every display shows it, so the people
follow it.  An undo, a skip, a restart mid-round or a new game's set-up makes the
board jump instead: the table works out here which pieces stand elsewhere than the
displays last showed, and every display says so ("Ana: back from space 12 to 5") and
the strip blinks each one's target, until the next reveal or the host's "Done".

Pure: boards in, a ``Placing`` out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kalimambo.engine.events import KALI
from kalimambo.engine.timeline import BoardState
from kalimambo.web.core.viewtypes import PLACING_REASONS, PieceMoveView, PlacingView

REASONS = PLACING_REASONS


@dataclass(frozen=True, slots=True)
class PieceMove:
    """One piece to move by hand: from ``from_space`` (None: wherever it stands, or off
    the board) to ``to_space``."""

    piece: str
    """One of ``viewtypes.PIECES``: a dung heap only when a new game is set up."""
    name: str | None
    """An explorer's player name (Kali's figure: "Kali"); None for Mambo and heaps."""
    from_space: int | None
    to_space: int

    def public(self) -> PieceMoveView:
        """Without the keys that are None (a set-up's seven names of 20 letters and
        their moves fit in one small message)."""
        move: PieceMoveView = {"piece": self.piece, "to": self.to_space}
        if self.name is not None:
            move["name"] = self.name
        if self.from_space is not None:
            move["from"] = self.from_space
        return move


def figure(name: str, from_space: int | None, to_space: int) -> PieceMove:
    """A figure's move: an explorer's, or Kali's."""
    return PieceMove("kali" if name == KALI else "explorer", name, from_space, to_space)


@dataclass(frozen=True, slots=True)
class Placing:
    """Why the board jumped, the round it concerns, and each piece to move."""

    reason: str
    round: int
    moves: tuple[PieceMove, ...]

    def __post_init__(self) -> None:
        if self.reason not in REASONS:
            raise ValueError(f"reason must be one of {REASONS}, not {self.reason!r}")

    def public(self) -> PlacingView:
        """The view's ``placing`` (also how the store keeps it)."""
        return {"reason": self.reason, "round": self.round,
                "moves": [move.public() for move in self.moves]}

    @classmethod
    def from_public(cls, data: Any) -> Placing | None:
        """A placing as ``public`` wrote it (the store's copy); None if it is not one."""
        try:
            moves = tuple(PieceMove(str(m["piece"]), m.get("name"), m.get("from"),
                                    int(m["to"])) for m in data["moves"])
            return cls(str(data["reason"]), int(data["round"]), moves)
        except (KeyError, TypeError, ValueError):
            return None


def _order(players: list[str]) -> list[str]:
    """Explorers in seat order, then Kali, then Mambo: the order the displays list."""
    return [name for name in players if name != KALI] + [KALI] * (KALI in players)


def jump(reason: str, round_no: int, shown: BoardState, now: BoardState) -> Placing | None:
    """The pieces that stand elsewhere on ``now`` than on ``shown`` (the board the
    displays last showed, so the people's); None when nothing moved."""
    moves = [figure(name, shown.positions.get(name), now.positions[name])
             for name in _order(list(now.positions))
             if shown.positions.get(name) != now.positions[name]]
    if now.rhino is not None and shown.rhino != now.rhino:
        moves.append(PieceMove("mambo", None, shown.rhino, now.rhino))
    return Placing(reason, round_no, tuple(moves)) if moves else None


def set_up(now: BoardState, dung: tuple[int, ...]) -> Placing:
    """Every piece of a new game's board, heaps first, as the set-up places them."""
    moves = [PieceMove("heap", None, None, space) for space in dung]
    if now.rhino is not None:
        moves.append(PieceMove("mambo", None, None, now.rhino))
    moves += [figure(name, None, now.positions[name])
              for name in _order(list(now.positions))]
    return Placing("setup", 1, tuple(moves))


def restarted(round_no: int, before: BoardState, after: BoardState) -> Placing | None:
    """The table restarted mid-playback and plays round ``round_no`` again from its
    start: every piece the round moves goes back where the round found it (the people
    may have moved it any part of the way: no "from")."""
    moves = [figure(name, None, before.positions[name])
             for name in _order(list(before.positions))
             if after.positions.get(name) != before.positions[name]]
    if before.rhino is not None and after.rhino != before.rhino:
        moves.append(PieceMove("mambo", None, None, before.rhino))
    return Placing("restart", round_no, tuple(moves)) if moves else None
