"""setup.sh and another package manager: its apt-get waits for apt's and dpkg's locks.

Right after a Pi's first boot the system's own updates hold dpkg's lock for minutes, and a
bare apt-get stops at once ("Could not get lock /var/lib/dpkg/lock-frontend"). Here another
process holds that lock, the real one (an fcntl lock, as apt and dpkg take it), while
setup.sh's install step (its own functions, run as they are in setup.sh) installs a package:
it says it waits, waits, and goes on once the lock is free; with the lock kept past its
time it stops with a sentence naming the holder.

The apt-get it runs touches nothing of the machine's: APT_CONFIG points the package lists,
caches and logs into a temporary folder, with no sources (so 'apt-get update' needs no
network), and a dpkg-query stand-in tells setup.sh the package (coreutils, installed) is
missing, so that apt-get runs and finds nothing to do. Only dpkg's lock is the real one:
the tests take /tmp/kalimambo-apt.lock first, as CI's other apt users do
(tests/debian/run-in-root, tests/pi/piroot.py), and need root.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.deploy.test_setup_sh import PI4, dry_run, fake_pi, lines_with
from tests.helpers import ROOT

pytestmark = pytest.mark.slow

SETUP = ROOT / "setup.sh"
DPKG_LOCK = Path("/var/lib/dpkg/lock-frontend")
CI_APT_LOCK = Path("/tmp/kalimambo-apt.lock")
FUNCTION = re.compile(r"^[a-z_][a-z0-9_]*\(\) \{(?: .*\}$|\n(?:.*\n)*?\}$)", re.M)
HOLD = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except (BlockingIOError, PermissionError):
    print("busy", flush=True)
    sys.exit()
print("held", flush=True)
sys.stdin.read()  # until the test closes it
"""

needs_root_and_apt = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("apt-get") is None or not DPKG_LOCK.exists()
    or not Path("/proc/locks").exists(),
    reason="holds dpkg's real lock and runs apt-get: root on a Debian system")


def setup_functions() -> str:
    """Every function setup.sh defines (none of its top-level run)."""
    return "\n".join(match.group(0) for match in FUNCTION.finditer(SETUP.read_text()))


@pytest.fixture
def apt_turn() -> Iterator[None]:
    """This machine's apt, ours for the test: CI's other apt users take the same lock."""
    with CI_APT_LOCK.open("a") as handle:
        deadline = time.monotonic() + 20
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.skip(f"another apt run holds {CI_APT_LOCK}")
                time.sleep(0.5)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture
def install_step(tmp_path: Path, apt_turn: None) -> tuple[Path, dict[str, str], Path]:
    """A script running setup.sh's apt_install for coreutils, its environment, and the
    folder that stands in for apt's package lists."""
    lists = tmp_path / "lists"
    for folder in (lists / "partial", tmp_path / "cache/archives/partial", tmp_path / "parts",
                   tmp_path / "log"):
        folder.mkdir(parents=True)
    (lists / "lock").touch(mode=0o640)
    config = tmp_path / "apt.conf"
    config.write_text(f"""Dir::Etc::SourceList "/dev/null";
Dir::Etc::SourceParts "{tmp_path}/parts";
Dir::State::Lists "{lists}";
Dir::State::extended_states "{tmp_path}/extended_states";
Dir::Cache "{tmp_path}/cache";
Dir::Log "{tmp_path}/log";
""")
    stand_ins = tmp_path / "bin"
    stand_ins.mkdir()
    (stand_ins / "dpkg-query").write_text("#!/bin/sh\nexit 1\n")  # "not installed"
    (stand_ins / "dpkg-query").chmod(0o755)
    script = tmp_path / "install.sh"
    script.write_text("set -euo pipefail\n"
                      "DRY=0 ROOT='' HOTSPOT_PASSWORD='' IS_ROOT=1\n"
                      f"{setup_functions()}\n"
                      "apt_install coreutils\n")
    env = {key: value for key, value in os.environ.items()
           if key not in ("KALIMAMBO_APT_LOCK_TIMEOUT", "APT_CONFIG")}
    env.update(APT_CONFIG=str(config), PATH=f"{stand_ins}:{env.get('PATH', '/usr/bin:/bin')}",
               LC_ALL="C")
    return script, env, lists


