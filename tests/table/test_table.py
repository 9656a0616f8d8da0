"""The table around the state machine: saved before applied, and a refused write
changes nothing (real SQLite, no Flask, no threads, a clock the test sets)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from kalimambo.web.core.happenings import PickMade, RoundOpened, RoundResolved, StepShown
from kalimambo.web.storage.store import StorageError, Store
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.publisher import Change
from kalimambo.web.table.table import Table
from kalimambo.web.table.tasks import InlineRunner

NAMES = ["Ana", "Ben", "Caro"]


def seated(tmp_path: Path, pacing: str = "step") -> tuple[Table, dict[str, str]]:
    store = Store(tmp_path / "kalimambo.sqlite3")
    table = Table(store, 32, HostAuth(store, "1234", "key"), runner=InlineRunner(),
                  default_pacing=pacing, default_pause_ms=500, clock=lambda: 0.0)
    tokens = {n: table.join(n)[1] for n in NAMES}
    table.start({"rhino": 0, "order": NAMES, "dung": [10, 20]}, seed=3)
    return table, tokens


def test_each_pick_and_round_is_in_the_store_when_the_listeners_hear_of_it(
        tmp_path: Path) -> None:
    table, tokens = seated(tmp_path)
    seen: list[tuple[Change, dict[str, int], int]] = []
    table.listeners.append(lambda change: seen.append(
        (change, table.store.picks(table.game_id, 1), len(table.store.rounds(table.game_id)))))
    table.pick(tokens["Ana"], 1, 4)
    change, picks, rounds = seen[-1]
    assert change.happened == (PickMade(1, "Ana"),) and picks == {"Ana": 4} and rounds == 0
    table.pick(tokens["Ben"], 1, 5)
    table.pick(tokens["Caro"], 1, 6)
    change, _, rounds = seen[-1]
    assert rounds == 1 and [type(e) for e in change.happened] == [PickMade, RoundResolved]
    assert orjson.loads(change.happened_json) == [  # step pacing: nothing shown yet
        {"type": "pick_made", "round": 1, "player": "Caro"},
        {"type": "round_resolved", "round": 1}]
    table.next_step()
    change = seen[-1][0]
    step = change.happened[0]
    assert isinstance(step, StepShown) and step.kind == "reveal" and not step.skipped
    assert orjson.loads(change.happened_json) == [step.public()]
    assert "happened" not in change.view  # told beside the view, never in it
    reveal = change.view["playback"]["shown"][step.first]
    assert reveal["type"] == "reveal" and reveal["cards"] == {"Ana": 4, "Ben": 5, "Caro": 6}
    table.skip()
    assert RoundOpened(2) in seen[-1][0].happened


@pytest.mark.parametrize("command", ["pick", "last_pick", "undo", "new_game", "settings",
                                     "join"])
def test_a_refused_write_changes_nothing(tmp_path: Path, command: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    table, tokens = seated(tmp_path)
    if command == "undo":
        for i, name in enumerate(NAMES):
            table.pick(tokens[name], 1, i)
    if command == "last_pick":
        table.pick(tokens["Ana"], 1, 0)
        table.pick(tokens["Ben"], 1, 1)
    if command == "join":
        table.new_game()

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise StorageError("the disk is full")

    for method in ("set_pick", "add_round", "undo_round", "new_game", "set_settings",
                   "add_seats"):
        monkeypatch.setattr(table.store, method, refuse)
    before = (table.state.snapshot(), table.current)
    heard: list[Change] = []
    table.listeners.append(heard.append)
    run = {"pick": lambda: table.pick(tokens["Ana"], 1, 7),
           "last_pick": lambda: table.pick(tokens["Caro"], 1, 2),
           "undo": table.undo, "new_game": table.new_game,
           "settings": lambda: table.settings({"pacing": "auto"}),
           "join": lambda: table.join("Dan")}[command]
    with pytest.raises(StorageError):
        run()
    assert (table.state.snapshot(), table.current) == before and heard == []
