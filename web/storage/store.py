"""Where the table keeps everything: SQLite (standard library) in the data dir.

WAL with ``synchronous=FULL``: each write below is one committed transaction when the
method returns, so the table acknowledges a join, pick or round only once it would
survive a pulled plug.  The table calls the store under its own lock.

One exception, so that a full card never stops a game: when the disk is full, the store
copies itself into memory and goes on there (``in_memory``; everything from before is
still on disk, untouched) until ``write_back`` finds room and writes it all back at
once.  A disk that refuses writes for another reason (read-only, failing) still refuses
each change with ``StorageError``.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, TypeVar

T = TypeVar("T")

DB_NAME = "kalimambo.sqlite3"
"""The store's file in the data directory (one place: the app, the start-up checks and
the command line all open this one)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created REAL NOT NULL,
    started REAL,
    finished REAL,
    archived INTEGER NOT NULL DEFAULT 0,
    track_length INTEGER NOT NULL,
    players TEXT,
    setup TEXT,
    kali_deck TEXT,
    roster TEXT
);
CREATE TABLE IF NOT EXISTS seats (
    game_id INTEGER NOT NULL REFERENCES games(id),
    pos INTEGER NOT NULL,
    name TEXT NOT NULL,
    colour TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    hosted INTEGER NOT NULL DEFAULT 0,
    bot_level TEXT,
    sid TEXT,
    PRIMARY KEY (game_id, pos)
);
CREATE TABLE IF NOT EXISTS picks (
    game_id INTEGER NOT NULL REFERENCES games(id),
    round INTEGER NOT NULL,
    name TEXT NOT NULL,
    card INTEGER NOT NULL,
    PRIMARY KEY (game_id, round, name)
);
CREATE TABLE IF NOT EXISTS rounds (
    game_id INTEGER NOT NULL REFERENCES games(id),
    round INTEGER NOT NULL,
    cards TEXT NOT NULL,
    kali INTEGER NOT NULL,
    PRIMARY KEY (game_id, round)
);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS host_tokens (
    token_hash TEXT PRIMARY KEY,
    created REAL NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class SeatRow:
    pos: int
    name: str
    colour: str
    token_hash: str
    hosted: bool
    bot_level: str | None
    id: str | None = None


@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    created: float
    started: float | None
    finished: float | None
    archived: bool
    track_length: int
    players: list[str] | None
    setup: dict[str, Any] | None
    kali_deck: list[int] | None
    roster: dict[str, dict[str, Any]] | None
    """Each player at the start: ``{"colour", "bot"}`` (the bot's level or None); the
    archive keeps it when the seats leave for the next game."""


@dataclass(frozen=True, slots=True)
class RoundRow:
    round: int
    cards: dict[str, int]
    kali: int


STORAGE_ERRORS = {"SQLITE_FULL": "the disk is full",
                  "SQLITE_READONLY": "the game store is read-only",
                  "SQLITE_IOERR": "the disk failed to write",
                  "SQLITE_CANTOPEN": "the game store cannot be opened"}
"""SQLite errors that mean "the change could not be kept", by their primary code."""
DISK_FULL: Final = STORAGE_ERRORS["SQLITE_FULL"]
KEPT_IN_MEMORY: Final = ("the disk is full: the game goes on, kept in memory until there "
                         "is room again (a restart before then loses it)")
"""``Store.problem`` while the store lives in memory."""


class StorageError(Exception):
    """A write the disk refused (full, read-only, failing): nothing of it was kept."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def storage_reason(error: sqlite3.Error) -> str | None:
    """Why a write failed, if the disk (not the program) is to blame."""
    name = str(getattr(error, "sqlite_errorname", "") or "")
    for prefix, reason in STORAGE_ERRORS.items():
        if name.startswith(prefix):
            return reason
    return None


class SettingKey:
    """The key of each stored setting (the ``settings`` table: one JSON value a key), named
    here once: the table, the booth, the host's login, the day and the start-up checks all
    read and write them by these names."""

    RESTARTS: Final = "restarts"
    """How often the table has started on this data dir (its views' version epoch)."""
    HINTS: Final = "hints"
    PACING: Final = "pacing"
    PAUSE_MS: Final = "pause_ms"
    """The host's settings (``Settings``): hints on or off, the pacing and its pause."""
    PLAYBACK: Final = "playback"
    """``[game id, round]`` while that round is played back (a restart plays it again)."""
    PLACING: Final = "placing"
    """``[game id, the view's placing]`` while wooden pieces wait to be moved by hand."""
    ATTRACT: Final = "attract"
    ATTRACT_AFTER_S: Final = "attract_after_s"
    SOUND: Final = "sound"
    """The booth's settings: attract mode, the lobby's idle time before it, sound cues."""
    NEW_DAY: Final = "new_day"
    """When the host began a new day (the day's leaderboard counts from it)."""
    HOST_KEY: Final = "host_key"
    FIRST_HOST_CODE: Final = "first_host_code"
    """The host key of the host link, and the one-time first-host code."""
    HOST_PIN: Final = "host_pin"
    """A PIN an older table made and kept here: still checked at start, no longer written."""
    PORTAL: Final = "portal"
    """The phones the hotspot's sign-in page let through, and when (``web/http/portal``)."""
    LAST_START: Final = "last_start"
    """When the table last started (the start-up check's proof that the store takes a write)."""


SET_SETTING = ("INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) "
               "DO UPDATE SET value = excluded.value")


class Store:
    """One SQLite file; every method that writes commits before it returns.

    A write the disk refuses raises ``StorageError`` with nothing kept, and ``problem``
    says why until a later write succeeds; a full disk instead moves the store into
    memory (``in_memory``, ``problem`` is ``KEPT_IN_MEMORY``) until ``write_back``.
    """

    def __init__(self, path: Path, *, read_only: bool = False) -> None:
        """``read_only``: for a command beside a running table (``kalimambo host-link``):
        the file is never created, migrated or written; ``sqlite3.Error`` if it cannot
        be read."""
        self.path = path
        self.problem: str | None = None
        self._memory: sqlite3.Connection | None = None
        """The whole store, copied here when the disk was full: ``_db`` is this then, else
        ``_file``, the file's own connection."""
        if read_only:
            self._db = self._file = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro",
                                                    uri=True, check_same_thread=False,
                                                    isolation_level=None)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = self._file = sqlite3.connect(str(path), check_same_thread=False,
                                                isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(seats)")}
            if "sid" not in columns:  # a store from before seat ids
                self._db.execute("ALTER TABLE seats ADD COLUMN sid TEXT")
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
            if "roster" not in columns:  # a store from before rosters were kept
                self._db.execute("ALTER TABLE games ADD COLUMN roster TEXT")
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        self._file.close()
        if self._memory is not None:
            self._memory.close()

    @property
    def in_memory(self) -> bool:
        """Whether the store lives in memory (the disk was full) until ``write_back``."""
        return self._memory is not None

    def _commit(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` as one transaction: all of it is on disk when this returns, or none
        of it (``StorageError``); with the disk full, all of it in memory."""
        try:
            result = self._transaction(self._db, work)
        except sqlite3.Error as error:
            reason = storage_reason(error)
            if reason is None:
                raise
            if reason != DISK_FULL or self._memory is not None:
                self.problem = reason
                raise StorageError(reason) from None
            self._to_memory()
            result = self._transaction(self._db, work)
        self.problem = KEPT_IN_MEMORY if self._memory is not None else None
        return result

    @staticmethod
    def _transaction(db: sqlite3.Connection, work: Callable[[sqlite3.Connection], T]) -> T:
        db.execute("BEGIN IMMEDIATE")
        try:
            result = work(db)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        return result

    def _to_memory(self) -> None:
        """The disk is full: from now on the store is a copy in memory (reading the file
        needs no room); the file keeps everything from before, untouched."""
        memory = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        self._file.backup(memory)
        memory.execute("PRAGMA foreign_keys=ON")
        self._memory = self._db = memory
        self.problem = KEPT_IN_MEMORY

    def write_back(self) -> bool:
        """Write the store kept in memory back to the file, all of it in one transaction
        (SQLite's backup: on a disk still too full, the file stays as it was). Whether
        the store is on disk again."""
        if self._memory is None:
            return True
        try:
            self._memory.backup(self._file)
        except sqlite3.Error as error:
            if storage_reason(error) is None:
                raise
            return False
        self._memory.close()
        self._memory = None
        self._db = self._file
        self.problem = None
        return True

    def _write(self, *statements: tuple[str, tuple[Any, ...]]) -> None:
        """Run statements as one transaction: all of them are kept, or none."""
        def work(db: sqlite3.Connection) -> None:
            for sql, params in statements:
                db.execute(sql, params)
        self._commit(work)

    # -- settings ----------------------------------------------------------------
    def setting(self, key: str, default: Any = None) -> Any:
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else json.loads(row[0])

    def set_settings(self, values: dict[str, Any]) -> None:
        self._write(*((SET_SETTING, (key, json.dumps(value))) for key, value in values.items()))

    # -- the stored text as it is, for the start-up check (web/system/startup.py) -------
    def quick_check(self) -> str:
        """SQLite's own check of the file: "ok", or what is damaged."""
        row = self._db.execute("PRAGMA quick_check").fetchone()
        return "no answer" if row is None else str(row[0])

    def settings_text(self) -> list[tuple[str, str]]:
        """Every setting's key and its stored JSON text, unread (a broken value is the
        start-up check's to name)."""
        return [(str(key), value) for key, value in
                self._db.execute("SELECT key, value FROM settings")]

    def current_game_text(self) -> tuple[Any, ...] | None:
        """The current game's id, track length, and its players, set-up and Kali deck as
        stored JSON text, and when it started."""
        row: tuple[Any, ...] | None = self._db.execute(
            "SELECT id, track_length, players, setup, kali_deck, started FROM games "
            "WHERE archived = 0 ORDER BY id DESC LIMIT 1").fetchone()
        return row

    def rounds_text(self, game_id: int) -> list[tuple[int, str, Any]]:
        """A game's rounds in order: number, the cards as stored JSON text, Kali's card."""
        return [(int(number), cards, kali) for number, cards, kali in self._db.execute(
            "SELECT round, cards, kali FROM rounds WHERE game_id = ? ORDER BY round",
            (game_id,))]

    # -- host tokens ---------------------------------------------------------------
    def host_tokens(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT token_hash FROM host_tokens")}

    def add_host_token(self, token_hash: str) -> None:
        self._write(("INSERT OR IGNORE INTO host_tokens (token_hash, created) VALUES (?, ?)",
                     (token_hash, time.time())))

    # -- games -------------------------------------------------------------------
    def _game(self, row: tuple[Any, ...]) -> GameRow:
        return GameRow(row[0], row[1], row[2], row[3], bool(row[4]), row[5],
                       *(json.loads(value) if value else None for value in row[6:10]))

    _GAME_COLUMNS = ("id, created, started, finished, archived, track_length, players, setup, "
                     "kali_deck, roster")

    def current_game(self) -> GameRow | None:
        row = self._db.execute(f"SELECT {self._GAME_COLUMNS} FROM games WHERE archived = 0 "
                               "ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else self._game(row)

    def game(self, game_id: int) -> GameRow | None:
        row = self._db.execute(f"SELECT {self._GAME_COLUMNS} FROM games WHERE id = ?",
                               (game_id,)).fetchone()
        return None if row is None else self._game(row)

    def games(self) -> list[GameRow]:
        rows = self._db.execute(f"SELECT {self._GAME_COLUMNS} FROM games ORDER BY id")
        return [self._game(row) for row in rows]

    def new_game(self, track_length: int, archive: int | None = None,
                 seats: Sequence[SeatRow] = ()) -> int:
        """Archive ``archive`` (if any) and open a new lobby with ``seats``, at once."""
        def work(db: sqlite3.Connection) -> int:
            if archive is not None:
                db.execute("UPDATE games SET archived = 1 WHERE id = ?", (archive,))
                db.execute("DELETE FROM picks WHERE game_id = ?", (archive,))
            cursor = db.execute("INSERT INTO games (created, track_length) VALUES (?, ?)",
                                (time.time(), track_length))
            game_id = int(cursor.lastrowid or 0)
            if archive is not None:
                # The archive keeps players and rounds; seats (and tokens) leave it,
                # moving to the new game when kept.
                db.execute("DELETE FROM seats WHERE game_id = ?", (archive,))
            for seat in seats:
                db.execute(*self._seat_insert(game_id, seat))
            return game_id
        return self._commit(work)

    def start_game(self, game_id: int, players: list[str], setup: Mapping[str, Any],
                   kali_deck: list[int], seats: list[SeatRow]) -> None:
        """Fix the players, set-up and Kali's deck; seats are renumbered in play order."""
        roster = {seat.name: {"colour": seat.colour, "bot": seat.bot_level}
                  for seat in seats}
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("UPDATE games SET started = ?, players = ?, setup = ?, kali_deck = ?, "
             "roster = ? WHERE id = ?", (time.time(), json.dumps(players), json.dumps(setup),
                              json.dumps(kali_deck), json.dumps(roster), game_id)),
            ("DELETE FROM seats WHERE game_id = ?", (game_id,)),
        ]
        statements += [self._seat_insert(game_id, seat) for seat in seats]
        self._write(*statements)

    # -- seats ---------------------------------------------------------------------
    @staticmethod
    def _seat_insert(game_id: int, seat: SeatRow) -> tuple[str, tuple[Any, ...]]:
        return ("INSERT INTO seats (game_id, pos, name, colour, token_hash, hosted, bot_level, "
                "sid) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (game_id, seat.pos, seat.name, seat.colour, seat.token_hash,
                 int(seat.hosted), seat.bot_level, seat.id))

    def seats(self, game_id: int) -> list[SeatRow]:
        rows = self._db.execute("SELECT pos, name, colour, token_hash, hosted, bot_level, sid "
                                "FROM seats WHERE game_id = ? ORDER BY pos", (game_id,))
        return [SeatRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5], r[6]) for r in rows]

    def add_seats(self, game_id: int, seats: list[SeatRow]) -> None:
        self._write(*(self._seat_insert(game_id, seat) for seat in seats))

    def replace_seats(self, game_id: int, seats: list[SeatRow]) -> None:
        """The game's seats become exactly ``seats`` (a removal renumbers the rest)."""
        self._write(("DELETE FROM seats WHERE game_id = ?", (game_id,)),
                    *(self._seat_insert(game_id, seat) for seat in seats))

    # -- picks and rounds ----------------------------------------------------------
    def picks(self, game_id: int, round_no: int) -> dict[str, int]:
        rows = self._db.execute("SELECT name, card FROM picks WHERE game_id = ? AND round = ?",
                                (game_id, round_no))
        return {name: card for name, card in rows}

    def set_pick(self, game_id: int, round_no: int, name: str, card: int) -> None:
        self._write(("INSERT INTO picks (game_id, round, name, card) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT(game_id, round, name) DO UPDATE SET card = excluded.card",
                     (game_id, round_no, name, card)))

    def add_round(self, game_id: int, round_no: int, cards: dict[str, int], kali: int,
                  finished: bool, settings: dict[str, Any] | None = None) -> None:
        """The resolved round, the end of its picks and ``settings`` (which round is
        being played back), in one transaction: one fsync on the last pick's path."""
        statements: list[tuple[str, tuple[Any, ...]]] = [
            ("INSERT INTO rounds (game_id, round, cards, kali) VALUES (?, ?, ?, ?)",
             (game_id, round_no, json.dumps(cards), kali)),
            ("DELETE FROM picks WHERE game_id = ? AND round <= ?", (game_id, round_no)),
        ]
        if finished:
            statements.append(("UPDATE games SET finished = ? WHERE id = ?",
                               (time.time(), game_id)))
        statements += [(SET_SETTING, (key, json.dumps(value)))
                       for key, value in (settings or {}).items()]
        self._write(*statements)

    def undo_round(self, game_id: int, round_no: int) -> None:
        """Take ``round_no`` back: the round, any picks made since, the finish mark."""
        self._write(
            ("DELETE FROM rounds WHERE game_id = ? AND round = ?", (game_id, round_no)),
            ("DELETE FROM picks WHERE game_id = ? AND round >= ?", (game_id, round_no)),
            ("UPDATE games SET finished = NULL WHERE id = ?", (game_id,)),
        )

    def round_counts(self) -> dict[int, int]:
        """How many rounds each game has played (games without one are left out): one
        query for the whole archive, not one per game."""
        rows = self._db.execute("SELECT game_id, COUNT(*) FROM rounds GROUP BY game_id")
        return {int(game_id): int(count) for game_id, count in rows}

    def rounds(self, game_id: int) -> list[RoundRow]:
        rows = self._db.execute("SELECT round, cards, kali FROM rounds WHERE game_id = ? "
                                "ORDER BY round", (game_id,))
        return [RoundRow(r[0], json.loads(r[1]), r[2]) for r in rows]
