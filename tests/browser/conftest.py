"""Fixtures for the real-browser tests: a real table server and Debian's chromium.

The server is the real thing (``kalimambo serve`` with gunicorn and gevent) on a
free port of 127.0.0.1 with its own data dir; the browser is /usr/bin/chromium
driven by Playwright (never ``playwright install``: that downloads a browser).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"

HOST_PIN = "1234"
PHONE = {"width": 360, "height": 740}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class Server:
    """A running table: its base URL and a small JSON client for set-up and checks."""

    url: str
    command: list[str]
    log: Path
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(self.command, cwd=ROOT, stdout=out,
                                            stderr=subprocess.STDOUT, start_new_session=True)
        _wait_ready(self.url, self.process, self.log)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop the server process group this fixture started (SIGKILL: a pulled plug)."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, sig)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def call(self, method: str, path: str, body: Any = None,
             token: str | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}/api/v1{path}", data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def state(self) -> dict[str, Any]:
        view: dict[str, Any] = self.call("GET", "/state")
        return view

    def host_token(self) -> str:
        token: str = self.call("POST", "/host", {"pin": HOST_PIN})["token"]
        return token


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path,
                timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server ended early:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/api/v1/state", timeout=2):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.1)
    raise RuntimeError(f"the server did not answer within {timeout} s:\n{log.read_text()}")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """A fresh table server process for one test, stopped (by its pid) afterwards."""
    port = free_port()
    log = tmp_path / "server.log"
    command = [str(ROOT / ".venv" / "bin" / "kalimambo"), "serve", "--host", "127.0.0.1",
               "--port", str(port), "--data-dir", str(tmp_path / "data"),
               "--host-pin", HOST_PIN, "--strip", "sim"]
    if not Path(command[0]).exists():
        command = [sys.executable, "-m", "kalimambo", *command[1:]]
    server = Server(f"http://127.0.0.1:{port}", command, log)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
