"""The table's day: since when the board page's leaderboard counts games.

A day begins at local midnight, or later when the host says "new day" (a booth that
opens twice in one day, or a test run before the doors open). The host's start is
kept in the store's settings, so a restart keeps the same day.
"""

from __future__ import annotations

import time
from datetime import datetime

from kalimambo.web.storage.store import SettingKey, Store

SETTING = SettingKey.NEW_DAY


def local_midnight(now: float) -> float:
    """The Unix time of the last local midnight at or before ``now``."""
    moment = datetime.fromtimestamp(now).astimezone()
    return moment.replace(hour=0, minute=0, second=0, microsecond=0).timestamp()


def next_midnight(now: float) -> float:
    """The Unix time of the next local midnight after ``now`` (a day of 23 or 25 hours
    too)."""
    return local_midnight(local_midnight(now) + 26 * 3600)


class Day:
    """When the table's day began: local midnight, or the host's "new day" if later."""

    def __init__(self, store: Store) -> None:
        self.store = store
        stored = store.setting(SETTING, None)
        self.begun: float | None = float(stored) if isinstance(stored, int | float) else None

    def start(self, now: float | None = None) -> float:
        """The day's start: what the board page asks ``/api/v1/stats?since=`` with."""
        midnight = local_midnight(time.time() if now is None else now)
        return midnight if self.begun is None else max(midnight, self.begun)

    def seconds_left(self, now: float | None = None) -> float:
        """Until the day's start moves on by itself (the next local midnight): the table's
        clock wakes then, so the board's leaderboard starts the new day unasked."""
        moment = time.time() if now is None else now
        return max(0.0, next_midnight(moment) - moment)

    def begin(self, now: float | None = None) -> float:
        """A new day from now (saved before it counts); answers its start."""
        moment = time.time() if now is None else now
        self.store.set_settings({SETTING: moment})
        self.begun = moment
        return moment
