"""The examples in the docstrings are run: an example that no longer holds fails here.

Every module of the project with a ``>>>`` in it is found by reading the sources, so a new
example runs without anyone listing it.
"""

from __future__ import annotations

import doctest
import importlib

import pytest

from tests.helpers import ROOT

PACKAGES = ("engine", "firmware", "web", "kalimambo")


def modules_with_examples() -> list[str]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.is_symlink() or ">>> " not in path.read_text("utf-8"):
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts if package == "kalimambo" else ("kalimambo", *parts))
            found.append(name.removesuffix(".__init__"))
    return found


def test_the_tree_has_examples_to_run() -> None:
    assert len(modules_with_examples()) >= 5


@pytest.mark.parametrize("name", modules_with_examples())
def test_the_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
