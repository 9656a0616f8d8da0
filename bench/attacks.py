"""Issue 11's attacks at their full size, against a real ``kalimambo serve``: figures only.

Run ``.venv/bin/python -m bench.attacks``.  Starts the table on a free port (loopback
only) and replays, one after the other: 1050 event streams from one address and from
70 addresses; 1100 ``POST /api/v1/join`` with ``Content-Length: 100`` and only ``{``
sent, from one address and from 40; 300 hints at once from one seat; wrong PINs from 600
addresses.  For each it prints how many connections were held, how many refused, how
long ``/api/v1/state`` took meanwhile (worst of the samples) and the worker's memory.
The pass/fail versions (smaller) are in tests/test_attacks.py.  Asserts nothing.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.sse import rss_kb
from tests.helpers import ROOT, child_pids, free_port, runs

PIN = "4821"


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None,
         source: str = "127.0.0.1", timeout: float = 60) -> tuple[int, Any]:
    payload = b"" if body is None else json.dumps(body).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                  source_address=(source, 0)) as sock:
        head = f"{method} /api/v1{path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
        if token:
            head += f"Authorization: Bearer {token}\r\n"
        if payload:
            head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
        sock.sendall(head.encode() + b"\r\n" + payload)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    text = data.split(b"\r\n\r\n", 1)[1]
    try:
        return status, json.loads(text)
    except ValueError:
        return status, None


def status_of(sock: socket.socket) -> int:
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                return 0
            data += chunk
    except OSError:
        return 0
    return int(data.split(b" ", 2)[1])


class StateProbe:
    """Times ``GET /api/v1/state`` over and over from its own address while an attack runs."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.times: list[float] = []
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            start = time.monotonic()
            try:
                status, _ = call(self.port, "GET", "/state", source="127.0.0.1", timeout=30)
            except OSError:
                status = 0
            if status == 200:
                self.times.append(time.monotonic() - start)
            else:
                self.failed += 1
            time.sleep(0.05)

    def stop(self) -> str:
        self._stop.set()
        self._thread.join(60)
        worst = max(self.times, default=0.0)
        return (f"/state answered {len(self.times)} times (failed {self.failed}), worst "
                f"{worst * 1000:.0f} ms")


def open_many(port: int, count: int, addresses: int, request: bytes, prefix: str
              ) -> list[socket.socket]:
    opened = []
    for i in range(count):
        sock = socket.create_connection(("127.0.0.1", port), timeout=30,
                                        source_address=(f"{prefix}.{i % addresses + 1}", 0))
        sock.sendall(request)
        opened.append(sock)
    return opened


def tally(statuses: list[int]) -> str:
    counts: dict[int, int] = {}
    for status in statuses:
        counts[status] = counts.get(status, 0) + 1
    return ", ".join(f"{n} x {status or 'closed'}" for status, n in sorted(counts.items()))


def streams(port: int, worker: int, addresses: int, prefix: str) -> None:
    probe = StateProbe(port)
    opened = open_many(port, 1050, addresses, b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n",
                       prefix)
    statuses = [status_of(sock) for sock in opened]
    memory = rss_kb(worker) // 1024
    for sock in opened:
        sock.close()
    print(f"1050 event streams from {addresses} address(es): {tally(statuses)}; "
          f"{probe.stop()}; worker {memory} MB")


def half_bodies(port: int, worker: int, addresses: int, prefix: str) -> None:
    probe = StateProbe(port)
    start = time.monotonic()
    opened = open_many(port, 1100, addresses,
                       b"POST /api/v1/join HTTP/1.1\r\nHost: x\r\nContent-Type: "
                       b"application/json\r\nContent-Length: 100\r\n\r\n{", prefix)
    statuses = [status_of(sock) for sock in opened]
    seconds = time.monotonic() - start
    memory = rss_kb(worker) // 1024
    for sock in opened:
        sock.close()
    print(f"1100 half-sent bodies from {addresses} address(es): {tally(statuses)} "
          f"(all answered within {seconds:.1f} s); {probe.stop()}; worker {memory} MB")


def hints(port: int, worker: int) -> None:
    tokens = [call(port, "POST", "/join", {"name": n})[1]["token"] for n in ("A1", "B2", "C3")]
    host = call(port, "POST", "/host", {"pin": PIN})[1]["token"]
    call(port, "POST", "/host/settings", {"hints": True}, token=host)
    call(port, "POST", "/host/start", {}, token=host)
    probe = StateProbe(port)
    answers: list[int] = []
    start = time.monotonic()

    def ask(i: int) -> None:
        answers.append(call(port, "GET", "/hint", token=tokens[0],
                            source=f"127.0.5.{i % 10 + 1}")[0])

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(300)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    print(f"300 hints at once for one seat from 10 addresses: {tally(answers)} in "
          f"{time.monotonic() - start:.1f} s; {probe.stop()}; worker "
          f"{rss_kb(worker) // 1024} MB")


def pins(port: int, worker: int, host_key: str) -> None:
    statuses = [call(port, "POST", "/host", {"pin": f"{i:04d}"},
                     source=f"127.0.{6 + i // 250}.{i % 250 + 1}")[0] for i in range(600)]
    key = call(port, "POST", "/host", {"key": host_key}, source="127.0.9.9")[0]
    screen = call(port, "POST", "/host", {}, source="127.0.0.1")[0]
    pin = call(port, "POST", "/host", {"pin": PIN}, source="127.0.9.10")[0]
    print(f"600 wrong PINs from 600 addresses: {tally(statuses)}; then the host key "
          f"{key}, the right PIN from a new address {pin}, the Pi's own screen without "
          f"a secret {screen} (refused: it is no host)")


def console_key(log: Path) -> str:
    """The host key from the host link the table prints when it starts."""
    found = re.findall(r"Host link.*#key=(\S+)", log.read_text(errors="replace"))
    return found[-1] if found else ""


def main() -> None:
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        log = Path(data) / "server.log"
        with log.open("wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "kalimambo", "serve", "--host",
                                     "127.0.0.1", "--port", str(port), "--data-dir",
                                     str(Path(data) / "d"), "--host-pin", PIN, "--strip",
                                     "sim"], cwd=ROOT, stdout=out, stderr=out,
                                    start_new_session=True)
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    call(port, "GET", "/state", timeout=2)
                    break
                except OSError:
                    time.sleep(0.1)
            worker = next(pid for pid in child_pids(proc.pid) if runs(pid, "serve"))
            print(f"server up, worker {rss_kb(worker) // 1024} MB")
            steps: list[Callable[[], None]] = [
                lambda: streams(port, worker, 1, "127.0.1"),
                lambda: streams(port, worker, 70, "127.0.2"),
                lambda: half_bodies(port, worker, 1, "127.0.3"),
                lambda: half_bodies(port, worker, 40, "127.0.4"),
                lambda: hints(port, worker),
                lambda: pins(port, worker, console_key(log)),
            ]
            for step in steps:
                step()
                time.sleep(1)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)


if __name__ == "__main__":
    main()
