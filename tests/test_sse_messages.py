"""Event-stream messages stay small (issue 10: at most 2 KB with 7 seats, whatever the
round) and lose nothing: the first whole view plus every patch gives every view the
table made, exactly.  Driven without Flask or threads (real SQLite, step pacing)."""

from __future__ import annotations

import queue
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from kalimambo.engine.setup import SAMPLE_NAMES
from kalimambo.web.events import Broadcaster, message, patch_message
from kalimambo.web.host import HostAuth
from kalimambo.web.store import Store
from kalimambo.web.table import Change, Table
from kalimambo.web.tasks import InlineRunner
from kalimambo.web.viewdiff import apply, diff

LIMIT = 2048


def whole_game(path: Path, seed: int, lowest: bool) -> tuple[Change, list[Change]]:
    """A whole 7-seat game played step by step; the first view and every change after.

    ``lowest``: every seat plays its lowest card, so the cards tie and often all seven
    pay at once (the largest steps, as in ``bench.sse``); else random cards."""
    store = Store(path / "kalimambo.sqlite3")
    table = Table(store, 32, HostAuth(store, "1234", "key"), runner=InlineRunner(),
                  default_pacing="step", default_pause_ms=500, clock=lambda: 0.0)
    tokens = {name: table.join(name)[1] for name in SAMPLE_NAMES}
    first = table.current
    changes: list[Change] = []
    table.listeners.append(changes.append)
    table.start(None, seed=seed)
    rng = random.Random(seed)
    for round_no in range(1, 13):
        for token in tokens.values():
            hand = table.me(token)["me"]["hand"]
            table.pick(token, round_no, hand[0] if lowest else rng.choice(hand))
        while table.playing:
            table.next_step()
    assert table.phase == "finished" and len(table.public_view()["history"]) == 12
    store.close()
    return first, changes


@pytest.mark.parametrize(("seed", "lowest"), [(0, True), (1, True), (2, False)])
def test_every_message_of_a_7_seat_game_is_at_most_2_kb(tmp_path: Path, seed: int,
                                                        lowest: bool) -> None:
    _, changes = whole_game(tmp_path, seed, lowest)
    sizes = [len(patch_message(change)) for change in changes]
    assert all(change.patch_json is not None for change in changes)  # no whole views
    assert max(sizes) <= LIMIT, f"largest message {max(sizes)} B"
    assert len(message(changes[-1])) > 8 * LIMIT  # the whole view is what it saves


@pytest.mark.parametrize(("seed", "lowest"), [(0, True), (2, False)])
def test_the_patches_rebuild_every_view_exactly(tmp_path: Path, seed: int,
                                                lowest: bool) -> None:
    first, changes = whole_game(tmp_path, seed, lowest)
    shown: dict[str, Any] = orjson.loads(first.view_json)
    for change in changes:
        assert change.patch_json is not None
        apply(shown, orjson.loads(change.patch_json))
        assert shown == orjson.loads(change.view_json), f"version {change.version}"
    assert shown["phase"] == "finished"
    assert shown == orjson.loads(changes[-1].view_json)


def test_a_patch_is_encoded_once_for_every_stream() -> None:
    """Each change is one bytes object put in every stream's queue, not one per stream."""
    broadcaster = Broadcaster()
    queues: list[queue.Queue[tuple[int, bytes]]] = [queue.Queue(4) for _ in range(3)]
    for q in queues:
        broadcaster.subscribe(q)
    old = {"version": 1, "seats": [{"picked": False}]}
    new = {"version": 2, "seats": [{"picked": True}]}
    change = Change(2, new, orjson.dumps(new), orjson.dumps(diff(old, new)), None)
    broadcaster.publish(change)
    items = [q.get_nowait() for q in queues]
    assert all(item[1] is items[0][1] for item in items)


def test_the_diff_sends_a_whole_value_when_that_is_shorter() -> None:
    old = {"version": 1, "current": {"kind": "move", "first": 3}}
    new = {"version": 2, "current": {"kind": "penalty", "first": 12}}
    ops = diff(old, new)
    assert {"op": "replace", "path": "/current", "value": new["current"]} in ops
    assert apply(old, ops) == new


def test_a_shrunk_list_loses_its_end_and_unchanged_values_are_copied() -> None:
    events = [{"type": "move", "figure": name, "from_space": 3, "to_space": 7}
              for name in SAMPLE_NAMES]
    entries = [{"round": r, "cards": {"Ana": r}} for r in range(1, 5)]
    old = {"version": 1, "playback": {"step": 7, "shown": events}, "history": entries}
    new = {"version": 2, "playback": {"step": 7, "shown": events},
           "history": [*entries, {"round": 5, "events": events}]}
    ops = diff(old, new)
    assert {"op": "copy", "from": "/playback/shown", "path": "/history/4/events"} in ops
    assert len(orjson.dumps(ops)) < len(orjson.dumps(events))
    assert apply(orjson.loads(orjson.dumps(old)), ops) == new
    undone = {"version": 3, "playback": None, "history": entries[:2]}
    ops = diff(old, undone)
    assert [op["op"] for op in ops[1:]] == ["replace", "replace", "remove", "remove"]
    assert apply(orjson.loads(orjson.dumps(old)), ops) == undone


def test_an_undo_after_round_12_copies_the_round_left_last(tmp_path: Path) -> None:
    """Undoing round 12 drops its history entry; the new ``last_round`` is round 11's
    entry, which the page has: copied, not sent again."""
    whole_game(tmp_path, 0, True)  # then the table starts again on its store
    store = Store(tmp_path / "kalimambo.sqlite3")
    table = Table(store, 32, HostAuth(store, "1234", "key"), runner=InlineRunner(),
                  default_pacing="step", default_pause_ms=500, clock=lambda: 0.0)
    before = table.current
    undone: list[Change] = []
    table.listeners.append(undone.append)
    table.undo()
    store.close()
    (change,) = undone
    assert change.patch_json is not None
    ops = orjson.loads(change.patch_json)
    assert {"op": "copy", "from": "/history/10", "path": "/last_round"} in ops
    assert len(patch_message(change)) <= LIMIT
    shown = orjson.loads(before.view_json)
    assert apply(shown, ops) == orjson.loads(change.view_json)
