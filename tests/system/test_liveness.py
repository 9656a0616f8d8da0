"""Liveness: a frozen web worker is replaced and the table answers again; systemd's
watchdog is fed (over a real notify socket the test binds) only while the worker really
serves.  Also the hazard itself: lgpio imported under gevent freezes the process."""

from __future__ import annotations

import os
import platform
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.system.liveness import Watchdog, ask_timeout, interval, state_url
from kalimambo.web.system.sdnotify import sd_notify
from tests.conftest import ServerProcess, http
from tests.helpers import wait_for

HOOK = Path(__file__).resolve().parents[1] / "worker_hook"
READ = "63" if platform.machine() == "aarch64" else "0"
"""read(2)'s number in /proc/PID/syscall."""
CEILING_S = 120.0
"""Generous: gunicorn's timeout is 10 s, the rest is a noisy machine."""


class NotifySocket:
    """What systemd listens on: a datagram socket; each message comes with its sender's pid."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        self.sock.bind(str(path))

    def receive(self, timeout: float) -> tuple[int, str] | None:
        self.sock.settimeout(timeout)
        try:
            data, ancillary, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(12))
        except TimeoutError:
            return None
        pid = 0
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_CREDENTIALS:
                pid = struct.unpack("3i", payload[:12])[0]
        return pid, data.decode()

    def drain(self) -> list[tuple[int, str]]:
        found = []
        while (message := self.receive(0.001)) is not None:
            found.append(message)
        return found

    def until(self, condition: Callable[[int, str], bool], timeout: float = CEILING_S
              ) -> list[tuple[int, str]]:
        """Every message up to and including the first for which ``condition`` holds."""
        seen: list[tuple[int, str]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self.receive(max(0.01, deadline - time.monotonic()))
            if message is None:
                break
            seen.append(message)
            if condition(*message):
                return seen
        raise AssertionError(f"not seen in {timeout} s; got {seen}")

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def notify(tmp_path: Path) -> Iterator[NotifySocket]:
    sock = NotifySocket(tmp_path / "notify.sock")
    yield sock
    sock.close()


@pytest.fixture
def watched(tmp_path: Path, notify: NotifySocket) -> Iterator[ServerProcess]:
    report = tmp_path / "hook" / "report.txt"
    report.parent.mkdir()
    env = {"NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "2000000",  # every 0.5 s
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HOOK),
                                                       os.environ.get("PYTHONPATH")])),
           "KALIMAMBO_WORKER_HOOK": str(report)}
    server = ServerProcess(tmp_path / "data", env=env)
    server.start(timeout=60)
    yield server
    server.kill()


def state_of(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def blocked_on_lgpio_pipe(pid: int) -> bool:
    """The process's only thread sits in read() on lgpio's notify pipe: frozen for good."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
        call = Path(f"/proc/{pid}/syscall").read_text().split()
        if len(tasks) != 1 or call[0] != READ:
            return False
        target = os.readlink(f"/proc/{pid}/fd/{int(call[1], 16)}")
    except (OSError, IndexError, ValueError):
        return False
    return ".lgd-nfy" in target


def stays_blocked_on_lgpio_pipe(pid: int, seconds: float = 1.5) -> bool:
    """Blocked on lgpio's pipe at every look for ``seconds`` (longer than two turns of the
    watchdog): a single look can catch a read that returns at once, as the import sets
    up lgpio, and the worker then went on serving and fed the watchdog (seen in CI)."""
    if not blocked_on_lgpio_pipe(pid):
        return False
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        time.sleep(0.05)
        if not blocked_on_lgpio_pipe(pid):
            return False
    return True


def frozen_then_back(server: ServerProcess, notify: NotifySocket, worker: int,
                     lights: list[int]) -> None:
    """After the freeze: not one more WATCHDOG=1 from the frozen worker, then a new worker
    feeds the watchdog again while it boots, says READY=1 once it answers, and the table
    answers; the lights process was left alone (the worker's exit must not take it down)
    and connects to the new worker."""
    notify.drain()  # anything sent before the freeze took hold
    seen = notify.until(lambda pid, text: pid != worker and "READY=1" in text)
    assert [text for pid, text in seen if pid == worker] == []
    assert state_of(worker) == "gone"
    status, _ = http("GET", f"{server.url}/api/v1/state")
    assert status == 200
    assert worker not in server.worker_pids()
    assert wait_for(lambda: http("GET", f"{server.url}/api/v1/state")[1]["lights"]["ok"],
                    timeout=60)
    assert server.lights_pids() == lights


