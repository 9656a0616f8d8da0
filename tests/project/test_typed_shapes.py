"""One shape end to end (issue 44, item 1): the engine's events travel typed through the
timeline and the playback, and become their JSON form only where JSON is written; the
listeners get the typed view; no ``cast`` anywhere in the product's code; each event's
JSON form is described once (engine/events.py) and holds exactly its event's fields."""

from __future__ import annotations

import ast
import dataclasses
import random
import typing
from pathlib import Path

from kalimambo.engine import Game, random_setup
from kalimambo.engine import events as ev
from kalimambo.web.core.viewtypes import PublicView
from kalimambo.web.table.publisher import Change
from tests.helpers import ROOT

PRODUCT = ("engine", "web", "firmware", "kalimambo")
TYPED_PATH = ("engine/timeline.py", "web/core/playback.py", "web/core/happenings.py",
              "web/table/publisher.py", "web/table/storedgame.py", "web/table/highlights.py")
"""Where the events go from the engine to the view: typed all the way."""
FORMS = {ev.Reveal: ev.EventReveal, ev.Stay: ev.EventStay, ev.Move: ev.EventMove,
         ev.Dung: ev.EventDung, ev.RhinoRun: ev.EventRhinoRun, ev.Penalty: ev.EventPenalty,
         ev.RoundEnd: ev.EventRoundEnd}


def sources() -> list[Path]:
    return [path for folder in PRODUCT for path in sorted((ROOT / folder).rglob("*.py"))]


def calls(tree: ast.AST, name: str) -> list[ast.Call]:
    """Every call of ``name`` or ``something.name`` in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called == name:
                found.append(node)
    return found


def test_no_cast_in_the_product() -> None:
    found = [f"{path.relative_to(ROOT)}:{call.lineno}" for path in sources()
             for call in calls(ast.parse(path.read_text("utf-8")), "cast")]
    assert found == []


def test_the_playback_gets_typed_events_never_their_json_form() -> None:
    """Nothing calls ``to_dict()`` to hand a playback or the timeline its events."""
    found = []
    for path in sources():
        tree = ast.parse(path.read_text("utf-8"))
        for call in calls(tree, "begin") + calls(tree, "round_steps"):
            if any(isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "to_dict"
                   for arg in call.args for node in ast.walk(arg)):
                found.append(f"{path.relative_to(ROOT)}:{call.lineno}")
    assert found == []


def test_the_events_path_names_no_loose_type() -> None:
    """Between the engine and the view, nothing is typed ``Any`` (no
    ``Mapping[str, Any]`` or ``dict[str, Any]`` for an event or a view)."""
    found = []
    for name in TYPED_PATH:
        text = (ROOT / name).read_text("utf-8")
        for line_no, line in enumerate(text.splitlines(), start=1):
            if "Any" in line and not line.lstrip().startswith(("#", '"')):
                found.append(f"{name}:{line_no}: {line.strip()}")
    assert found == []


def test_listeners_get_the_typed_view() -> None:
    assert typing.get_type_hints(Change)["view"] is PublicView


def test_each_event_s_json_form_is_described_once_with_exactly_its_fields() -> None:
    """Every kind of event, from real games: its ``to_dict`` has exactly the keys of its
    TypedDict, in that order, which are exactly the dataclass's fields; read back, it is
    the same event."""
    seen: set[type] = set()
    rng = random.Random(5)
    for seed in range(40):
        names = ["Ana", "Ben", "Caro", "Dan", "Eva"][:3 + seed % 3]
        game = Game(names, random_setup(names, 32, rng), 32, seed=seed)
        while not game.finished:
            for event in game.play_round({n: rng.choice(game.hand(n)) for n in names}):
                form = FORMS[type(event)]
                data = event.to_dict()
                assert list(data) == list(form.__annotations__), type(event)
                assert set(data) == {f.name for f in dataclasses.fields(event)}
                assert ev.event_from_dict(data) == event
                seen.add(type(event))
    assert seen == set(FORMS)


def test_the_check_finds_a_cast_and_a_to_dict_before_a_playback(tmp_path: Path) -> None:
    tree = ast.parse("from typing import cast\nx = cast('int', y)\n"
                     "Playback.begin(1, [e.to_dict() for e in events], before)\n")
    assert len(calls(tree, "cast")) == 1
    (begin,) = calls(tree, "begin")
    assert any(isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "to_dict"
               for arg in begin.args for node in ast.walk(arg))
