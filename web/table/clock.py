"""The table's clock: it wakes the table when something is due (the playback's next step
in auto pacing, a replay's, the empty lobby's attract time, the next try to write a store
kept in memory back) and at local midnight (the leaderboard's day moves on unasked).

The table owns it (``Table.clock_start``); its timers come from ``timer``, like
``threading.Timer`` (the default), so a test can drive it by hand.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from kalimambo.web.table.publisher import Change
    from kalimambo.web.table.table import Table

log = logging.getLogger(__name__)


class Timer(Protocol):
    """What the clock needs of a timer (``threading.Timer`` has it)."""

    daemon: bool

    def start(self) -> None: ...

    def cancel(self) -> None: ...


TimerFactory = Callable[[float, Callable[[], None]], Timer]


class TableClock:
    """One timer for what is due next, one for the next midnight."""

    def __init__(self, table: Table, timer: TimerFactory = threading.Timer) -> None:
        self.table = table
        self.timer = timer
        self._due_timer: Timer | None = None
        self._due: float | None = None
        self._guard = threading.Lock()
        self.midnight_timer: Timer | None = None
        self._running = False
        self._closing = False

    def start(self) -> None:
        """Running from now on (a table made for a test without it moves only by hand)."""
        self._running = True
        self.changed()  # a restart mid-playback plays the round again
        self._arm_midnight()

    def changed(self, _change: Change | None = None) -> None:
        """After every change: wake up when the table's next thing is due."""
        if not self._running:
            return
        due = self.table.due()
        with self._guard:
            if self._closing or (due == self._due and self._due_timer is not None):
                return
            if self._due_timer is not None:
                self._due_timer.cancel()
            self._due_timer, self._due = None, due
            if due is None:
                return
            timer = self.timer(max(0.0, due - self.table.clock()), self._fire)
            timer.daemon = True
            self._due_timer = timer
        timer.start()

    def _fire(self) -> None:
        with self._guard:
            self._due_timer, self._due = None, None
            if self._closing:  # a timer that fired as the table closed
                return
        try:
            moved = self.table.tick()
        except Exception:  # a failing store must not stop the clock for good
            log.exception("playback step failed")
            moved = False
        if not moved:  # woke a little early, or nothing to do
            self.changed()

    def _arm_midnight(self) -> None:
        if self._closing:
            return
        timer = self.timer(self.table.day.seconds_left() + 1.0, self.midnight)
        timer.daemon = True
        self.midnight_timer = timer
        timer.start()

    def midnight(self) -> None:
        """Local midnight: the view's ``day_start`` moves on, so the board's leaderboard
        starts the new day without waiting for another change; then the next one."""
        try:
            if self.table.day.start() != self.table.current.view.get("day_start"):
                self.table.refresh()
        except Exception:  # a failing store must not stop the next day's timer
            log.exception("new day failed")
        self._arm_midnight()

    def close(self) -> None:
        self._closing = True
        with self._guard:
            if self._due_timer is not None:
                self._due_timer.cancel()
            self._due_timer = None
        if self.midnight_timer is not None:
            self.midnight_timer.cancel()
