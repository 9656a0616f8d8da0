"""What the table's clock, "next" and "skip" act on: the table's own game, or a replay.

A replay is a mode of the table: while one runs (``Replays.active``), the clock, the
host's "next" and "skip" and the board's button move the replayed round instead of the
table's, which has nothing playing then (replays start only in the lobby or after the
game).  The table picks the mode in one place (``Table.mode``) and each command asks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from kalimambo.web.core.happenings import TableEvent
from kalimambo.web.core.state import StateMachine
from kalimambo.web.core.viewtypes import PublicView
from kalimambo.web.table.replay import Replays


class PlaybackMode(Protocol):
    """A playback the table's commands drive, and the clock that paces it."""

    def due(self) -> float | None:
        """When the clock must call ``tick`` (None: nothing is waiting)."""

    def tick(self, now: float) -> list[TableEvent]:
        """The clock: what its time has brought (nothing: an empty list)."""

    def next_step(self, now: float) -> list[TableEvent]:
        """"Next": one more step (409 ``not_playing`` if nothing plays)."""

    def skip_step(self, now: float) -> list[TableEvent]:
        """One step of "skip", shown as a jump; skipping repeats it until the round's
        playback has ended (``Table.skip``)."""

    def answer(self, view: PublicView) -> Mapping[str, Any]:
        """The playback as "next" and "skip" answer it, from the view just made."""


class LiveMode:
    """The table's own game; in its lobby, the clock also starts attract mode."""

    def __init__(self, state: StateMachine, replays: Replays) -> None:
        self.state = state
        self.replays = replays

    def due(self) -> float | None:
        waiting = (self.state.due, self.replays.due())
        return min((due for due in waiting if due is not None), default=None)

    def tick(self, now: float) -> list[TableEvent]:
        return self.state.tick(now) or self.replays.attract(now, self.state.settings.pause_ms)

    def next_step(self, now: float) -> list[TableEvent]:
        return self.state.next_step(now)

    def skip_step(self, now: float) -> list[TableEvent]:
        return self.state.skip_step()

    def answer(self, view: PublicView) -> Mapping[str, Any]:
        return view["playback"] or {}


class ReplayMode:
    """A stored game played back on its own board (``replay``)."""

    def __init__(self, state: StateMachine, replays: Replays) -> None:
        self.state = state
        self.replays = replays

    def due(self) -> float | None:
        return self.replays.due()

    def tick(self, now: float) -> list[TableEvent]:
        return self.replays.tick(now, self.state.settings.pause_ms)

    def next_step(self, now: float) -> list[TableEvent]:
        return self.replays.next(now)

    def skip_step(self, now: float) -> list[TableEvent]:
        return self.replays.skip_step(now)

    def answer(self, view: PublicView) -> Mapping[str, Any]:
        replay = view["replay"]
        return replay["board"]["playback"] if replay else {}
