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


@pytest.mark.slow  # mypy over the whole tree, without its cache: about 10 s
def test_mypy_is_clean() -> None:
    done = subprocess.run([tool("mypy"), "--no-incremental"], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
