"""deploy/build_lgpio.py: the cache key, the cache, what a build needs, the wheel check, and
that setup.sh --dev, pyproject.toml's dev marker and the tests agree on where lgpio comes.

The real build from lgpio's source runs in tests/debian/run-in-root (Debian 13, Python
3.13, where PyPI has no wheel); here nothing is downloaded or compiled."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import LGPIO_MACHINES
from tests.helpers import ROOT

BUILDER = ROOT / "deploy" / "build_lgpio.py"


def load_builder() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_lgpio", BUILDER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


builder = load_builder()


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any use of pip (a download, a build) fails the test."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pip was used, though the wheel is cached")
    monkeypatch.setattr(builder, "Pip", refuse)


def linux_x86_64(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builder.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(builder.sys, "platform", "linux")


def test_the_cache_key_names_version_python_and_machine(
        monkeypatch: pytest.MonkeyPatch) -> None:
    linux_x86_64(monkeypatch)
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    assert builder.python_tag() in (tag, tag + "t")
    assert builder.cache_key("0.2.2.0") == f"lgpio-0.2.2.0-{builder.python_tag()}-x86_64"
    monkeypatch.setattr(builder.platform, "machine", lambda: "aarch64")
    assert builder.cache_key("9.9").endswith("-aarch64")


@pytest.mark.parametrize(("system", "machine"), [("linux", "armv7l"), ("darwin", "x86_64")])
def test_machines_without_the_dev_extras_lgpio_are_refused(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path, system: str, machine: str) -> None:
    monkeypatch.setattr(builder.platform, "machine", lambda: machine)
    monkeypatch.setattr(builder.sys, "platform", system)
    assert builder.main(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"not {system} {machine}" in err
    assert len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_a_cached_wheel_is_used_without_pip(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path, no_network: None) -> None:
    linux_x86_64(monkeypatch)
    folder = tmp_path / builder.cache_key(builder.LGPIO_VERSION)
    folder.mkdir()
    wheel = folder / f"lgpio-{builder.LGPIO_VERSION}-cp3x-cp3x-linux_x86_64.whl"
    wheel.write_bytes(b"")
    assert builder.main(["--out", str(tmp_path)]) == 0
    assert capsys.readouterr().out == f"{wheel}\n"  # the path, alone on standard output
    assert builder.main(["--out", str(tmp_path), "--missing-tools"]) == 0
    assert capsys.readouterr().out == ""  # nothing to build: nothing is missing


def test_another_version_or_python_is_not_taken_from_the_cache(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    linux_x86_64(monkeypatch)
    (tmp_path / "lgpio-0.1-cp311-x86_64").mkdir()
    (tmp_path / "lgpio-0.1-cp311-x86_64" / "lgpio-0.1-cp311-cp311-linux_x86_64.whl").touch()
    monkeypatch.setattr(builder, "python_tag", lambda: "cp313")
    assert builder.cached_wheel(tmp_path / builder.cache_key("0.1")) is None


def test_missing_build_tools_are_named_with_debians_packages(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(builder.shutil, "which", lambda program: None)
    missing = builder.missing_tools()
    assert missing[:2] == ["swig", "gcc"]
    with pytest.raises(builder.UsageError, match=r"sudo apt-get install swig gcc"):
        builder.build_from_source(object(), "0.2.2.0", tmp_path)


def test_with_the_tools_there_nothing_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builder.shutil, "which", lambda program: f"/usr/bin/{program}")
    monkeypatch.setattr(builder, "BUILD_HEADERS", {})
    # this Python's headers: pyenv's and python.org's bring theirs, Debian's python3-dev
    assert builder.missing_tools() == []


def fake_wheel(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            archive.writestr(name, "")
    return path


def test_a_wheel_without_the_extension_is_refused(tmp_path: Path) -> None:
    wheel = fake_wheel(tmp_path / "lgpio-0-cp3-cp3-linux_x86_64.whl",
                       ["lgpio.py", "lgpio-0.dist-info/METADATA"])
    with pytest.raises(builder.BuildError, match=r"lacks lgpio\.py or the _lgpio extension"):
        builder.check_wheel(wheel, tmp_path / "scratch")


def test_an_extension_that_does_not_load_is_refused(tmp_path: Path) -> None:
    """As a wheel linked against a missing liblgpio would fail: the import is tried."""
    wheel = fake_wheel(tmp_path / "lgpio-0-cp3-cp3-linux_x86_64.whl",
                       ["lgpio.py", "_lgpio.cpython-3-x86_64-linux-gnu.so"])
    with pytest.raises(builder.BuildError, match="importing lgpio from"):
        builder.check_wheel(wheel, tmp_path / "scratch")


def test_setup_sh_pyproject_and_the_tests_name_the_same_machines() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["dev"]
    (marker,) = [line for line in extras if line.startswith("lgpio")]
    assert set(re.findall(r"platform_machine == '(\w+)'", marker)) == set(builder.MACHINES)
    assert set(LGPIO_MACHINES) == set(builder.MACHINES)
    case = re.search(r"case \"\$\(uname -m\)\" in ([\w|]+)\)", (ROOT / "setup.sh").read_text())
    assert case and set(case.group(1).split("|")) == set(builder.MACHINES)


def test_the_builder_runs_on_its_own_and_explains_itself() -> None:
    """Run as a script by any Python 3.11+ (the standard library only), as setup.sh does."""
    done = subprocess.run([sys.executable, str(BUILDER), "--help"], capture_output=True,
                          text=True, timeout=60, cwd="/")
    assert done.returncode == 0, done.stderr
    assert "--missing-tools" in done.stdout and "~/.cache/kalimambo/wheels" in done.stdout
    bad = subprocess.run([sys.executable, str(BUILDER), "--install", "--missing-tools"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2
