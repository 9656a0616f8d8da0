"""The playback, driven without Flask, threads or a real clock: the steps made from a
round's events, the pure cursor, and the table around it (real SQLite)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from kalimambo.engine import Game, random_setup
from kalimambo.engine.events import Penalty
from kalimambo.engine.timeline import BoardState, board_at, round_steps, step_seconds
from kalimambo.firmware.wire import apply_patch as apply
from kalimambo.web.core.playback import Playback
from kalimambo.web.core.viewdiff import diff
from kalimambo.web.storage.store import Store
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.table import Table
from kalimambo.web.table.tasks import InlineRunner

NAMES = ["Ana", "Ben", "Caro"]


def board(game: Game) -> BoardState:
    return BoardState(game.board.rhino, game.positions(), game.minus_points())


def played_rounds(seed: int, players: int = 5) -> list[tuple[BoardState, list[Any],
                                                             BoardState]]:
    """(board before, events, board after) for every round of a random game."""
    rng = random.Random(seed)
    names = ["Ana", "Ben", "Caro", "Dan", "Eva", "Finn", "Gina"][:players]
    game = Game(names, random_setup(names, 32, rng), 32)
    hands = {n: rng.sample(range(12), 12) for n in names}
    out = []
    for r in range(12):
        before = board(game)
        events = game.play_round({n: hands[n][r] for n in names}, game.kali_deck[-1])
        out.append((before, events, board(game)))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_steps_keep_every_event_and_end_on_the_replayed_board(seed: int) -> None:
    for before, events, after in played_rounds(seed, players=3 + seed % 5):
        steps = round_steps(events)
        assert steps[0].kind == "reveal" and len(steps[0].events) == 1
        assert [e for s in steps for e in s.events] == events  # nothing lost, in order
        assert steps[-1].events[-1].type == "round_end"
        assert all(s.kind != "round_end" for s in steps)
        for step in steps:  # a group is one kind; penalties only for the same hit
            kinds = {e.type for e in step.events} - {"round_end"}
            assert kinds == {step.kind}
            if step.kind == "penalty":
                assert len({(e.figure, e.cause) for e in step.events
                            if isinstance(e, Penalty)}) == 1
        assert board_at(before, steps, 0) == before
        assert board_at(before, steps, len(steps)) == after


@pytest.mark.parametrize("pause_ms", [1000, 3000, 8000])
def test_no_budget_shortens_a_step_that_changes_the_board(pause_ms: int) -> None:
    """However many steps a 7-seat round has, each move, dung hit, Mambo's run and group
    of penalties stays up for the whole pause, and a stay for over half of it."""
    for _, events, _ in played_rounds(1, players=7):
        steps = round_steps(events)
        for step, seconds in zip(steps, step_seconds(steps, pause_ms), strict=True):
            if step.kind in ("move", "dung", "rhino_run", "penalty", "reveal"):
                assert seconds == pytest.approx(pause_ms / 1000)
            else:
                assert step.kind == "stay" and seconds >= 0.5 * pause_ms / 1000


def test_the_cursor_in_auto_and_step_pacing() -> None:
    before, events, after = played_rounds(2)[0]
    steps = round_steps(events)
    public = [e.to_dict() for e in events]
    auto = Playback.begin(1, events, public, before, "auto", 500, now=100.0)
    assert auto.step == 0 and auto.due == 100.0 and auto.current() is None
    assert not auto.advance(99.0)
    assert auto.advance(100.0) and auto.step == 1 and not auto.advance(100.0)
    assert auto.current() == steps[0] and auto.due is not None and auto.due > 100.0
    while auto.advance(auto.due or 0.0):
        pass
    assert auto.done and auto.due is None and auto.board() == after
    step = Playback.begin(1, events, public, before, "step", 500, now=0.0)
    assert step.due is None and not step.advance(1e9)
    assert step.next(0.0) and step.to_view()["step"] == 1
    assert step.to_view()["shown"] == public[:1]  # the reveal, nothing after it
    step.set_pacing("auto", 500, now=5.0)
    assert step.due is not None and step.due > 5.0
    while step.jump():
        pass
    assert step.done and step.board() == after and not step.next(0.0)
    view = step.to_view()
    assert (view["step"], view["steps"]) == (len(steps), len(steps))
    with pytest.raises(ValueError):
        Playback.begin(1, events, public, before, "sometimes", 500, now=0.0)


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def make_table(path: Path, clock: Clock, pacing: str = "step") -> Table:
    store = Store(path / "kalimambo.sqlite3")
    return Table(store, 32, HostAuth(store, "1234", "key"), runner=InlineRunner(),
                 default_pacing=pacing, default_pause_ms=500, clock=clock)


def seated(tmp_path: Path, clock: Clock, pacing: str = "step") -> tuple[Table, dict[str, str]]:
    table = make_table(tmp_path, clock, pacing)
    tokens = {n: table.join(n)[1] for n in NAMES}
    table.start({"rhino": 0, "order": NAMES, "dung": [10, 20]}, seed=4)
    return table, tokens


def pick_all(table: Table, tokens: dict[str, str], round_no: int) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    for i, name in enumerate(NAMES):
        hand = table.me(tokens[name])["me"]["hand"]
        answer = table.pick(tokens[name], round_no, hand[(i + round_no) % len(hand)])
    return answer


def test_the_table_plays_back_step_by_step_and_hides_what_comes(tmp_path: Path) -> None:
    clock = Clock()
    table, tokens = seated(tmp_path, clock)
    start = table.public_view()
    assert pick_all(table, tokens, 1)["resolved"] is True
    view = table.public_view()
    assert view["phase"] == "playing" and view["round"] == 1
    assert view["history"] == [] and view["last_round"] is None
    assert view["positions"] == start["positions"] and view["rhino"] == start["rhino"]
    with pytest.raises(Exception, match="still being played"):
        table.pick(tokens["Ana"], 2, 0)
    me = table.me(tokens["Ana"])
    assert me["history"] == [] and me["phase"] == "playing"
    steps = view["playback"]["steps"]
    seen = []
    while table.phase == "playing":
        answer = table.next_step()
        seen.append(answer["current"]["kind"])
        assert table.public_view()["playback"]["step"] == len(seen)
        if table.phase == "playing":
            assert table.public_view()["history"] == []
    assert seen[0] == "reveal" and len(seen) == steps
    end = table.public_view()
    assert end["phase"] == "picking" and end["round"] == 2 and len(end["history"]) == 1
    fresh = Game(NAMES, table.game.setup, 32)  # type: ignore[union-attr]
    for played in table.records.record()["rounds"]:
        fresh.play_round(played["cards"], played["kali"])
    assert end["positions"] == fresh.positions() and end["rhino"] == fresh.board.rhino


def test_auto_pacing_runs_on_the_tables_clock(tmp_path: Path) -> None:
    clock = Clock()
    table, tokens = seated(tmp_path, clock, pacing="auto")
    pick_all(table, tokens, 1)
    assert table.public_view()["playback"]["step"] == 1  # the reveal at once
    assert not table.tick()  # not yet due
    while table.phase == "playing":
        due = table.due()
        assert due is not None and due > clock.now
        clock.now = due
        assert table.tick()
    assert table.due() is None and table.public_view()["round"] == 2


def test_a_restart_mid_playback_plays_the_round_again(tmp_path: Path) -> None:
    clock = Clock()
    table, tokens = seated(tmp_path, clock)
    pick_all(table, tokens, 1)
    table.next_step()
    table.next_step()
    table.store.close()
    again = make_table(tmp_path, clock)
    view = again.public_view()
    assert view["phase"] == "playing" and view["playback"]["step"] == 0
    assert view["playback"]["round"] == 1 and view["history"] == []
    again.skip()
    assert again.public_view()["phase"] == "picking"
    again.store.close()
    third = make_table(tmp_path, clock)  # the playback ended: nothing plays again
    assert third.public_view()["phase"] == "picking" and third.state.playback is None


def test_undo_mid_playback_and_new_game_keeping_seats(tmp_path: Path) -> None:
    clock = Clock()
    table, tokens = seated(tmp_path, clock)
    start = table.public_view()
    pick_all(table, tokens, 1)
    table.next_step()
    table.undo()
    view = table.public_view()
    assert view["phase"] == "picking" and view["round"] == 1 and view["undone"] == 1
    assert view["positions"] == start["positions"] and view["playback"] is None
    assert table.me(tokens["Ana"])["me"]["hand"] == list(range(12))
    pick_all(table, tokens, 1)
    assert table.public_view()["undone"] is None
    table.new_game()
    view = table.public_view()
    assert [s["name"] for s in view["seats"]] == NAMES and view["phase"] == "lobby"
    assert table.me(tokens["Ana"])["me"]["name"] == "Ana"
    table.new_game(False)
    assert table.public_view()["seats"] == []


def test_every_change_as_a_patch_rebuilds_the_view(tmp_path: Path) -> None:
    clock = Clock()
    table, tokens = seated(tmp_path, clock)
    changes = []
    table.listeners.append(changes.append)
    shown = dict(table.public_view())
    import orjson
    shown = orjson.loads(orjson.dumps(shown))
    for round_no in range(1, 13):
        pick_all(table, tokens, round_no)
        table.skip()
    for change in changes:
        assert change.patch_json is not None
        apply(shown, orjson.loads(change.patch_json))
        assert shown == orjson.loads(change.view_json)
    assert shown["phase"] == "finished"
    with pytest.raises(ValueError):  # a page that missed one notices
        apply(shown, orjson.loads(changes[-2].patch_json or b"[]"))


def test_diff_copies_the_appended_last_round() -> None:
    entry = {"round": 2, "events": [{"type": "reveal"}]}
    old = {"version": 1, "history": [{"round": 1}], "last_round": {"round": 1}}
    new = {"version": 2, "history": [{"round": 1}, entry], "last_round": entry}
    ops = diff(old, new)
    assert {"op": "copy", "from": "/history/1", "path": "/last_round"} in ops
    assert apply(old, ops) == new
