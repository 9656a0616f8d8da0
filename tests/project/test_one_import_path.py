"""Each module of the project has one name, under ``kalimambo``: from the checkout's root
``web.core.state`` would otherwise load a second copy of ``kalimambo.web.core.state``,
with classes of its own (an ``ApiError`` that ``except kalimambo.web.core.refusals.ApiError``
never catches)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.helpers import ROOT

SHORT_NAMES = ("engine", "firmware", "web")
SOURCES = ("bench", "engine", "firmware", "kalimambo", "tests", "web")
SECOND_NAME = re.compile(rf"^\s*(from|import)\s+({'|'.join(SHORT_NAMES)})(\.|\s|$)", re.M)


@pytest.mark.parametrize("name", [*SHORT_NAMES, "web.core.state", "engine.game"])
def test_the_short_name_refuses_to_load(name: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"import kalimambo.{name.split('.')[0]}, not" in done.stderr


ROOMS = sorted(path.parent.name for path in (ROOT / "web").glob("*/__init__.py"))


@pytest.mark.parametrize("room", ROOMS)
def test_a_room_of_web_refuses_its_short_name_from_inside_web(room: str) -> None:
    """From inside web/, ``core.state`` would be a second copy of ``kalimambo.web.core.state``:
    each room's ``__init__.py`` refuses it too."""
    done = subprocess.run([sys.executable, "-c", f"import {room}"], cwd=ROOT / "web",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert f"import kalimambo.web.{room}, not {room}" in done.stderr


def test_the_long_name_loads_from_the_checkouts_root() -> None:
    done = subprocess.run([sys.executable, "-c", "import kalimambo.web.core.state, "
                           "kalimambo.engine.game, kalimambo.firmware.show"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_no_source_imports_a_short_name() -> None:
    found = [f"{path.relative_to(ROOT)}: {match.group(0).strip()}"
             for folder in SOURCES for path in sorted((ROOT / folder).rglob("*.py"))
             if not path.is_symlink()
             for match in SECOND_NAME.finditer(path.read_text("utf-8"))]
    assert found == []
