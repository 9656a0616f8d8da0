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
    "firmware": ("kalimambo.engine", "kalimambo.firmware"),
    # The table speaks the lights' wire format and reads board files; both modules are
    # standard library only, so the web worker still never touches hardware libraries.
    "web": ("kalimambo.engine", "kalimambo.web", "kalimambo.firmware.wire",
            "kalimambo.firmware.board"),
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
                      "    import kalimambo.web.app\n")
    assert project_imports(sample) == ["kalimambo.args", "kalimambo.web.app"]
