"""The parts' edges run one way: the engine stands alone, firmware and web build on it,
the command line (kalimambo/*.py) builds on all three, and nothing points back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers import ROOT

# What each part may import of the project (any other kalimambo.* is a wrong edge).
ALLOWED = {
    "engine": ("kalimambo.engine",),
    # The lights read the table's public view as web/core/viewtypes.py describes it (a
    # description only: TypedDicts over the engine's types, nothing of the web's).
    "firmware": ("kalimambo.engine", "kalimambo.firmware", "kalimambo.web.core.viewtypes"),
    # The table speaks the lights' wire format and reads board files; both modules are
    # standard library only, so the web worker still never touches hardware libraries.
    "web": ("kalimambo.engine", "kalimambo.web", "kalimambo.firmware.wire",
            "kalimambo.firmware.hardware"),
}


def project_imports(path: Path) -> list[str]:
    """Every ``kalimambo...`` module a file imports, at any depth of the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return [name for name in found if name == "kalimambo" or name.startswith("kalimambo.")]


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_each_part_imports_only_what_it_builds_on(part: str) -> None:
    wrong = [(path.name, name) for path in sorted((ROOT / part).rglob("*.py"))
             for name in project_imports(path)
             if not any(name == ok or name.startswith(ok + ".") for ok in ALLOWED[part])]
    assert wrong == []


def test_the_check_sees_a_wrong_edge(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from kalimambo.args import fail\n\ndef f():\n"
                      "    import kalimambo.web.http.app\n")
    assert project_imports(sample) == ["kalimambo.args", "kalimambo.web.http.app"]


# The table's core (web/core/): the pure state machine and what it is made of. It is driven
# with the time passed in and touches no web framework, thread, database or clock, so each
# piece can be tested (and replayed) alone; the other rooms of web/ wrap it. Every module
# in the folder is checked, so a new one is too.
CORE = ROOT / "web" / "core"
TABLE_CORE = tuple(sorted(f"core.{path.stem}" for path in CORE.glob("*.py")
                          if path.name != "__init__.py"))
NOT_IN_THE_CORE = ("flask", "werkzeug", "gunicorn", "gevent", "threading", "sqlite3",
                   "socket", "time", "datetime")


def module_path(name: str) -> Path | None:
    """The file of a ``kalimambo.X.Y`` module in the checkout (None for a name inside one)."""
    relative = Path(*name.split(".")[1:])
    for path in (ROOT / relative.with_suffix(".py"), ROOT / relative / "__init__.py"):
        if path.exists():
            return path
    return None


def web_closure(module: str) -> dict[str, list[str]]:
    """Every web module ``module`` reaches through the project's imports, each with all
    it imports (the engine stands alone and is checked above)."""
    found: dict[str, list[str]] = {}
    todo = [f"kalimambo.web.{module}"]
    while todo:
        name = todo.pop()
        path = module_path(name)
        if name in found or path is None:
            continue
        tree = ast.parse(path.read_text("utf-8"))
        names = [node.module for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and node.level == 0]
        names += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                  for alias in node.names]
        found[name] = names
        todo += [n for n in names if n.startswith("kalimambo.web.")]
    return found


@pytest.mark.parametrize("module", TABLE_CORE)
def test_the_table_core_uses_no_framework_thread_database_or_clock(module: str) -> None:
    wrong = [(name, imported) for name, names in web_closure(module).items()
             for imported in names if imported.split(".")[0] in NOT_IN_THE_CORE]
    assert wrong == []


def test_the_core_builds_on_the_engine_alone() -> None:
    """Within the project the core imports only the engine and itself: no other room."""
    wrong = [(path.name, name) for path in sorted(CORE.glob("*.py"))
             for name in project_imports(path)
             if not name.startswith(("kalimambo.engine", "kalimambo.web.core"))]
    assert len(TABLE_CORE) >= 9 and wrong == []


def http_statuses(source: str) -> list[int]:
    """The HTTP error statuses (400-599) written as numbers in ``source``."""
    return [node.value for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and type(node.value) is int
            and 400 <= node.value < 600]


def test_the_core_chooses_no_http_status() -> None:
    """A refusal in the core says what kind of wrong it is; its HTTP status is chosen in
    web/http/statuses.py alone (the core could answer over any transport)."""
    wrong = {path.name: found for path in sorted(CORE.glob("*.py"))
             if (found := http_statuses(path.read_text("utf-8")))}
    assert wrong == {}


def test_the_status_check_sees_a_status() -> None:
    assert http_statuses("raise Refusal(409 if late else 400, code, message)") == [409, 400]
    assert http_statuses("rounds = 12; leds = 300; on = True") == []


def test_the_core_check_sees_a_store_behind_an_import() -> None:
    """The replay reads the archive, so it is not (yet) in the core: the check says so."""
    reached = web_closure("table.replay")
    store = "kalimambo.web.storage.store"
    assert store in reached and "sqlite3" in reached[store]
