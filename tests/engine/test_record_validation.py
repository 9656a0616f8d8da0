"""Every rule of RECORD.md broken once: each refused with a message naming key and reason."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kalimambo.engine import RecordError, parse_record, resolve_record
from tests.helpers import assert_refused, kalimambo

Record = dict[str, Any]


def good() -> Record:
    return {
        "format": "kalimambo-record/1",
        "track_length": 32,
        "players": ["Ana", "Ben", "Caro"],
        "setup": {"rhino": 5, "order": ["Ben", "Ana", "Caro"], "dung": [14, 18, 22, 26, 29, 2]},
        "rounds": [
            {"cards": {"Ana": 7, "Ben": 3, "Caro": 11}, "kali": 5},
            {"cards": {"Ana": 2, "Ben": 4, "Caro": 10}, "kali": 6},
            {"cards": {"Ana": 1, "Ben": 5, "Caro": 9}, "kali": 7},
        ],
    }


def edit(change: Callable[[Record], object]) -> Record:
    record = copy.deepcopy(good())
    change(record)
    return record


def setitem(path: list[Any], value: Any) -> Callable[[Record], None]:
    def change(record: Record) -> None:
        target: Any = record
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def delitem(path: list[Any]) -> Callable[[Record], None]:
    def change(record: Record) -> None:
        target: Any = record
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


CASES: list[tuple[str, Any, str]] = [
    ("not an object", ["a", "list"], "record: must be a JSON object"),
    ("format missing", edit(delitem(["format"])), "format: expected"),
    ("format wrong", edit(setitem(["format"], "kalimambo-record/2")), "format: expected"),
    ("track not a number", edit(setitem(["track_length"], "32")), "track_length: must be"),
    ("track a bool", edit(setitem(["track_length"], True)), "track_length: must be"),
    ("track shorter than players + 3",
     edit(lambda r: r.update(track_length=5, setup={"rhino": 0, "order": ["Ana", "Ben", "Caro"],
                                                     "dung": []}, rounds=[])),
     "track_length: 5 spaces is too short for 3 players"),
    ("track shorter than players + 2 + heaps",
     edit(lambda r: r.update(track_length=7, setup={"rhino": 0, "order": ["Ana", "Ben", "Caro"],
                                                     "dung": [5, 6, 3]}, rounds=[])),
     "track_length: 7 spaces is too short for 3 players and 3 heaps"),
    ("track over 1000", edit(setitem(["track_length"], 1001)), "track_length: 1001 spaces is more"),
    ("players not a list", edit(setitem(["players"], "Ana,Ben,Caro")), "players: must be a list"),
    ("two players", edit(setitem(["players"], ["Ana", "Ben"])), "players: 2 players"),
    ("eight players", edit(setitem(["players"], [f"P{i}" for i in range(8)])),
     "players: 8 players"),
    ("empty name", edit(setitem(["players", 1], "")), "players[1]: must be a non-empty name"),
    ("name not a string", edit(setitem(["players", 2], 7)), "players[2]: must be a non-empty"),
    ("duplicate name", edit(setitem(["players", 2], "Ana")), "players[2]: Ana is named twice"),
    ("Kali reserved", edit(setitem(["players", 0], "Kali")), "players[0]: \"Kali\" is reserved"),
    ("setup missing", edit(delitem(["setup"])), "setup: must be an object"),
    ("rhino missing", edit(delitem(["setup", "rhino"])), "setup.rhino: must be a space number"),
    ("rhino off track", edit(setitem(["setup", "rhino"], 32)), "setup.rhino: 32 is off the track"),
    ("rhino negative", edit(setitem(["setup", "rhino"], -1)), "setup.rhino: -1 is off the track"),
    ("order missing a player", edit(setitem(["setup", "order"], ["Ben", "Ana"])),
     "setup.order: Caro is missing"),
    ("order with a stranger", edit(setitem(["setup", "order"], ["Ben", "Ana", "Zoe"])),
     "setup.order[2]: 'Zoe' is not a player"),
    ("order with a player twice", edit(setitem(["setup", "order"], ["Ben", "Ana", "Ben"])),
     "setup.order[2]: Ben stands twice"),
    ("order not a list", edit(setitem(["setup", "order"], "Ben")), "setup.order: must list"),
    ("dung not a list", edit(setitem(["setup", "dung"], 14)), "setup.dung: must be a list"),
    ("seven heaps", edit(setitem(["setup", "dung"], [14, 16, 18, 20, 22, 24, 26])),
     "setup.dung: 7 heaps"),
    ("two heaps on a space", edit(setitem(["setup", "dung", 1], 14)),
     "setup.dung[1]: two heaps on space 14"),
    ("heap under a figure", edit(setitem(["setup", "dung", 0], 7)),
     "setup.dung[0]: space 7 holds a figure or Mambo"),
    ("heap under Kali", edit(setitem(["setup", "dung", 0], 9)),
     "setup.dung[0]: space 9 holds a figure or Mambo"),
    ("heap under Mambo", edit(setitem(["setup", "dung", 0], 5)),
     "setup.dung[0]: space 5 holds a figure or Mambo"),
    ("heap off track", edit(setitem(["setup", "dung", 0], 40)),
     "setup.dung[0]: 40 is off the track"),
    ("heap not a number", edit(setitem(["setup", "dung", 0], "14")),
     "setup.dung[0]: must be a space number"),
    ("rounds not a list", edit(setitem(["rounds"], {})), "rounds: must be a list"),
    ("thirteen rounds", edit(lambda r: r.update(rounds=r["rounds"] * 5)), "rounds: 15 rounds"),
    ("round not an object", edit(setitem(["rounds", 1], [7, 3, 11])),
     "rounds[1]: must be an object"),
    ("cards missing", edit(delitem(["rounds", 0, "cards"])), "rounds[0].cards: must map"),
    ("card for a stranger", edit(setitem(["rounds", 0, "cards", "Zoe"], 4)),
     "rounds[0].cards.Zoe: not a player"),
    ("player without a card", edit(delitem(["rounds", 2, "cards", "Ben"])),
     "rounds[2].cards.Ben: missing"),
    ("card too high", edit(setitem(["rounds", 0, "cards", "Ana"], 12)),
     "rounds[0].cards.Ana: 12 is not a card"),
    ("card negative", edit(setitem(["rounds", 0, "cards", "Ana"], -1)),
     "rounds[0].cards.Ana: -1 is not a card"),
    ("card not a number", edit(setitem(["rounds", 0, "cards", "Ana"], "7")),
     "rounds[0].cards.Ana: \"7\" is not a card"),
    ("card a float", edit(setitem(["rounds", 0, "cards", "Ana"], 7.0)),
     "rounds[0].cards.Ana: 7.0 is not a card"),
    ("card played twice", edit(setitem(["rounds", 2, "cards", "Ben"], 3)),
     "rounds[2].cards.Ben: 3 was already played in round 1"),
    ("kali missing", edit(delitem(["rounds", 1, "kali"])), "rounds[1].kali: missing"),
    ("kali too high", edit(setitem(["rounds", 1, "kali"], 12)), "rounds[1].kali: 12 is not a card"),
    ("kali played twice", edit(setitem(["rounds", 2, "kali"], 6)),
     "rounds[2].kali: 6 was already played in round 2"),
]


@pytest.mark.parametrize(("data", "message"), [(c[1], c[2]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_broken_record_is_refused(data: Any, message: str) -> None:
    with pytest.raises(RecordError) as caught:
        parse_record(data)
    assert str(caught.value).startswith(message), str(caught.value)
    assert "\n" not in str(caught.value)


def test_the_example_message_of_record_md() -> None:
    record = good()
    record["rounds"] = [{"cards": {"Ana": i, "Ben": 11 - i if i != 3 else 7, "Caro": i},
                         "kali": i} for i in range(3)]
    record["rounds"][1]["cards"]["Ben"] = 7
    record["rounds"].append({"cards": {"Ana": 9, "Ben": 7, "Caro": 9}, "kali": 9})
    with pytest.raises(RecordError, match=r"^rounds\[3\]\.cards\.Ben: 7 was already played "
                                          r"in round 2$"):
        parse_record(record)


def test_unknown_keys_are_ignored_except_inside_cards() -> None:
    record = good()
    record["comment"] = "Friday night"
    record["setup"]["colour"] = "green"
    record["rounds"][0]["note"] = "Ben hesitated"
    assert resolve_record(parse_record(record)) == resolve_record(parse_record(good()))


def test_a_record_with_no_rounds_replays_to_the_setup() -> None:
    record = good()
    record["rounds"] = []
    result = resolve_record(parse_record(record))
    assert result["rounds_played"] == 0 and not result["finished"]
    assert result["positions"] == {"Ben": 6, "Ana": 7, "Caro": 8, "Kali": 9}
    assert result["winners"] == ["Ana", "Ben", "Caro"] and result["snapshots"] == []


@pytest.mark.parametrize(("data", "message"), [(c[1], c[2]) for c in CASES[::6]],
                         ids=[c[0] for c in CASES[::6]])
def test_cli_refuses_with_one_line_and_exit_2(tmp_path: Path, data: Any, message: str) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    done = kalimambo("replay", str(path))
    assert done.stdout == ""
    assert_refused(done, message)


def test_the_lean_and_the_careful_round_checks_agree() -> None:
    """Good rounds take a fast path; it must accept exactly what the careful one does."""
    import random

    from kalimambo.engine.record import _rounds_checked, _rounds_fast
    from tests.helpers import random_record

    rng = random.Random(5)
    for _ in range(300):
        record = random_record(rng, rng.randint(3, 7), rounds=rng.randint(0, 12))
        players = tuple(record["players"])
        rounds = record["rounds"]
        if rounds and rng.random() < 0.7:
            entry = rng.choice(rounds)
            kind = rng.randrange(6)
            if kind == 0:
                entry["cards"][rng.choice(players)] = rng.randrange(-1, 13)
            elif kind == 4:
                entry["cards"][rng.choice(players)] = rng.choice([[3], {"v": 3}, True, 3.0,
                                                                  None, "3"])
            elif kind == 5:
                entry["kali"] = rng.choice([[3], True, 3.0, None])
            elif kind == 1:
                entry["kali"] = rng.randrange(-1, 13)
            elif kind == 2:
                entry["cards"]["Zoe"] = 1
            else:
                del entry["cards"][rng.choice(players)]
        fast = _rounds_fast(rounds, players)
        try:
            careful: object = _rounds_checked(rounds, players)
        except RecordError:
            careful = None
        assert fast == careful
