#!/usr/bin/env python3
"""An lgpio wheel for the Python that runs this script: PyPI's where it has one, else built.

lgpio (gpiozero's pin library) has wheels on PyPI only up to CPython 3.11. For 3.12 and
newer (Debian 13 "trixie" and Raspberry Pi OS Trixie have 3.13) pip falls back to the
sdist, whose setup.py links against an installed liblgpio, which Debian does not package
(``ld: cannot find -llgpio``). The sdist carries the C library's own sources in ``src/``,
and its setup.py compiles them into the extension itself when ``PYPI=1`` is set (upstream's
switch for its own static wheels). This script uses that: it downloads the sdist, builds
the wheel with the machine's gcc and swig, checks that the extension imports with no
liblgpio installed, and keeps the wheel in a cache keyed by lgpio version, Python tag and
machine, so it is built once per machine:

    python3 deploy/build_lgpio.py [--out DIR] [--install]
    python3 deploy/build_lgpio.py --missing-tools      what a build here would still need

DIR defaults to ~/.cache/kalimambo/wheels; the wheel goes to
DIR/lgpio-VERSION-PYTAG-MACHINE/ and its path is printed (the only line on standard
output). ``--install`` also installs it into this Python with pip (``setup.sh --dev`` runs
this with the checkout's .venv/bin/python, before ``pip install -e '.[dev]'``).
``--missing-tools`` prints the Debian packages a build would need and this machine lacks
(swig, gcc, libc6-dev, python3-dev), on one line, and nothing when none is needed (the
wheel is cached or PyPI has one for this Python).

Needs only the standard library and pip (this Python's own, else one in a throw-away venv
of this Python); to build for another Python, run the script with that Python, for
example inside an emulated Raspberry Pi OS root for Python 3.13 on aarch64. The cached
wheel is the machine's own build: it is never committed nor published.

Exit status 0 with the wheel's path printed; 1 when a download, the build or the check
failed (pip's last lines are shown); 2 for bad usage or missing build tools.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import venv
import zipfile
from collections.abc import Sequence
from pathlib import Path

LGPIO_VERSION = "0.2.2.0"  # the newest on PyPI (its wheels stop at cp311)
# Where the dev extra brings lgpio (pyproject.toml's marker names the same machines).
MACHINES = ("x86_64", "aarch64")
# Debian's packages for a build: a program, or a header, and the package that has it.
BUILD_TOOLS = {"swig": "swig", "gcc": "gcc"}
BUILD_HEADERS = {"/usr/include/stdlib.h": "libc6-dev"}


class BuildError(Exception):
    """A step failed; the message says which and shows what it printed."""


class UsageError(Exception):
    """This machine or command line cannot be served; the message says what to do."""


def python_tag() -> str:
    """This interpreter's wheel tag: cp313, or cp313t for a free-threaded build."""
    if sys.implementation.name != "cpython":
        raise UsageError(f"lgpio builds for CPython only, not {sys.implementation.name}")
    threaded = "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
    return f"cp{sys.version_info.major}{sys.version_info.minor}{threaded}"


def machine() -> str:
    """The machine lgpio is wanted for; refuses the ones the dev extra leaves without it."""
    found = platform.machine()
    if not sys.platform.startswith("linux") or found not in MACHINES:
        raise UsageError(f"lgpio is only built for Linux on {' and '.join(MACHINES)}, "
                         f"not {sys.platform} {found}")
    return found


def cache_key(version: str = LGPIO_VERSION) -> str:
    """The cache folder's name: lgpio's version, this Python's tag, the machine."""
    return f"lgpio-{version}-{python_tag()}-{machine()}"


def default_out() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "kalimambo" / "wheels"


def cached_wheel(folder: Path) -> Path | None:
    wheels = sorted(folder.glob("lgpio-*.whl"))
    return wheels[-1] if wheels else None


def missing_tools() -> list[str]:
    """Debian packages a build from source needs that this machine lacks."""
    missing = [package for program, package in BUILD_TOOLS.items()
               if shutil.which(program) is None]
    missing += [package for header, package in BUILD_HEADERS.items()
                if not Path(header).exists()]
    include = Path(sysconfig.get_paths()["include"]) / "Python.h"
    if not include.exists():
        # Debian's headers for its own python3; another Python brings its own.
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        missing.append("python3-dev" if sys.base_prefix == "/usr"
                       else f"the headers of Python {version} ({include})")
    return missing


