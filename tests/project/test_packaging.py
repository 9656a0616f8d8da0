"""What ``pip install .`` puts into site-packages: one import name, ``kalimambo``.

The repository keeps its known layout (engine/, web/, firmware/ at the top); they are
installed as ``kalimambo.engine``, ``kalimambo.web`` and ``kalimambo.firmware`` (the
``package-dir`` map in pyproject.toml). Nothing from bench/ or tests/ may be installed,
the folders' own names must not import in a clean environment, and the editable install
(setup.sh's) gives each module its own path in the checkout.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel pip builds from the checkout, and what the build printed."""
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                           "-w", str(out), str(ROOT)], capture_output=True, text=True,
                          cwd=out, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    (found,) = out.glob("kalimambo-*.whl")
    return found, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(built: tuple[Path, str]) -> Path:
    return built[0]


def test_the_build_warns_of_no_folder_left_out(built: tuple[Path, str]) -> None:
    """setuptools names every folder inside a package that ``packages`` lacks (static/,
    templates/...) in a long warning that setup.sh would print on every install, and
    says a later setuptools will leave it out of the wheel."""
    output = built[1]
    left_out = [line.strip() for line in output.splitlines()
                if "is absent from the `packages` configuration" in line]
    assert left_out == [], "\n".join(left_out)


def test_the_wheel_holds_only_the_kalimambo_package(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names}
    assert tops == {"kalimambo", wheel.name.split("-py3")[0] + ".dist-info"}, tops
    for part in ("engine/rules.py", "web/http/app.py", "firmware/lights.py", "cli.py",
                 "web/static/common/dom.js", "web/static/board/ring.js", "web/i18n/en.json",
                 "firmware/templates"):
        assert any(name.startswith("kalimambo/" + part) for name in names), part
    leaked = [name for name in names if name.startswith(("bench/", "tests/"))
              or "/tests/" in name or "reference_rules" in name or "straightforward" in name]
    assert leaked == []


def test_a_fresh_venv_has_one_top_level_name(wheel: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True).stdout.strip())
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)  # what pip does for a pure wheel, without a network
    added = sorted(path.name for path in site.iterdir())
    assert [name for name in added if not name.endswith(".dist-info")] == ["kalimambo"]

    def run(code: str) -> subprocess.CompletedProcess[str]:
        # Run away from the checkout, so its folders cannot be imported by accident.
        return subprocess.run([str(python), "-c", code], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)

    assert run("import kalimambo.engine.rules, kalimambo.engine.record").returncode == 0
    for old in ("engine", "web", "firmware", "bench"):
        failed = run(f"import {old}")
        assert failed.returncode != 0 and "ModuleNotFoundError" in failed.stderr, old


def test_the_editable_install_imports_each_module_from_its_own_path(tmp_path: Path) -> None:
    """The setup.sh venv, run away from the checkout: the one name, the folder's file."""
    code = ("import kalimambo.engine.game as g, kalimambo.web.http.app as a, "
            "kalimambo.firmware.lights as f, kalimambo.cli as c; "
            "print(g.__file__, a.__file__, f.__file__, c.__file__)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, check=True)
    assert done.stdout.split() == [str(ROOT / "engine/game.py"), str(ROOT / "web/http/app.py"),
                                   str(ROOT / "firmware/lights.py"),
                                   str(ROOT / "kalimambo/cli.py")]


def test_the_repository_holds_no_link() -> None:
    """The import names are paths: no folder stands in for another. (The tree is walked,
    not asked of git: the Debian root's copy of the checkout has no .git.)"""
    folders = ("engine", "web", "firmware", "kalimambo", "bench", "tools", "deploy",
               "hardware", "docs", "tests")
    links = [str(path.relative_to(ROOT)) for folder in folders
             for path in [ROOT / folder, *(ROOT / folder).rglob("*")] if path.is_symlink()]
    assert links == []