@pytest.mark.slow
def test_ready_then_watchdog_then_a_stopped_worker_is_replaced(
        watched: ServerProcess, notify: NotifySocket) -> None:
    (worker,) = watched.worker_pids()
    lights = watched.lights_pids()
    seen = notify.until(lambda pid, text: pid == worker and "READY=1" in text)
    assert "WATCHDOG=1" in " ".join(text for _, text in seen)
    os.kill(worker, signal.SIGSTOP)  # frozen: no CPU, no answers, no heartbeat
    assert wait_for(lambda: state_of(worker) == "T", timeout=30)
    begun = time.monotonic()
    frozen_then_back(watched, notify, worker, lights)
    print(f"a stopped worker answered again after {time.monotonic() - begun:.1f} s")


@pytest.mark.slow
def test_only_the_worker_says_ready_and_only_once_it_answers(
        watched: ServerProcess, notify: NotifySocket) -> None:
    """gunicorn's master says READY=1 as soon as it listens; under systemd that started
    the watchdog's clock before the app had loaded, and a slow Pi was killed while it
    started.  So the master must say nothing at all, and the worker READY=1 only after
    its own /api/v1/state answered (its boot thread before that: WATCHDOG=1 alone)."""
    (worker,) = watched.worker_pids()
    seen = notify.until(lambda pid, text: pid == worker and "READY=1" in text)
    assert {pid for pid, _ in seen} == {worker}, seen
    assert not any("arbiter" in text for _, text in seen)
    assert watched.proc is not None and watched.proc.pid not in {pid for pid, _ in seen}


@pytest.mark.slow
def test_a_replacing_worker_feeds_the_watchdog_while_it_boots(
        tmp_path: Path, notify: NotifySocket) -> None:
    """The race seen under a real systemd: gunicorn replaced a frozen worker, but the new
    one was still loading the app when WatchdogSec ran out, and systemd restarted the
    whole service (about a minute in all).  A booting worker feeds the watchdog from its
    first second, before READY=1: here a boot held 6 s must send WATCHDOG=1 before it
    answers."""
    report = tmp_path / "report.txt"
    env = {"NOTIFY_SOCKET": str(notify.path), "WATCHDOG_USEC": "2000000",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HOOK),
                                                       os.environ.get("PYTHONPATH")])),
           "KALIMAMBO_WORKER_HOOK": str(report), "KALIMAMBO_WORKER_SLOW_BOOT": "6"}
    server = ServerProcess(tmp_path / "data", env=env,
                           extra=("--lights", "off", "--worker-timeout", "2"))
    try:
        server.start(timeout=120)
        (worker,) = server.worker_pids()
        seen = notify.until(lambda pid, text: pid == worker and "READY=1" in text)
        before_ready = [text for pid, text in seen[:-1] if pid == worker]
        assert before_ready and all(text == "WATCHDOG=1" for text in before_ready), seen
        assert "slow boot 6.0" in report.read_text()
    finally:
        server.kill()


@pytest.mark.usefixtures("real_lgpio")
@pytest.mark.slow
def test_a_worker_frozen_by_lgpio_under_gevent_is_replaced(
        watched: ServerProcess, notify: NotifySocket) -> None:
    """The freeze of issue 9 itself: the worker imports lgpio (the test hook does it on
    SIGPWR), lgpio's notify thread is a greenlet there and blocks the whole worker."""
    (worker,) = watched.worker_pids()
    lights = watched.lights_pids()
    notify.until(lambda pid, text: pid == worker and "READY=1" in text)
    os.kill(worker, signal.SIGPWR)
    assert wait_for(lambda: stays_blocked_on_lgpio_pipe(worker), timeout=30)
    begun = time.monotonic()
    frozen_then_back(watched, notify, worker, lights)
    print(f"a worker frozen by lgpio answered again after {time.monotonic() - begun:.1f} s")