@contextmanager
def holding(lock_file: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding an fcntl lock on ``lock_file`` until the block ends."""
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock_file)], text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None
        if holder.stdout.readline().strip() != "held":
            pytest.skip(f"another package manager holds {lock_file} right now")
        yield holder
    finally:
        release(holder)


def release(holder: subprocess.Popen[str]) -> None:
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=10)


def comm(pid: int) -> str:
    """A process's name, as ps and /proc/locks' readers show it."""
    return Path(f"/proc/{pid}/comm").read_text().strip()


@contextmanager
def started(script: Path, env: dict[str, str], out: Path) -> Iterator[subprocess.Popen[bytes]]:
    with out.open("wb") as handle:
        run = subprocess.Popen(["bash", str(script)], stdout=handle, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, env=env, cwd=ROOT,
                               start_new_session=True)
    try:
        yield run
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()


@needs_root_and_apt
def test_the_install_step_waits_for_dpkgs_lock_and_goes_on_once_it_is_free(
        install_step: tuple[Path, dict[str, str], Path], tmp_path: Path) -> None:
    script, env, _ = install_step
    out = tmp_path / "out"
    with holding(DPKG_LOCK) as holder, started(script, env, out) as run:
        time.sleep(3)
        said = out.read_text()
        assert run.poll() is None, f"did not wait:\n{said}"
        assert lines_with(said, "waiting for another package manager") == [
            "   waiting for another package manager to finish (up to 5 minutes): "
            f"process {holder.pid} ({comm(holder.pid)}) holds {DPKG_LOCK}"], said
        assert said.index("waiting for") < said.index(
            "apt-get install -o DPkg::Lock::Timeout=300 -y")
        release(holder)
        released = time.monotonic()
        assert run.wait(timeout=20) == 0, out.read_text()
    assert time.monotonic() - released < 10
    assert "setup.sh:" not in out.read_text()


@needs_root_and_apt
def test_with_the_lock_kept_it_stops_with_a_sentence_naming_the_holder(
        install_step: tuple[Path, dict[str, str], Path]) -> None:
    script, env, _ = install_step
    env["KALIMAMBO_APT_LOCK_TIMEOUT"] = "2"
    start = time.monotonic()
    with holding(DPKG_LOCK) as holder:
        done = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env,
                              cwd=ROOT, timeout=30, stdin=subprocess.DEVNULL)
        name = comm(holder.pid)
    assert time.monotonic() - start >= 2
    assert done.returncode == 2, done.stdout + done.stderr
    assert "   waiting for another package manager to finish (up to 2 seconds): process " \
        f"{holder.pid} ({name}) holds {DPKG_LOCK}" in done.stdout
    assert done.stderr.strip().splitlines()[-1] == (
        "setup.sh: another package manager is still at work after 2 seconds: process "
        f"{holder.pid} ({name}) holds {DPKG_LOCK}. Let it finish (after a first boot the "
        "system's own updates can take a while), then run setup.sh again.")


@needs_root_and_apt
def test_apt_get_update_waits_for_the_lists_lock_by_trying_again(
        install_step: tuple[Path, dict[str, str], Path], tmp_path: Path) -> None:
    """'apt-get update' does not wait for the package lists' lock by itself (apt 2.6)."""
    script, env, lists = install_step
    out = tmp_path / "out"
    with holding(lists / "lock") as holder, started(script, env, out) as run:
        time.sleep(2.5)
        said = out.read_text()
        assert run.poll() is None, f"did not wait:\n{said}"
        assert "waiting for another package manager to finish (up to 5 minutes)" in said
        assert "apt-get install" not in said  # still at 'apt-get update'
        release(holder)
        assert run.wait(timeout=20) == 0, out.read_text()
    assert "apt-get install" in out.read_text()


# ---- every apt-get goes through apt_get ----------------------------------------------------

def test_every_apt_get_in_setup_sh_goes_through_apt_get() -> None:
    code = [line for line in SETUP.read_text().splitlines()
            if not line.lstrip().startswith("#")]
    bare = [line for line in code
            if re.match(r"\s*(?:run\s+|quietly\s+|as_owner\s+)?(?:env\s+\S+=\S+\s+)?apt-get\s",
                        line)]
    assert bare == []
    calls = [line for line in code if re.match(r"\s*apt_get\s", line)]
    assert len(calls) >= 4  # update and install, for the system's packages and the dev tools


def test_a_dry_run_lists_apt_get_with_its_wait(tmp_path: Path) -> None:
    out = dry_run(fake_pi(tmp_path, PI4), "--hotspot", "Booth")
    apt = lines_with(out, "apt-get ")
    assert len(apt) == 4, apt  # update and install: system packages, the hotspot's
    for line in apt:
        assert "-o DPkg::Lock::Timeout=300" in line, line
    assert lines_with(out, "apt-get install -o DPkg::Lock::Timeout=300 -y -qq "
                           "--no-install-recommends")


def test_a_wrong_timeout_is_refused(tmp_path: Path) -> None:
    script = tmp_path / "install.sh"
    script.write_text("set -euo pipefail\nDRY=1 ROOT='' HOTSPOT_PASSWORD=''\n"
                      f"{setup_functions()}\napt_get update -qq\n")
    env = dict(os.environ, KALIMAMBO_APT_LOCK_TIMEOUT="5min")
    done = subprocess.run(["bash", str(script)], capture_output=True, text=True, env=env,
                          timeout=30)
    assert done.returncode == 2
    assert "KALIMAMBO_APT_LOCK_TIMEOUT is a number of seconds, not '5min'" in done.stderr
