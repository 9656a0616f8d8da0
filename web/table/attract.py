"""Attract mode's wait and choice: how long the booth's lobby has sat empty, and the
day's most eventful finished game to show then, with why.  The replay that shows it is
``replay.Replays``'s; the clock is the table's (``now`` is passed in)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kalimambo.web.storage.store import Store
from kalimambo.web.table.highlights import Highlight, most_eventful
from kalimambo.web.table.storedgame import ReplayGame, load_game


@dataclass(slots=True)
class AttractMode:
    """The empty lobby's idle timer, and the day's finished games (each loaded once)."""

    store: Store
    day_start: Callable[[], float]
    idle_since: float | None = None
    """When the lobby became empty (None while it is not, or attract mode gave up)."""
    _gave_up: bool = False
    _cache: dict[tuple[int, float | None], ReplayGame | None] = field(default_factory=dict)

    def watch(self, idle: bool, now: float) -> None:
        """After every change of the table: the timer runs while the lobby is ``idle``."""
        if not idle:
            self.idle_since, self._gave_up = None, False
        elif self.idle_since is None and not self._gave_up:
            self.idle_since = now

    def wait_again(self, now: float) -> None:
        """An idle lobby waits the whole time again (after a replay was stopped)."""
        if self.idle_since is not None:
            self.idle_since = now

    def settings_changed(self, now: float) -> None:
        """The host changed the booth's settings: the wait starts again, and a lobby that
        gave up looks for a game again once it is next idle."""
        self._gave_up = False
        self.wait_again(now)

    def due(self, after_s: float) -> float | None:
        """When the lobby will have sat empty ``after_s``; None while it is not idle."""
        return None if self.idle_since is None else self.idle_since + after_s

    def pick(self) -> tuple[ReplayGame, Highlight] | None:
        """The day's most eventful finished game and why.  None when nothing finished
        today: then attract mode gives up until the lobby fills and empties again (or
        the settings change), and the strip's idle animation stays."""
        picked = most_eventful(self._day_games())
        if picked is None:
            self.idle_since, self._gave_up = None, True
        return picked

    def _day_games(self) -> list[ReplayGame]:
        since = self.day_start()
        games = []
        for row in self.store.games():
            if row.finished is None or row.finished < since:
                continue
            key = (row.id, row.finished)
            if key not in self._cache:
                self._cache[key] = load_game(self.store, row)
            found = self._cache[key]
            if found is not None:
                games.append(found)
        return games
