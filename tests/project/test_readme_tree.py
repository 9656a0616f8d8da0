"""The README's architecture tree is the map of the code: every module of the project's
parts is named in it, and every module it names exists (a rename that forgets the map
fails here)."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from tests.helpers import ROOT

MAPPED = ("engine", "kalimambo", "web", "firmware")
"""The parts whose every module the tree names (bench/, deploy/ and tests/ it sums up)."""
JS_PARTS = ("common", "phone", "board", "host")
"""Folders of web/static whose modules the tree names by their stem, in words."""
NAMED = re.compile(r"(?<![\w.-])[\w*-]+\.(?:py|js)\b(?!on)")
"""A file name in the tree: ``name.py``, ``ai_*.py``, ``board.js`` (not ``x.json``)."""


def tree(readme: str) -> str:
    """The code block under ``## Architecture``."""
    after = readme[readme.index("## Architecture"):]
    return after.split("```")[1]


def unnamed(block: str, root: Path) -> list[str]:
    """The modules of the mapped parts that the tree does not name."""
    names = set(NAMED.findall(block))
    patterns = [name for name in names if "*" in name]
    missing = []
    for part in MAPPED:
        for path in sorted((root / part).rglob("*")):
            if path.suffix not in (".py", ".js") or path.name == "__init__.py" \
                    or "__pycache__" in path.parts:
                continue
            if path.name in names or any(fnmatch.fnmatch(path.name, p) for p in patterns):
                continue
            if path.suffix == ".js" and path.parent.name in JS_PARTS \
                    and re.search(rf"(?<![\w-]){re.escape(path.stem)}(?![\w-])", block):
                continue
            missing.append(str(path.relative_to(root)))
    return missing


def gone(block: str, root: Path) -> list[str]:
    """The files the tree names that are nowhere in the repository."""
    present = {path.name for path in root.rglob("*")
               if not {".git", ".venv", "node_modules"} & set(path.parts)}
    return sorted(name for name in set(NAMED.findall(block))
                  if "*" not in name and name not in present)


def test_the_tree_names_every_module_and_only_modules_that_exist() -> None:
    block = tree((ROOT / "README.md").read_text("utf-8"))
    assert unnamed(block, ROOT) == []
    assert gone(block, ROOT) == []


def test_the_check_sees_a_module_left_off_and_one_named_wrongly(tmp_path: Path) -> None:
    (tmp_path / "web" / "static" / "board").mkdir(parents=True)
    (tmp_path / "web" / "table.py").write_text("")
    (tmp_path / "web" / "extra.py").write_text("")
    (tmp_path / "web" / "static" / "board" / "ring.js").write_text("")
    block = "web/\n  table.py   the table\n  gone.py   renamed since\n  board/  ring, chart\n"
    assert unnamed(block, tmp_path) == ["web/extra.py"]
    assert gone(block, tmp_path) == ["gone.py"]