def run(command: Sequence[str | Path], what: str, env: dict[str, str] | None = None,
        cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    words = [str(word) for word in command]
    done = subprocess.run(words, capture_output=True, text=True, env=env, cwd=cwd,
                          stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
        raise BuildError(f"{what} failed (status {done.returncode}): "
                         f"{' '.join(words)}\n{tail}")
    return done


class Pip:
    """This Python's pip, or (Debian's python3 without python3-pip) a throw-away venv's."""

    def __init__(self, scratch: Path) -> None:
        self.python = Path(sys.executable)
        probe = subprocess.run([sys.executable, "-m", "pip", "--version"],
                               capture_output=True, text=True)
        if probe.returncode != 0:
            env_dir = scratch / "pip-venv"
            try:
                venv.create(env_dir, with_pip=True)
            except (OSError, subprocess.CalledProcessError) as error:
                raise UsageError(f"{sys.executable} has no pip and cannot make a venv "
                                 f"({error}): on Debian 'sudo apt-get install python3-pip' "
                                 "or python3-venv") from error
            self.python = env_dir / "bin" / "python"

    def __call__(self, *args: str | Path, what: str,
                 env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return run([self.python, "-m", "pip", *args, "--disable-pip-version-check"], what,
                   env=env)


def pypi_wheel(pip: Pip, version: str, dest: Path) -> Path | None:
    """PyPI's wheel for this Python and machine, if it has one."""
    try:
        pip("download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", dest,
            f"lgpio=={version}", what="looking for an lgpio wheel")
    except BuildError as error:
        if "No matching distribution" in str(error) or "from versions" in str(error):
            return None
        raise
    return cached_wheel(dest)


def build_from_source(pip: Pip, version: str, scratch: Path) -> Path:
    """Download lgpio's sdist and build a wheel whose extension holds the C library."""
    missing = missing_tools()
    if missing:
        raise UsageError(f"lgpio {version} has no wheel for Python {python_tag()} and is "
                         f"built from its source, which needs: {', '.join(missing)} "
                         f"(on Debian: sudo apt-get install {' '.join(missing)})")
    sdists = scratch / "sdist"
    pip("download", "--quiet", "--no-deps", "--no-binary=:all:", "-d", sdists,
        f"lgpio=={version}", what="downloading lgpio's source")
    sdist = next(sdists.glob("lgpio-*.tar.gz"), None)
    if sdist is None:
        raise BuildError(f"pip downloaded no lgpio-{version}.tar.gz into {sdists}")
    # PYPI=1: setup.py compiles src/lg*.c and src/rgpiod.c into _lgpio itself.
    env = {**os.environ, "PYPI": "1"}
    built = scratch / "built"
    pip("wheel", "--quiet", "--no-deps", "--no-cache-dir", "-w", built, sdist,
        what=f"building lgpio {version} from source", env=env)
    wheel = cached_wheel(built)
    if wheel is None:
        raise BuildError(f"pip wheel made no lgpio wheel in {built}")
    return wheel


def check_wheel(wheel: Path, scratch: Path) -> None:
    """The wheel has lgpio.py and _lgpio, and both import here with no liblgpio installed
    (in a scratch folder: importing lgpio leaves its notify pipe in the working folder)."""
    unpacked = scratch / "check"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(unpacked)
    if "lgpio.py" not in names or not any(n.startswith("_lgpio") and n.endswith(".so")
                                          for n in names):
        raise BuildError(f"{wheel.name} lacks lgpio.py or the _lgpio extension: {names}")
    run([sys.executable, "-c", "import _lgpio, lgpio; lgpio.gpio_get_mode"],
        f"importing lgpio from {wheel.name}", cwd=unpacked,
        env={**os.environ, "PYTHONPATH": str(unpacked)})


def ensure_wheel(out: Path, version: str = LGPIO_VERSION) -> Path:
    """The cached wheel, else PyPI's, else one built from source: its path in the cache."""
    folder = out / cache_key(version)
    found = cached_wheel(folder)
    if found is not None:
        return found
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kalimambo-lgpio-") as temp:
        scratch = Path(temp)
        pip = Pip(scratch)
        wheel = pypi_wheel(pip, version, scratch / "pypi")
        if wheel is None:
            print(f"lgpio {version}: no wheel on PyPI for {python_tag()}; building it from "
                  "its source (gcc, swig)", file=sys.stderr)
            wheel = build_from_source(pip, version, scratch)
        check_wheel(wheel, scratch)
        partial = out / f".{folder.name}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        shutil.copy2(wheel, partial / wheel.name)
        shutil.rmtree(folder, ignore_errors=True)
        partial.rename(folder)
    return folder / wheel.name


def needs_tools(out: Path, version: str = LGPIO_VERSION) -> list[str]:
    """What ``ensure_wheel`` would miss: nothing if cached or on PyPI (then cached too)."""
    if cached_wheel(out / cache_key(version)) is not None:
        return []
    with tempfile.TemporaryDirectory(prefix="kalimambo-lgpio-") as temp:
        if pypi_wheel(Pip(Path(temp)), version, Path(temp) / "pypi") is not None:
            return []
    return missing_tools()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="build_lgpio.py", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=None,
                        help="the wheel cache (default ~/.cache/kalimambo/wheels)")
    parser.add_argument("--version", default=LGPIO_VERSION,
                        help=f"lgpio's version (default {LGPIO_VERSION})")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--install", action="store_true",
                      help="also pip install the wheel into this Python")
    mode.add_argument("--missing-tools", action="store_true",
                      help="print the Debian packages a build still needs, and build nothing")
    args = parser.parse_args(argv)
    out = (args.out or default_out()).expanduser().absolute()
    try:
        if args.missing_tools:
            # Debian's package names only: a Python of its own must bring its own headers
            # (the build then says so).
            missing = [need for need in needs_tools(out, args.version) if " " not in need]
            if missing:
                print(" ".join(missing))
            return 0
        wheel = ensure_wheel(out, args.version)
        if args.install:
            run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                 "--force-reinstall", wheel], f"installing {wheel.name}")
    except UsageError as error:
        print(f"build_lgpio.py: {error}", file=sys.stderr)
        return 2
    except BuildError as error:
        print(f"build_lgpio.py: {error}", file=sys.stderr)
        return 1
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
