"""The table and the lights as the real processes they are: ``kalimambo serve`` with a
board file that names buttons and a buzzer, the real lgpio installed, off a Pi; either
process killed and back; ``--lights external`` and ``off``; and a check of the running
worker that it never holds gpiozero, lgpio or rpi_ws281x."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, ServerProcess, http
from tests.helpers import assert_refused, kalimambo, wait_for

BOARDS = ROOT / "hardware" / "boards"
HOOK = ROOT / "tests" / "worker_hook"
# The real lgpio: these tests fail without it where the dev extra brings it.
pytestmark = pytest.mark.usefixtures("real_lgpio")


def lights_of(server: ServerProcess) -> dict[str, Any]:
    status, view = http("GET", f"{server.url}/api/v1/state")
    assert status == 200
    lights: dict[str, Any] = view["lights"]
    return lights


def hook_env(tmp_path: Path) -> tuple[dict[str, str], Path]:
    report = tmp_path / "hook" / "report.txt"
    report.parent.mkdir()
    path = os.pathsep.join([str(HOOK), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return {"PYTHONPATH": path, "KALIMAMBO_WORKER_HOOK": str(report)}, report


def play_a_whole_game(url: str) -> dict[str, Any]:
    """One joined seat and two computer players, through the HTTP API to the end."""
    status, host = http("POST", f"{url}/api/v1/host", {"pin": "1234"})
    assert status == 200, host
    status, seat = http("POST", f"{url}/api/v1/join", {"name": "Ana"})
    assert status == 201, seat
    status, answer = http("POST", f"{url}/api/v1/host/bots", {"count": 2, "level": "random"},
                          host["token"])
    assert status in (200, 201), answer
    status, answer = http("POST", f"{url}/api/v1/host/start", {}, host["token"])
    assert status == 200, answer
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        status, me = http("GET", f"{url}/api/v1/me", token=seat["token"])
        assert status == 200, me
        if me["phase"] == "finished":
            return dict(me)
        if me["phase"] == "playing":  # the host skips each round's playback
            http("POST", f"{url}/api/v1/host/skip", {}, host["token"])
        elif me["me"]["pick"] is None:
            status, answer = http("POST", f"{url}/api/v1/pick",
                                  {"round": me["round"], "card": me["me"]["hand"][0]},
                                  seat["token"])
            assert status == 200, answer
        else:  # waiting for the computer players
            time.sleep(0.01)
    raise AssertionError("the game did not finish")


def maps_mention(pid: int, word: str) -> bool:
    return word in Path(f"/proc/{pid}/maps").read_text()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    started: list[ServerProcess] = []

    def start(*extra: str, strip: tuple[str, ...] = ("--strip", "sim"),
              env: dict[str, str] | None = None, data: str = "data") -> ServerProcess:
        server = ServerProcess(tmp_path / data, extra=extra, strip=strip, env=env)
        started.append(server)
        return server.start(timeout=60)

    yield start
    for server in started:
        server.kill()


@pytest.mark.slow
def test_a_pi4_board_off_a_pi_answers_at_once_and_plays_a_whole_game(tmp_path: Path) -> None:
    """The board file names buttons (GPIO 17, 27) and a buzzer (GPIO 22), lgpio is
    installed: the table answers within 5 s (the frozen worker of issue 9 never did),
    a whole game plays, the lights process says plainly it found no GPIO and no strip,
    and the worker never loads gpiozero, lgpio or rpi_ws281x while the lights process does."""
    env, report = hook_env(tmp_path)
    board = BOARDS / "pi4-gpio18.toml"
    assert "[buttons]" in board.read_text() and "[buzzer]" in board.read_text()
    server = ServerProcess(tmp_path / "data", strip=(), extra=("--config", str(board)),
                           env=env)
    begun = time.monotonic()
    try:
        server.start(timeout=5.0)  # raises if /api/v1/state has not answered in 5 s
        print(f"first answer after {time.monotonic() - begun:.2f} s")
        finished = play_a_whole_game(server.url)
        assert finished["winners"] and finished["round"] >= 1

        assert wait_for(lambda: lights_of(server)["connected"], timeout=30)
        lights = lights_of(server)
        assert lights["backend"] == "ws281x" and lights["ok"] is False
        assert "not a Raspberry Pi" in lights["error"]
        log = server.log.read_text()
        assert "found no GPIO" in log
        assert "button on GPIO 17 and button on GPIO 27 and buzzer on GPIO 22 are off" in log

        (worker,) = server.worker_pids()
        (lights_pid,) = server.lights_pids()
        assert maps_mention(lights_pid, "lgpio")  # the check can see lgpio where it is...
        assert not maps_mention(worker, "lgpio")  # ...and it is not in the worker
        lines = report.read_text().split("\n")
        assert f"{worker} worker" in lines, "the hook ran in the worker"
        assert [line for line in lines if line.startswith(f"{worker} ")] == [f"{worker} worker"]
    finally:
        server.kill()
    assert not list(ROOT.glob(".lgd-nfy*")), "lgpio's pipes stay out of the checkout"


@pytest.mark.slow
def test_the_lights_process_dies_and_comes_back(table: Callable[..., ServerProcess]) -> None:
    server = table()
    assert wait_for(lambda: lights_of(server)["ok"], timeout=30)
    play_a_whole_game(server.url)
    (first,) = server.lights_pids()
    os.kill(first, signal.SIGKILL)
    assert wait_for(lambda: not lights_of(server)["connected"], timeout=30)
    assert "not connected" in lights_of(server)["error"]
    status, view = http("GET", f"{server.url}/api/v1/state")
    assert status == 200 and view["phase"] == "finished"  # the table plays on
    # restarted by serve (a pause of up to 10 s, then a start: over 60 s once in the Debian
    # root's run, with an emulated Pi booting beside it)
    assert wait_for(lambda: lights_of(server)["ok"], timeout=180)
    assert server.lights_pids() != [first]

    def lit() -> bool:  # the new lights process draws the table's current state
        status, leds = http("GET", f"{server.url}/api/v1/leds")
        return status == 200 and sum(1 for led in leds["leds"] if any(led)) > 0

    assert wait_for(lit, timeout=30)


@pytest.mark.slow
def test_the_web_worker_dies_and_the_lights_reconnect(
        table: Callable[..., ServerProcess]) -> None:
    server = table()
    assert wait_for(lambda: lights_of(server)["ok"], timeout=30)
    (lights_pid,) = server.lights_pids()
    (worker,) = server.worker_pids()
    os.kill(worker, signal.SIGKILL)
    assert wait_for(lambda: server.worker_pids() not in ([], [worker]), timeout=60)

    def back() -> bool:
        try:
            return bool(lights_of(server)["ok"])
        except OSError:
            return False

    assert wait_for(back, timeout=60)
    assert server.lights_pids() == [lights_pid]  # the same lights process, connected again


@pytest.mark.slow
def test_an_external_lights_process_outlives_the_table(
        tmp_path: Path, table: Callable[..., ServerProcess]) -> None:
    sock = str(tmp_path / "lights.sock")
    log = (tmp_path / "lights.log").open("wb")
    lights = subprocess.Popen([sys.executable, "-m", "kalimambo", "lights", "--socket", sock,
                               "--strip", "sim"], cwd=tmp_path, stdout=log, stderr=log)
    try:
        server = table("--lights", "external", "--lights-socket", sock)
        assert server.lights_pids() == []
        assert wait_for(lambda: lights_of(server)["ok"], timeout=30)
        server.kill()
        assert lights.poll() is None  # waits for the table to come back
        server = table("--lights", "external", "--lights-socket", sock)
        assert wait_for(lambda: lights_of(server)["ok"], timeout=30)
        lights.terminate()
        assert lights.wait(timeout=30) == 0
        assert wait_for(lambda: not lights_of(server)["connected"], timeout=30)
    finally:
        if lights.poll() is None:
            lights.kill()
            lights.wait()
        log.close()
    text = (tmp_path / "lights.log").read_text()
    assert text.count("connected to the table") >= 2


@pytest.mark.slow
def test_lights_off_runs_no_lights_process(table: Callable[..., ServerProcess]) -> None:
    server = table("--lights", "off")
    assert server.lights_pids() == []
    lights = lights_of(server)
    assert lights["backend"] == "off" and "--lights off" in lights["error"]
    play_a_whole_game(server.url)


@pytest.mark.slow
def test_stopping_the_table_stops_its_lights_child(
        table: Callable[..., ServerProcess]) -> None:
    server = table()
    assert wait_for(lambda: len(server.lights_pids()) == 1, timeout=30)
    (child,) = server.lights_pids()
    private = Path(f"/proc/{child}/cwd").resolve()  # the socket's private folder
    assert (private / "lights.sock").is_socket()
    assert server.proc is not None
    server.proc.send_signal(signal.SIGTERM)  # the master alone, as systemd's first signal
    assert server.proc.wait(timeout=60) == 0
    assert wait_for(lambda: not Path(f"/proc/{child}").exists(), timeout=30)
    assert not private.exists()


@pytest.mark.slow
def test_ctrl_c_stops_the_table_and_its_lights_child_without_a_restart(
        table: Callable[..., ServerProcess]) -> None:
    """Ctrl-C reaches the whole group at once: the child ending then is the table
    stopping, not a crash to report and restart (the master's signal handler says so
    at once; on a busy machine gunicorn's own stop came too late)."""
    server = table()
    assert wait_for(lambda: len(server.lights_pids()) == 1, timeout=30)
    (child,) = server.lights_pids()
    server.stop(signal.SIGINT)  # the terminal's Ctrl-C: every process of the group
    assert not Path(f"/proc/{child}").exists() or state_of(child) == "Z"
    log = server.log.read_text(errors="replace")
    assert "starting it again" not in log and "Traceback" not in log


@pytest.mark.slow
def test_a_slow_stop_does_not_restart_the_lights_child(
        table: Callable[..., ServerProcess]) -> None:
    """A busy machine, made sure: the worker is frozen, so gunicorn's stop takes its
    whole grace time (3 s), far past the supervisor's pause; the child, ended by the
    same Ctrl-C, must still not be started again."""
    server = table()
    assert wait_for(lambda: len(server.lights_pids()) == 1, timeout=30)
    (worker,) = server.worker_pids()
    os.kill(worker, signal.SIGSTOP)
    server.stop(signal.SIGINT)
    log = server.log.read_text(errors="replace")
    assert "starting it again" not in log and "Traceback" not in log


@pytest.mark.slow
def test_a_killed_table_takes_its_lights_child_along(
        table: Callable[..., ServerProcess]) -> None:
    """Even a master killed outright (no clean-up) leaves no lights process behind."""
    server = table()
    assert wait_for(lambda: len(server.lights_pids()) == 1, timeout=30)
    (child,) = server.lights_pids()
    assert server.proc is not None
    os.kill(server.proc.pid, signal.SIGKILL)
    server.proc.wait(timeout=30)
    assert wait_for(lambda: state_of(child) in ("gone", "Z"), timeout=30)


def state_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


@pytest.mark.parametrize(("args", "words"), [
    (("--lights", "external", "--lights-socket", "/nonexistent/dir/lights.sock"),
     "does not exist"),
    (("--lights", "off", "--lights-socket", "/tmp/x.sock"), "--lights off"),
    (("--lights-socket", "/tmp/" + "x" * 120), "too long"),
    (("--lights", "sideways"), "--lights"),
    (("--worker-timeout", "1"), "--worker-timeout"),
])
def test_bad_lights_options_end_in_one_line(tmp_path: Path, args: tuple[str, ...],
                                            words: str) -> None:
    assert_refused(kalimambo("serve", "--data-dir", str(tmp_path / "d"), *args), words)


def test_kalimambo_lights_bad_board_file_is_one_line(tmp_path: Path) -> None:
    board = tmp_path / "board.toml"
    board.write_text("[track]\nspaces = -4\n")
    assert_refused(kalimambo("lights", "--config", str(board), "--socket", str(tmp_path / "s"),
                             cwd=tmp_path), "spaces")
