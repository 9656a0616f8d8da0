"""Before the table starts: one server per data dir, and a store it can really use.

``kalimambo serve`` calls ``open_data_dir`` in gunicorn's master, before any worker:
a second server on the same data dir, or a store that is damaged, unreadable or
not writable, ends the start with one line naming the file and the problem (exit 2),
rather than a traceback in the worker and a restart loop under systemd.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kalimambo.engine.game import Game
from kalimambo.engine.setup import Setup
from kalimambo.engine.values import is_int
from kalimambo.web.storage.store import DB_NAME, SettingKey, StorageError, Store

LOCK_NAME = "kalimambo.lock"


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def _is_number(value: object) -> bool:
    return is_int(value) or isinstance(value, float)


# What each stored setting must hold (a JSON true is not a whole number).
SETTING_KINDS: dict[str, Callable[[object], bool]] = {
    SettingKey.RESTARTS: is_int, SettingKey.HINTS: _is_bool, SettingKey.PACING: _is_str,
    SettingKey.PAUSE_MS: is_int, SettingKey.HOST_KEY: _is_str, SettingKey.HOST_PIN: _is_str,
    SettingKey.LAST_START: _is_number, SettingKey.FIRST_HOST_CODE: _is_str,
}


class StartupError(Exception):
    """Why the table cannot start, in one line that names the file."""


@dataclass
class DataDir:
    """The locked data dir (the lock lasts as long as this process and its worker)."""

    path: Path
    lock_fd: int
    host_key: str

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.lock_fd)


def lock_data_dir(data_dir: Path) -> int:
    """Take the data dir's lock (``fcntl.flock``) or say which process holds it.

    The lock file keeps the holder's pid.  A flock ends with its last process, so a
    killed server never leaves a stale lock behind.
    """
    path = data_dir / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as error:
        raise StartupError(f"{path}: cannot open the lock file ({error.strerror})") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = ""
        with contextlib.suppress(OSError, ValueError):
            holder = os.pread(fd, 32, 0).decode().strip()
        os.close(fd)
        who = f"pid {holder}" if holder.isdigit() else "another process"
        raise StartupError(f"{data_dir}: another table ({who}) is already using this "
                           "data dir") from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    os.set_inheritable(fd, True)
    return fd


def _loads(text: Any, what: str) -> Any:
    if text is None:
        return None
    try:
        return json.loads(text)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{what} is not valid JSON ({error})") from None


def _check_settings(store: Store) -> None:
    for key, raw in store.settings_text():
        value = _loads(raw, f"setting {key!r}")
        kind = SETTING_KINDS.get(key)
        if kind is not None and not kind(value):
            raise ValueError(f"setting {key!r} has a value of the wrong kind ({value!r})")


def _check_current_game(store: Store) -> None:
    """Rebuild the current game as the table will: every stored round played again."""
    row = store.current_game_text()
    if row is None:
        return
    game_id, track_length, players_raw, setup_raw, deck_raw, started = row
    players = _loads(players_raw, f"game {game_id}'s players")
    setup = _loads(setup_raw, f"game {game_id}'s set-up")
    deck = _loads(deck_raw, f"game {game_id}'s Kali deck")
    seats = store.seats(game_id)
    if any(not isinstance(seat.name, str) for seat in seats):
        raise ValueError(f"game {game_id} has a seat without a name")
    if started is None or setup is None or players is None:
        return
    try:
        game = Game(players, Setup(setup["rhino"], tuple(setup["order"]),
                                   tuple(setup["dung"])), track_length, kali_deck=deck)
        for number, cards_raw, kali in store.rounds_text(game_id):
            game.play_round(_loads(cards_raw, f"game {game_id}'s round {number}"), kali)
    except ValueError:
        raise
    except Exception as error:
        raise ValueError(f"game {game_id} cannot be rebuilt ({type(error).__name__}: "
                         f"{error})") from None


def check_store(path: Path) -> str:
    """Open, check and write to the store once; its host key.  ``StartupError`` if not."""
    if path.is_dir():
        raise StartupError(f"{path}: is a directory, not a game store")
    if path.exists() and not os.access(path, os.R_OK):
        raise StartupError(f"{path}: cannot be read (permission denied)")
    store: Store | None = None
    try:
        store = Store(path)
        integrity = store.quick_check()
        if integrity != "ok":
            raise ValueError(f"damaged ({integrity})")
        _check_settings(store)
        _check_current_game(store)
        from kalimambo.web.table.hostlogin import stored_key

        store.set_settings({SettingKey.LAST_START: time.time()})  # proves the store takes a write
        return stored_key(store)
    except StorageError as error:
        raise StartupError(f"{path}: cannot be written ({error.reason})") from None
    except sqlite3.Error as error:
        raise StartupError(f"{path}: not a usable game store ({error})") from None
    except (ValueError, OSError) as error:
        raise StartupError(f"{path}: {error}") from None
    finally:
        if store is not None:
            with contextlib.suppress(sqlite3.Error):
                store.close()


def open_data_dir(data_dir: Path) -> DataDir:
    """Lock the data dir and check its store; ``StartupError`` with one line if not."""
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise StartupError(f"{data_dir}: {error.strerror or error}") from None
    if not data_dir.is_dir():
        raise StartupError(f"{data_dir}: not a directory")
    fd = lock_data_dir(data_dir)
    try:
        key = check_store(data_dir / DB_NAME)
    except BaseException:
        os.close(fd)
        raise
    return DataDir(data_dir, fd, key)
