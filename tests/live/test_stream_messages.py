"""Event-stream messages stay small (issue 10: at most 2 KB with 7 seats, whatever the
round: steps, skips, undos, replays) and lose nothing: the first whole view plus every
patch gives every view the table made, exactly.  Driven without Flask or threads (real
SQLite, step pacing)."""

from __future__ import annotations

import queue
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from kalimambo.engine.setup import SAMPLE_NAMES
from kalimambo.firmware.wire import apply_patch as apply
from kalimambo.web.core.seats import NAME_MAX
from kalimambo.web.core.viewdiff import diff
from kalimambo.web.live.stream import Broadcaster, patch_event, view_event
from kalimambo.web.storage.store import Store
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.publisher import Change
from kalimambo.web.table.table import Table
from kalimambo.web.table.tasks import InlineRunner

LIMIT = 2048


LONG_NAMES = tuple(name.ljust(NAME_MAX, name[-1]) for name in SAMPLE_NAMES)
"""Seven names of the longest length a seat may have."""


def whole_game(path: Path, seed: int, lowest: bool, names: Sequence[str] = SAMPLE_NAMES,
               skip_at: int | None = None,
               watch_again: bool = False) -> tuple[Change, list[Change]]:
    """A whole 7-seat game; the first view and every change after.

    ``lowest``: every seat plays its lowest card, so the cards tie and often all seven
    pay at once (the largest steps, as in ``bench.sse``); else random cards.  Each
    round is played step by step, or (``skip_at``) skipped after that many steps.
    ``watch_again``: then the finished game is replayed, every other round skipped."""
    store = Store(path / "kalimambo.sqlite3")
    table = Table(store, 32, HostAuth(store, "1234", "key"), runner=InlineRunner(),
                  default_pacing="step", default_pause_ms=500, clock=lambda: 0.0)
    tokens = {name: table.join(name)[1] for name in names}
    first = table.current
    changes: list[Change] = []
    table.listeners.append(changes.append)
    table.start(None, seed=seed)
    rng = random.Random(seed)
    for round_no in range(1, 13):
        for token in tokens.values():
            hand = table.me(token)["me"]["hand"]
            table.pick(token, round_no, hand[0] if lowest else rng.choice(hand))
        for _ in range(skip_at or 0):
            table.next_step()
        if skip_at is not None and table.playing:
            table.skip()
        while table.playing:
            table.next_step()
    assert table.phase == "finished" and len(table.public_view()["history"]) == 12
    if watch_again:
        table.replay(table.game_id)
        while not table.public_view()["replay"]["done"]:
            replayed = table.public_view()["replay"]["board"]["playback"]
            table.skip() if replayed["round"] % 2 else table.next_step()
    store.close()
    return first, changes


GAMES = [(0, True, SAMPLE_NAMES, None), (1, True, SAMPLE_NAMES, 0),
         (2, False, SAMPLE_NAMES, 2), (0, True, LONG_NAMES, None), (1, True, LONG_NAMES, 1),
         (3, False, LONG_NAMES, 0)]


@pytest.mark.parametrize(("seed", "lowest", "names", "skip_at"), GAMES)
def test_every_message_of_a_7_seat_game_is_at_most_2_kb(
        tmp_path: Path, seed: int, lowest: bool, names: Sequence[str],
        skip_at: int | None) -> None:
    """Played step by step or skipped, with the sample names or seven of 20 letters."""
    _, changes = whole_game(tmp_path, seed, lowest, names, skip_at,
                            watch_again=names == SAMPLE_NAMES)
    sizes = [len(patch_event(change)) for change in changes]
    assert all(change.patch_json is not None for change in changes)  # no whole views
    assert max(sizes) <= LIMIT, f"largest message {max(sizes)} B"
    assert len(view_event(changes[-1])) > 8 * LIMIT  # the whole view is what it saves