@pytest.mark.slow
def test_a_slow_boot_is_not_taken_for_a_freeze(tmp_path: Path) -> None:
    """Loading the app counts against gunicorn's worker timeout: a worker that needs
    longer than the timeout to load (a slow Pi) must still come up, not be replaced
    over and over."""
    report = tmp_path / "report.txt"
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(HOOK),
                                                       os.environ.get("PYTHONPATH")])),
           "KALIMAMBO_WORKER_HOOK": str(report), "KALIMAMBO_WORKER_SLOW_BOOT": "6"}
    server = ServerProcess(tmp_path / "data", env=env,
                           extra=("--lights", "off", "--worker-timeout", "2"))
    try:
        server.start(timeout=120)
        assert "slow boot 6.0" in report.read_text()  # the worker did stand still
        assert "WORKER TIMEOUT" not in server.log.read_text()
    finally:
        server.kill()


@pytest.mark.usefixtures("real_lgpio")
@pytest.mark.slow
def test_importing_lgpio_under_gevent_hangs_and_plain_does_not(tmp_path: Path) -> None:
    """The hazard the separate lights process guards against, on this machine."""
    patched = subprocess.Popen([sys.executable, "-c", "from gevent import monkey; "
                                "monkey.patch_all(); import lgpio"], cwd=tmp_path)
    try:
        plain = subprocess.run([sys.executable, "-c", "import lgpio"], cwd=tmp_path,
                               timeout=60)
        assert plain.returncode == 0
        assert wait_for(lambda: blocked_on_lgpio_pipe(patched.pid), timeout=60)
        assert patched.poll() is None
    finally:
        patched.kill()
        patched.wait()


def test_sd_notify_sends_one_datagram(notify: NotifySocket,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTIFY_SOCKET", str(notify.path))
    assert sd_notify("WATCHDOG=1")
    pid, text = notify.until(lambda pid, text: True, timeout=10)[0]
    assert (pid, text) == (os.getpid(), "WATCHDOG=1")
    monkeypatch.delenv("NOTIFY_SOCKET")
    assert not sd_notify("WATCHDOG=1")  # no systemd: nothing to do
    assert not sd_notify("WATCHDOG=1", str(notify.path) + ".missing")


def test_abstract_notify_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"kalimambo-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        monkeypatch.setenv("NOTIFY_SOCKET", "@" + name)
        assert sd_notify("READY=1")
        sock.settimeout(10)
        assert sock.recv(100) == b"READY=1"


@pytest.mark.parametrize(("usec", "expected"), [
    ("20000000", 5.0), ("2000000", 0.5), ("", 5.0), ("many", 5.0), ("400000000", 10.0),
])
def test_the_watchdog_asks_four_times_per_period(monkeypatch: pytest.MonkeyPatch, usec: str,
                                                 expected: float) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", usec)
    assert interval() == expected


@pytest.mark.parametrize(("usec", "expected"), [
    ("30000000", 15.0), ("20000000", 10.0), ("2000000", 5.0), ("", 5.0), ("many", 5.0),
])
def test_an_ask_may_take_half_the_watchdogs_period(monkeypatch: pytest.MonkeyPatch,
                                                    usec: str, expected: float) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", usec)
    assert ask_timeout() == expected


class SlowState(BaseHTTPRequestHandler):
    """A table that answers /api/v1/state, 7 s late: one flooded on a slow Pi."""

    def do_GET(self) -> None:
        time.sleep(7)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.slow
@pytest.mark.parametrize(("usec", "fed"), [("30000000", True), ("2000000", False)])
def test_a_slow_answer_feeds_the_watchdog_if_it_comes_within_half_the_period(
        monkeypatch: pytest.MonkeyPatch, notify: NotifySocket, usec: str, fed: bool) -> None:
    """The emulated Pi 4 flooded from 70 addresses answered /state in up to 10.5 s, and
    systemd killed it because every ask gave up after 5 s."""
    monkeypatch.setenv("WATCHDOG_USEC", usec)
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowState)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    watchdog = Watchdog(f"http://127.0.0.1:{server.server_port}/api/v1/state",
                        every_s=30, address=str(notify.path)).start()
    assert watchdog is not None
    try:
        message = notify.receive(timeout=9.5)
        assert (message is not None and "READY=1" in message[1]) == fed
    finally:
        watchdog.stop()
        server.shutdown()


def test_the_worker_asks_itself_over_loopback() -> None:
    assert state_url("0.0.0.0", 80) == "http://127.0.0.1:80/api/v1/state"
    assert state_url("::", 8000) == "http://[::1]:8000/api/v1/state"
    assert state_url("192.0.2.7", 8000) == "http://192.0.2.7:8000/api/v1/state"


def test_no_notify_socket_no_watchdog_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert Watchdog("http://127.0.0.1:1/api/v1/state").start() is None
