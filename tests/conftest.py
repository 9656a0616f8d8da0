"""Shared fixtures and markers for the table's tests.

- ``app`` / ``client``: the Flask app on a temporary data dir (bots and hints run
  inline, so every test is deterministic), and its test client.
- ``host_token``: logs in as host on that client (PIN 1234).
- ``start_server``: a factory for a real ``kalimambo serve`` process on a free port
  (gunicorn + gevent, simulated strip), waited for until it answers, stopped at the end.
- ``server``: one such process, started (the browser tests use it too).
- ``browser``: Debian's chromium through Playwright, shared by every browser test.
- ``http``: a tiny JSON client for a real server: ``http(method, url, body, token)``
  returns ``(status, json)``.
- ``real_lgpio``: for the tests that need the real lgpio: they fail without it where the
  dev extra brings it (Linux x86_64 and aarch64, every Python), and skip only elsewhere.

Markers (registered in pyproject.toml): ``browser`` for every test under
tests/browser/ or using the ``browser`` fixture; ``slow`` for the other tests that
take seconds (a real server, setup.sh runs, whole-tree lint...). While working, run
``pytest -m "not browser and not slow"``; the whole suite is the CI command.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import platform
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.http.appconfig import AppConfig
from tests.helpers import ROOT, child_pids, free_port, runs


def _import_bench() -> None:
    """bench/ (the measurements, and the reference rules some tests play against) is no
    part of the install, and pytest's importlib mode puts no folder on sys.path: the one
    folder the tests need besides the install is loaded here, under its own name."""
    if "bench" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        "bench", ROOT / "bench" / "__init__.py",
        submodule_search_locations=[str(ROOT / "bench")])
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules["bench"] = bench
    spec.loader.exec_module(bench)


_import_bench()

PIN = "1234"
HOST_PIN = PIN
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
READY_S = 60.0
"""Ceiling for a server to answer after start (it usually takes about a second)."""
STOP_S = 30.0
"""Ceiling for a server to exit after a signal, before it is killed outright."""

BROWSER_DIR = ROOT / "tests" / "browser"
REAL_SERVER_FIXTURES = {"server", "start_server"}
SLOW_MODULES = {
    "test_setup_sh.py": "runs setup.sh (bash, apt and pip stand-ins) against fake Pi "
                        "roots: 1-3 s a test",
}

HttpResult = tuple[int, Any]
LGPIO_MACHINES = ("x86_64", "aarch64")
"""Where the dev extra installs lgpio (its marker in pyproject.toml names the same)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark browser tests and tests that take seconds, so the fast tier can skip them."""
    for item in items:
        path = Path(str(item.path))
        fixtures = set(getattr(item, "fixturenames", ()))
        if path.is_relative_to(BROWSER_DIR) or "browser" in fixtures:
            item.add_marker(pytest.mark.browser)
        elif fixtures & REAL_SERVER_FIXTURES or path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def group_running(pgid: int) -> list[int]:
    """The processes of group ``pgid`` that still run (zombies do not count)."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z" and int(fields[2]) == pgid:
            running.append(int(stat.parent.name))
    return running


