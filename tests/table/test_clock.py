"""The table's own clock (web/table/clock.py), driven by hand through its injected timer:
it sleeps until the table's next step is due and then shows it, waits for nothing while
nothing is due, re-arms at midnight, and stops with the table. The same clock runs on
threading.Timer in every other test of a running table."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from tests.table.test_timeline import NAMES, Clock, make_table, pick_all


class HandTimer:
    """A timer that fires only when the test says so."""

    made: ClassVar[list[HandTimer]] = []

    def __init__(self, interval: float, function: Callable[[], None]) -> None:
        self.interval, self.function = interval, function
        self.daemon = False
        self.started = self.cancelled = self.fired = False
        HandTimer.made.append(self)

    def start(self) -> None:
        self.started = True

    def cancel(self) -> None:
        self.cancelled = True

    def fire(self, clock: Clock) -> None:
        """Its time has come."""
        clock.now += self.interval
        self.fired = True
        self.function()


def waiting() -> list[HandTimer]:
    return [t for t in HandTimer.made if t.started and not (t.cancelled or t.fired)]


def test_the_clock_shows_each_step_when_it_is_due(tmp_path: Path) -> None:
    HandTimer.made = []
    clock = Clock()
    table = make_table(tmp_path, clock, pacing="auto")
    table.timekeeper.timer = HandTimer
    tokens = {name: table.join(name)[1] for name in NAMES}
    table.start({"rhino": 0, "order": NAMES, "dung": [10, 20]}, seed=4)
    assert waiting() == []  # a table not started moves only by hand
    table.start_clock()
    midnight = [t for t in waiting() if t.function == table.timekeeper.midnight]
    assert len(midnight) == 1 and 0 < midnight[0].interval <= 25 * 3600 + 1
    assert len(waiting()) == 1  # picking: nothing else is due
    pick_all(table, tokens, 1)
    assert table.public_view()["phase"] == "playing"
    due = [t for t in waiting() if t is not midnight[0]]
    assert len(due) == 1 and due[0].interval > 0
    first = table.public_view()["playback"]
    due[0].fire(clock)  # the next step shows
    later = table.public_view()["playback"]
    assert later is not None and first is not None and later["step"] > first["step"]
    steps = 0
    while table.public_view()["phase"] == "playing" and steps < 200:
        (timer,) = [t for t in waiting() if t is not midnight[0]]
        timer.fire(clock)  # (the clock arms the next one)
        steps += 1
    assert table.public_view()["phase"] == "picking" and table.public_view()["round"] == 2
    assert [t for t in waiting() if t is not midnight[0]] == []  # nothing due while picking
    table.close_clock()
    assert waiting() == []
