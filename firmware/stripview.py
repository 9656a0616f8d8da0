"""What the strip draws from, read once from the table's public view.

The lights process is sent the table's public view itself (whole on connecting, then
each change's JSON Patch: docs/LIGHTS-PROTOCOL.md), the same bytes the event streams
carry, so every change is diffed once, for every listener. Its shape is described once,
by ``PublicView`` (web/core/viewtypes.py), for both processes. ``read_strip`` takes from
it what the strip draws, into typed values, once per message: the board (during a replay
the replay's), the playback's events as the engine's own, the pieces to move by hand,
and what the change did, told beside the view. Whatever is missing or odd is left out
rather than refused: the strip shows what it can, and the table never stops for it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kalimambo.engine.events import Event, event_from_dict
from kalimambo.engine.timeline import BoardState
from kalimambo.engine.values import is_int
from kalimambo.web.core.viewtypes import Happening, PublicView


@dataclass(frozen=True, slots=True)
class StripSeat:
    """A seat as the strip shows it: its figure's name and wooden colour, and whether it
    has picked (None: the view does not say)."""

    name: str
    colour: str | None
    picked: bool | None


@dataclass(frozen=True, slots=True)
class Told:
    """One entry of a change's ``happened``, told beside its patch
    (docs/API.md#what-happened), with the fields the strip acts on."""

    type: str
    kind: str = ""
    """A ``step_shown``'s step kind (the type of its first event)."""
    first: int = 0
    count: int = 0
    seconds: float = 0.0
    skipped: bool = False
    replay: bool = False
    """A replayed round's step (its events are the replay's board's)."""


@dataclass(frozen=True, slots=True)
class PieceMark:
    """A wooden piece to move by hand (the view's ``placing``): its kind, its name (an
    explorer's or Kali's) and the space it goes to."""

    piece: str
    name: str | None
    to: int


@dataclass(frozen=True, slots=True)
class StripPlayback:
    """The round played back: the cursor and the events shown so far, typed as the engine
    made them (None for one this strip does not know: a newer table's)."""

    round: int
    step: int
    shown: tuple[Event | None, ...]


@dataclass(frozen=True, slots=True)
class StripState:
    """What the strip draws from, as of one message of the table."""

    phase: str = "lobby"
    game_id: str = ""
    round: int = 0
    track_length: int | None = None
    seats: tuple[StripSeat, ...] = ()
    board: BoardState = field(default_factory=lambda: BoardState(None, {}, {}))
    """Mambo and the figures, in the game's spaces (``track_length``)."""
    dung: tuple[int, ...] = ()
    order: tuple[str, ...] = ()
    """The set-up's order of the explorers (the set-up's animation lights them so)."""
    winners: tuple[str, ...] = ()
    playback: StripPlayback | None = None
    placing: tuple[PieceMark, ...] = ()
    happened: tuple[Told, ...] = ()
    replay: bool = False
    """A replay or attract mode is on: the board is the replayed game's."""

    def shown(self, first: int, count: int | None = None) -> list[Event]:
        """The playback's events ``shown[first:first + count]`` (to the end without
        ``count``) that this strip knows."""
        events = self.playback.shown if self.playback else ()
        end = None if count is None else first + count
        return [event for event in events[first:end] if event is not None]


def _int(value: Any, default: int = 0) -> int:
    return value if is_int(value) else default


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list) else ()


def _event(value: Any) -> Event | None:
    if not isinstance(value, Mapping):
        return None
    try:
        return event_from_dict(value)
    except (KeyError, TypeError, ValueError):
        return None


def _seat(value: Any) -> StripSeat | None:
    if not isinstance(value, Mapping) or _str(value.get("name")) is None:
        return None
    picked = value.get("picked")
    return StripSeat(value["name"], _str(value.get("colour")),
                     picked if isinstance(picked, bool) else None)


def _told(value: Any) -> Told | None:
    if not isinstance(value, Mapping) or _str(value.get("type")) is None:
        return None
    seconds = value.get("seconds")
    return Told(value["type"], str(value.get("kind") or ""), _int(value.get("first")),
                _int(value.get("count")),
                float(seconds) if isinstance(seconds, int | float) else 0.0,
                bool(value.get("skipped")), bool(value.get("replay")))


def _mark(value: Any) -> PieceMark | None:
    if not isinstance(value, Mapping) or not is_int(value.get("to")) or value["to"] < 0:
        return None
    return PieceMark(str(value.get("piece")), _str(value.get("name")), value["to"])


def _board(view: Mapping[str, Any]) -> BoardState:
    positions = view.get("positions")
    figures = ({str(name): space for name, space in positions.items() if is_int(space)}
               if isinstance(positions, Mapping) else {})
    rhino = view.get("rhino")
    return BoardState(rhino if is_int(rhino) else None, figures, {})


def read_strip(view: PublicView | Mapping[str, Any],
               happened: Sequence[Happening | Mapping[str, Any]] = ()) -> StripState:
    """What the strip draws from in the table's public view: its board keys (during a
    replay the replay's board, in the same keys), the playback and the pieces to move by
    hand (the table's own, never during a replay); and what the change did
    (``happened``, told beside the view: docs/API.md#what-happened)."""
    running = view.get("replay")
    replaying = isinstance(running, Mapping) and isinstance(running.get("board"), Mapping)
    board: Mapping[str, Any] = ({**view, **running["board"]} if replaying  # type: ignore[index]
                                else view)
    playback = board.get("playback")
    setup = board.get("setup")
    placing = view.get("placing")
    length = board.get("track_length")
    return StripState(
        phase=str(board.get("phase") or "lobby"),
        game_id=str(board.get("game_id")),
        round=_int(board.get("round")),
        track_length=length if is_int(length) and length > 0 else None,
        seats=tuple(s for s in map(_seat, _list(board.get("seats"))) if s is not None),
        board=_board(board),
        dung=tuple(d for d in _list(board.get("dung")) if is_int(d)),
        order=tuple(str(name) for name in _list(setup.get("order")))
        if isinstance(setup, Mapping) else (),
        winners=tuple(str(name) for name in _list(board.get("winners"))),
        playback=StripPlayback(_int(playback.get("round")), _int(playback.get("step")),
                               tuple(map(_event, _list(playback.get("shown")))))
        if isinstance(playback, Mapping) else None,
        placing=() if replaying or not isinstance(placing, Mapping) else tuple(
            m for m in map(_mark, _list(placing.get("moves"))) if m is not None),
        happened=tuple(t for t in map(_told, happened) if t is not None),
        replay=replaying)