def http(method: str, url: str, body: Any = None, token: str | None = None,
         timeout: float = 30.0) -> HttpResult:
    """One JSON request; answers ``(status, parsed body)`` for 2xx and 4xx alike."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class ServerProcess:
    """``kalimambo serve`` as a real process in its own session (so it stops whole).

    Started by polling ``/api/v1/state`` until it answers; stopped with SIGINT,
    which gunicorn treats as "stop now" (SIGTERM would first wait up to its
    graceful timeout for open event streams: 3 s for every test with a page open).
    """

    def __init__(self, data_dir: Path, port: int | None = None, pin: str | None = PIN,
                 extra: tuple[str, ...] = (), env: dict[str, str] | None = None,
                 strip: tuple[str, ...] = ("--strip", "sim")) -> None:
        self.data_dir = data_dir
        self.port = port or free_port()
        self.pin = pin
        self.extra = extra
        self.env = env or {}
        self.strip = strip
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = data_dir.parent / f"server-{self.port}.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = READY_S) -> ServerProcess:
        """Start (or start again, on the same port and data) and wait until it answers."""
        command = [sys.executable, "-m", "kalimambo", "serve", "--host", "127.0.0.1",
                   "--port", str(self.port), "--data-dir", str(self.data_dir),
                   *(("--host-pin", self.pin) if self.pin is not None else ()),
                   *self.strip, *self.extra]
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log, env=env,
                                         start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}: "
                                   + self.log.read_text(errors="replace")[-2000:])
            try:
                status, _ = http("GET", f"{self.url}/api/v1/state", timeout=5.0)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.05)
        self.stop(signal.SIGKILL)
        raise RuntimeError(f"server did not answer within {timeout} s: "
                           + self.log.read_text(errors="replace")[-2000:])

    def stop(self, sig: int = signal.SIGINT) -> None:
        """Signal the whole process group (gunicorn master and worker) and reap it.

        SIGINT: gunicorn's immediate stop (the default); SIGKILL: a pulled plug.
        A server still there after ``STOP_S`` is killed outright.
        """
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)
        try:
            self.proc.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=STOP_S)
        # The master is reaped; a worker killed with it (SIGKILL) may still be dying:
        # wait until nothing of the group runs, so the port and data dir are free.
        deadline = time.monotonic() + STOP_S
        while group_running(self.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.proc = None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """A pulled plug: the whole group at once, nothing saved on the way out."""
        self.stop(sig)

    def children(self) -> list[int]:
        """The master's children: the gunicorn worker and the lights process."""
        return child_pids(self.proc.pid) if self.proc is not None else []

    def worker_pids(self) -> list[int]:
        """The gunicorn worker(s): the master's forks (the same command line)."""
        return [pid for pid in self.children() if runs(pid, "serve")]

    def lights_pids(self) -> list[int]:
        """The supervised ``kalimambo lights`` child (``--lights child``)."""
        return [pid for pid in self.children() if runs(pid, "lights")]

    # -- a small client for set-up and checks -------------------------------------
    def call(self, method: str, path: str, body: Any = None,
             token: str | None = None) -> Any:
        """``/api/v1<path>``; the parsed answer, or AssertionError for a refusal."""
        status, answer = http(method, f"{self.url}/api/v1{path}", body, token)
        assert status < 400, f"{method} {path}: {status} {answer}"
        return answer

    def state(self) -> dict[str, Any]:
        view: dict[str, Any] = self.call("GET", "/state")
        return view

    def host_token(self) -> str:
        """A host token, logged in as a real host does: with the PIN the table was started
        with (never the table's own screen: it is no host)."""
        token: str = self.call("POST", "/host", {"pin": self.pin})["token"]
        return token

    def host_key(self) -> str:
        """The host key, from the host link the table prints when it starts (the console
        line, as a host reads it in the journal)."""
        log = self.log.read_text(errors="replace")
        found = re.findall(r"^Host link .*#key=(\S+)$", log, re.MULTILINE)
        assert found, f"no host link in the console: {log[-2000:]}"
        return found[-1]


@pytest.fixture
def real_lgpio() -> None:
    """The real lgpio is installed: looked for, not imported (importing it here would leave
    its notify pipe in the working folder). Missing where the dev extra brings it is a
    failure, not a skip: ``./setup.sh --dev`` installs it on every Python there, building
    it from its source where PyPI has no wheel (deploy/build_lgpio.py)."""
    if not sys.platform.startswith("linux") or platform.machine() not in LGPIO_MACHINES:
        pytest.skip(f"the dev extra has no lgpio on {sys.platform} {platform.machine()}")
    if importlib.util.find_spec("lgpio") is None:
        pytest.fail(f"lgpio is not installed for {sys.executable}: './setup.sh --dev' "
                    "installs it (deploy/build_lgpio.py builds it for Python 3.12+)")


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    from kalimambo.web.http.app import create_app

    app = create_app(AppConfig(testing=True, data_dir=tmp_path / "data", host_pin=PIN,
                               runner="inline", join_url="http://192.0.2.10:8000/",
                               heartbeat_s=0.2))
    yield app
    app.extensions["kalimambo"].close()


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def host_token(client: Any) -> str:
    response = client.post("/api/v1/host", json={"pin": PIN})
    assert response.status_code == 200, response.json
    token: str = response.json["token"]
    return token


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    started: list[ServerProcess] = []

    def start(data_dir: Path | None = None, port: int | None = None,
              extra: tuple[str, ...] = (), **options: Any) -> ServerProcess:
        server = ServerProcess(data_dir or tmp_path / "data", port, extra=extra, **options)
        started.append(server)
        return server.start()

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def server(start_server: Callable[..., ServerProcess]) -> ServerProcess:
    return start_server()


@pytest.fixture(name="http")
def http_fixture() -> Callable[..., HttpResult]:
    return http


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium, headless, one for the whole run (Playwright's sync API allows
    only one instance at a time); skipped where chromium is missing."""
    import shutil

    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (setup.sh --dev installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()
