"""The table's records: the game being played as a ``kalimambo-record/1``, and the
archive's games (the host's list, a stored game's record).

Read under the table's lock (the store has one connection, and a command may be writing
on it); the archive's list is two queries whatever its size.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kalimambo.engine.game import Game
from kalimambo.web.core.refusals import Kind, Refusal, conflict
from kalimambo.web.storage.archive import stored_record
from kalimambo.web.storage.store import Store


class Records:
    """What ``GET /api/v1/record`` and ``/api/v1/games`` answer."""

    def __init__(self, store: Store, lock: threading.RLock,
                 current: Callable[[], tuple[int, Game | None]]) -> None:
        self.store = store
        self.lock = lock
        self.current = current
        """The current game's id and its engine game (None before the start)."""

    def record(self) -> dict[str, Any]:
        """The current game's record so far."""
        with self.lock:
            game = self.current()[1]
            if game is None:
                raise conflict("not_started", "The game has not started yet: there is "
                                              "no record.")
            return game.record()

    def games(self) -> list[dict[str, Any]]:
        """The archive and the current game, oldest first."""
        with self.lock:
            current = self.current()[0]
            counts = self.store.round_counts()
            return [{"id": row.id, "created": row.created, "started": row.started,
                     "finished": row.finished, "current": row.id == current,
                     "players": row.players or [], "rounds": counts.get(row.id, 0)}
                    for row in self.store.games()]

    def game_record(self, game_id: int) -> dict[str, Any]:
        """A stored game's record; 404 for no such game, 409 if it never started."""
        with self.lock:
            row = self.store.game(game_id)
            if row is None:
                raise Refusal(Kind.NOT_FOUND, "no_such_game", f"There is no game {game_id}.")
            record = stored_record(self.store, row)
            if record is None:
                raise conflict("not_started", f"Game {game_id} never started: there is "
                                              "no record.")
            return record
