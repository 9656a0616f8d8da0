"""The code stays ``ruff`` and ``mypy`` clean (strict on engine/): the tests enforce it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

BIN = Path(sys.executable).parent


def tool(name: str) -> str:
    found = BIN / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def test_ruff_is_clean() -> None:
    done = subprocess.run([tool("ruff"), "check", "--no-cache", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow  # mypy over the whole tree, without its cache: about 15 s
def test_mypy_is_clean() -> None:
    """tools/typecheck.py: mypy given every module under its import name."""
    done = subprocess.run([sys.executable, "tools/typecheck.py", "--no-incremental"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    count = int(done.stdout.split(" in ")[-1].split()[0])
    modules = sum(1 for folder in ("engine", "web", "firmware", "kalimambo", "bench")
                  for _ in (ROOT / folder).rglob("*.py"))
    assert count >= modules, done.stdout   # every module checked, none left as Any
