"""The table as the store left it: after a restart (or a pulled plug) the game goes on.

The current game's seats, rounds and open picks are read back and the state machine is
rebuilt from them; a round whose playback was under way is played again.  Stores kept
before seats had ids get their ids here, once (the one data migration).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from kalimambo.engine.game import Game
from kalimambo.engine.setup import Setup
from kalimambo.web.core.happenings import Settings
from kalimambo.web.core.placing import Placing
from kalimambo.web.core.seats import Seat, new_seat_id
from kalimambo.web.core.state import StateMachine
from kalimambo.web.storage.store import SeatRow, SettingKey, StorageError, Store


def seat_rows(seats: Iterable[Seat], first: int = 0) -> list[SeatRow]:
    """Seats as the store keeps them, at positions from ``first``."""
    return [SeatRow(first + i, seat.name, seat.colour, seat.token_hash, seat.hosted,
                    seat.bot_level, seat.id) for i, seat in enumerate(seats)]


def stored_settings(store: Store, default_pacing: str, default_pause_ms: int) -> Settings:
    """The table's settings as the host last set them (the defaults before that)."""
    return Settings(bool(store.setting(SettingKey.HINTS, False)),
                    str(store.setting(SettingKey.PACING, default_pacing)),
                    int(store.setting(SettingKey.PAUSE_MS, default_pause_ms)))


def count_restart(store: Store) -> int:
    """This start's number (the view versions' epoch); kept if the disk lets us."""
    restarts = int(store.setting(SettingKey.RESTARTS, 0)) + 1
    with contextlib.suppress(StorageError):  # a full disk at start: run, and say so
        store.set_settings({SettingKey.RESTARTS: restarts})
    return restarts


def _give_seat_ids(store: Store, game_id: int, seats: list[Seat]) -> None:
    """Seats kept before seat ids: each gets one, stored if the disk lets us."""
    taken = {seat.id for seat in seats}
    for seat in seats:
        if not seat.id:
            seat.id = new_seat_id(taken)
            taken.add(seat.id)
    with contextlib.suppress(StorageError):
        store.replace_seats(game_id, seat_rows(seats))


def restore(store: Store, track_length: int, settings: Settings,
            now: float) -> tuple[int, StateMachine]:
    """The current game's id and its state (a new lobby if the store has none)."""
    row = store.current_game()
    if row is None:
        store.new_game(track_length)
        row = store.current_game()
        assert row is not None
    seats = [Seat(s.name, s.colour, s.token_hash, s.hosted, s.bot_level, s.id or "")
             for s in store.seats(row.id)]
    if any(not seat.id for seat in seats):
        _give_seat_ids(store, row.id, seats)
    if row.started is None or row.setup is None or row.players is None:
        return row.id, StateMachine(track_length, settings, seats)
    game = Game(row.players, Setup(row.setup["rhino"], tuple(row.setup["order"]),
                                   tuple(row.setup["dung"])),
                row.track_length, kali_deck=row.kali_deck)
    rounds = [(played.cards, played.kali) for played in store.rounds(row.id)]
    play_last_again = store.setting(SettingKey.PLAYBACK, None) == [row.id, len(rounds)]
    picks = store.picks(row.id, len(rounds) + 1)  # used only if a round is open
    return row.id, StateMachine.restore(row.track_length, settings, seats, game, rounds,
                                        picks, play_last_again, now, stored_placing(store, row.id))


def stored_placing(store: Store, game_id: int) -> Placing | None:
    """The pieces that were waiting to be moved by hand in game ``game_id``, if any."""
    kept = store.setting(SettingKey.PLACING, None)
    if isinstance(kept, list) and len(kept) == 2 and kept[0] == game_id:
        return Placing.from_public(kept[1])
    return None