@pytest.mark.parametrize(("seed", "lowest", "names", "skip_at"), GAMES[1:3] + GAMES[4:5])
def test_the_patches_rebuild_every_view_exactly(
        tmp_path: Path, seed: int, lowest: bool, names: Sequence[str],
        skip_at: int | None) -> None:
    first, changes = whole_game(tmp_path, seed, lowest, names, skip_at, watch_again=True)
    shown: dict[str, Any] = orjson.loads(first.view_json)
    for change in changes:
        assert change.patch_json is not None
        apply(shown, orjson.loads(change.patch_json))
        assert shown == orjson.loads(change.view_json), f"version {change.version}"
    assert shown["phase"] == "finished" and shown["replay"]["done"]
    assert shown == orjson.loads(changes[-1].view_json)


def told_with(change: Change) -> dict[str, Any]:
    """A change's view with what it did (sent beside it) under ``"happened"``."""
    return {**orjson.loads(change.view_json), "happened": orjson.loads(change.happened_json)}


def playbacks(changes: list[Change]) -> list[dict[str, Any]]:
    """The table's own playback in each change's view."""
    return [orjson.loads(change.view_json)["playback"] for change in changes]


def test_a_skip_is_one_message_per_step_left_each_drawn_at_once(tmp_path: Path) -> None:
    """Skipping at step 1 of 7 makes a change for each of steps 2..m, marked skipped and
    with no events for the strip to animate, then the end; nothing goes back."""
    _, changes = whole_game(tmp_path, 0, True, skip_at=1)
    views = [told_with(change) for change in changes]
    resolved = [i for i, v in enumerate(views)
                if v["playback"] and v["playback"]["step"] == 0 and v["phase"] == "playing"]
    assert len(resolved) == 12
    for start in resolved:
        playback = views[start]["playback"]
        steps = playback["steps"]
        first = views[start + 1]["playback"]  # the one "next"
        assert first["step"] == 1 and not first["current"]["skipped"]
        told = views[start + 1]["happened"]
        assert [e["type"] for e in told] == ["step_shown"]  # the displays animate it
        run = views[start + 2:start + 2 + steps - 1]
        assert [v["playback"]["step"] for v in run] == list(range(2, steps + 1))
        assert all(v["playback"]["current"]["skipped"] for v in run)
        assert [[e["type"] for e in v["happened"]] for v in run[:-1]] \
            == [["step_skipped"]] * (steps - 2)  # drawn at once, nothing to animate
        assert [e["type"] for e in run[-1]["happened"]][:1] == ["step_skipped"]
        assert [v["phase"] for v in run] == ["playing"] * (steps - 1)
        end = views[start + 1 + steps]
        assert end["phase"] in ("picking", "finished")
        assert end["playback"]["step"] == steps and end["playback"]["current"]["skipped"]
        assert end["happened"][0]["type"] == "playback_ended" and end["happened"][0]["skipped"]


def test_the_round_end_comes_with_the_end_not_with_the_last_step(tmp_path: Path) -> None:
    """The last step's message holds the round's steps but not its closing round_end
    nor its history entry; the end adds exactly those (round_end copied, not resent)."""
    _, changes = whole_game(tmp_path, 1, True)
    for i, change in enumerate(changes):
        view = told_with(change)
        playback = view["playback"]
        if not playback or view["phase"] != "playing" or playback["step"] < playback["steps"]:
            continue
        shown = playback["shown"]
        assert shown and shown[-1]["type"] != "round_end"
        assert len(view["history"]) == playback["round"] - 1
        step, = view["happened"]
        assert step["type"] == "step_shown" and step["first"] + step["count"] == len(shown)
        end = told_with(changes[i + 1])
        told = end["happened"][0]
        assert told["type"] == "playback_ended" and told["first"] == len(shown)
        assert end["playback"]["shown"][:-1] == shown
        assert end["playback"]["shown"][-1]["type"] == "round_end"
        assert end["history"][-1]["events"] == end["playback"]["shown"]
        ops = orjson.loads(changes[i + 1].patch_json or b"[]")
        assert {"op": "copy", "from": "/playback/shown",
                "path": f"/history/{playback['round'] - 1}/events"} in ops


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
    assert len(patch_event(change)) <= LIMIT
    shown = orjson.loads(before.view_json)
    assert apply(shown, ops) == orjson.loads(change.view_json)
