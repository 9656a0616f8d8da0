"""Each seat's stream carries that seat's own view (issue 44, item 3): its first message is
the seat's private view, and its patches give, applied in order, exactly what
``GET /api/v1/me`` answers at every version of a whole 7-seat game, an undo, a new game
and a removed seat included. The public stream, and every other seat's, never carry a
hand or a pick. Driven without Flask or threads (real SQLite, step pacing): the streams
are the generators the server sends, read until they wait."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from kalimambo.engine.setup import SAMPLE_NAMES
from kalimambo.firmware.wire import apply_patch
from kalimambo.web.live.stream import Broadcaster
from kalimambo.web.storage.store import Store
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.table import Table
from kalimambo.web.table.tasks import InlineRunner


class Reader:
    """One client of a stream: the view it has after every message it read."""

    def __init__(self, table: Table, broadcaster: Broadcaster, token: str | None) -> None:
        def start(q: Any) -> Any:
            broadcaster.subscribe(q)
            return table.current, table.stream_opened(token)

        self.body: Iterator[bytes] = broadcaster.stream(start, lambda: table.current)
        self.view: dict[str, Any] | None = None
        self.messages: list[bytes] = []

    def read(self) -> dict[str, Any]:
        """Every message waiting (the stream's heartbeat says there is no more)."""
        for message in self.body:
            if message.startswith(b": heartbeat"):
                break
            self.messages.append(message)
            data = message.split(b"data: ", 1)[1].strip()
            if b"event: patch" in message:
                assert self.view is not None
                self.view = apply_patch(self.view, orjson.loads(data)["patch"])
            else:
                self.view = orjson.loads(data)
        assert self.view is not None
        return self.view


def plain(view: Any) -> Any:
    return orjson.loads(orjson.dumps(view))


def test_each_seat_stream_is_its_own_view_at_every_version(tmp_path: Path) -> None:
    store = Store(tmp_path / "kalimambo.sqlite3")
    table = Table(store, 32, HostAuth(store, "1234", "key"), runner=InlineRunner(),
                  default_pacing="step", default_pause_ms=500, clock=lambda: 0.0)
    broadcaster = Broadcaster(heartbeat=0.001)
    table.listeners.append(broadcaster.publish)
    tokens = {name: table.join(name)[1] for name in SAMPLE_NAMES}
    seats = {name: Reader(table, broadcaster, token) for name, token in tokens.items()}
    public = Reader(table, broadcaster, None)
    forged = Reader(table, broadcaster, "not-a-seat-token")
    rng = random.Random(7)
    checked = 0

    def check() -> None:
        nonlocal checked
        for name, reader in seats.items():
            assert reader.read() == plain(table.me(tokens[name])), name
        for reader in (public, forged):
            assert reader.read() == plain(table.public_view())
        checked += 1

    check()
    table.start(None, seed=3)
    check()
    for round_no in range(1, 13):
        for token in tokens.values():
            table.pick(token, round_no, rng.choice(table.me(token)["me"]["hand"]))
            check()  # the pick is the seat's own: only its stream says which card
        while table.playing:
            table.next_step()
            check()
        if round_no == 6:
            table.undo()
            check()
            for token in tokens.values():
                table.pick(token, 6, table.me(token)["me"]["hand"][0])
            while table.playing:
                table.next_step()
            check()
    assert table.phase == "finished"
    table.new_game(keep_seats=False)  # the seats are gone: their streams drop "me"
    check_gone = [reader.read() for reader in seats.values()]
    assert all("me" not in view for view in check_gone)
    assert all(view == plain(table.public_view()) for view in check_gone)
    store.close()
    assert checked > 12 * 7

    for reader in (public, forged):  # nobody's hand or pick ever went to them
        assert not any(b'"me"' in message or b"/me" in message
                       for message in reader.messages)
    for name, reader in seats.items():  # nor to another seat's stream
        others = {f'"name":"{other}"'.encode() for other in SAMPLE_NAMES if other != name}
        mine = [message for message in reader.messages if b'"me"' in message]
        assert not any(other in message.split(b'"me":', 1)[1][:200]
                       for message in mine for other in others)


def test_a_removed_seat_s_stream_loses_me_and_the_others_keep_theirs(tmp_path: Path
                                                                     ) -> None:
    store = Store(tmp_path / "kalimambo.sqlite3")
    table = Table(store, 32, HostAuth(store, "1234", "key"), runner=InlineRunner(),
                  default_pacing="step", default_pause_ms=500, clock=lambda: 0.0)
    broadcaster = Broadcaster(heartbeat=0.001)
    table.listeners.append(broadcaster.publish)
    ana, bea = table.join("Ana")[1], table.join("Bea")[1]
    readers = [Reader(table, broadcaster, token) for token in (ana, bea)]
    assert [reader.read()["me"]["name"] for reader in readers] == ["Ana", "Bea"]
    table.remove_seat(name="Ana")
    gone, kept = (reader.read() for reader in readers)
    assert "me" not in gone and gone == plain(table.public_view())
    assert kept == plain(table.me(bea))
    store.close()
