"""The pages' JavaScript is type-checked: TypeScript's checker over the JSDoc types.

``jsconfig.json`` at the root says how (``checkJs``, strict but for ``noImplicitAny`` and
``useUnknownInCatchVariables``; lib dom and es2022);
``package-lock.json`` pins the checker, which ``./setup.sh --dev`` puts into
``node_modules/`` with ``npm ci``. The check reads only files on this machine: no network.
The calibrate page's script is inline in firmware/templates/calibrate.html, not a
module, so there is nothing there for it to check.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers import ROOT

TSC = ROOT / "node_modules" / ".bin" / "tsc"
CONFIG = ROOT / "jsconfig.json"


def run_tsc(project: Path) -> subprocess.CompletedProcess[str]:
    if not TSC.exists() or shutil.which("node") is None:
        pytest.fail("the JavaScript checker is missing: './setup.sh --dev' installs it "
                    "(it needs node and npm: 'sudo apt-get install nodejs npm')")
    return subprocess.run([str(TSC), "-p", str(project / CONFIG.name), "--pretty", "false"],
                          cwd=project, capture_output=True, text=True, timeout=120)


def test_the_pinned_checker_is_the_one_installed() -> None:
    lock = json.loads((ROOT / "package-lock.json").read_text("utf-8"))
    pinned = lock["packages"]["node_modules/typescript"]["version"]
    installed = json.loads((ROOT / "node_modules" / "typescript" / "package.json")
                           .read_text("utf-8"))["version"]
    assert installed == pinned, "node_modules is stale: run './setup.sh --dev'"


def test_the_pages_javascript_is_clean() -> None:
    done = run_tsc(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == ""


def test_the_check_finds_a_wrong_type(tmp_path: Path) -> None:
    """The same settings over a copy of one module with a mistake the pages could make."""
    static = tmp_path / "web" / "static"
    (static / "common").mkdir(parents=True)
    shutil.copy(CONFIG, tmp_path / CONFIG.name)
    shutil.copy(ROOT / "web" / "static" / "common" / "ring.js", static / "common" / "ring.js")
    (static / "wrong.js").write_text(
        'import { ringPoint } from "./common/ring.js";\n'
        "const [x] = ringPoint(1, 32, 0, 0, 10);\n"
        "x.toUpperCase();\n"             # a number has no toUpperCase
        "document.body.hiden = true;\n"  # a typo of hidden
        'import { nothing } from "./common/ring.js";\n', encoding="utf-8")
    done = run_tsc(tmp_path)
    assert done.returncode != 0
    out = done.stdout
    assert "wrong.js(3," in out and "toUpperCase" in out, out
    assert "wrong.js(4," in out and "hiden" in out, out
    assert "wrong.js(5," in out and "nothing" in out, out
