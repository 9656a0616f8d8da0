"""The attacks of docs/LIMITS.md at their full size, against a real ``kalimambo serve``,
with the table timed from other addresses meanwhile: figures only.

Run ``.venv/bin/python -m bench.attacks`` (``--runs N``, 3 by default: each run starts a
fresh table on a free port, loopback only, as the README's first command does), or with
``--installed PORT --key KEY`` against the table systemd runs, from inside that machine
(tests/pi/run-emulated does it in the booted Pi: every run then attacks the same table,
emptied to a lobby before each attack).  The
attacks, one after the other, from their own 127.x addresses:

- 1050 event streams from one address, and from 70 (15 each);
- 1100 ``POST /api/v1/join`` with ``Content-Length: 100`` and only ``{`` sent, from one
  address and from 40;
- keep-alive floods: 64 connections from one address and 15 from each of 70, each with
  2000 ``GET /api/v1/state`` sent ahead on it (pipelined) and its answers never read;
- 300 hints at once for one seat from 10 addresses;
- 600 wrong PINs from 600 addresses.

Each attack but the hints and the PINs runs twice: with the table in its lobby, and in a
game being picked.  Meanwhile, from addresses of their own, one probe after another asks
``GET /api/v1/state``, a join (``POST /api/v1/join``, a real seat, taken away again by
the host between two probes: in the lobby) and a pick (``POST /api/v1/pick``, a seat
changing its card: in a game); each is a new connection, as a phone's first request is.
For every attack it prints what the attackers got (``door`` marks the door's refusals,
``too_many_connections``, made before a byte of the request was read), then the median
and the worst time of each probe and how many got no answer, and at the end the same
over all runs.  The machine's load counts in every figure.  The pass/fail versions
(smaller) are tests/http/test_attacks.py.  Asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.sse import rss_kb
from kalimambo.web.http import limits
from tests.helpers import ROOT, child_pids, free_port, runs

PIN = "4821"
STATE_FROM, JOIN_FROM, PICK_FROM, HOST_FROM = "127.0.8.1", "127.0.8.2", "127.0.8.3", "127.0.8.9"
PAUSE_S = 0.02
"""Between two probes of one kind."""
HOLD_S = 1.0
"""How long an attack keeps what it got (streams, connections) before letting go."""


def request_bytes(method: str, path: str, body: Any = None, token: str | None = None) -> bytes:
    """A whole HTTP/1.1 request for one connection (``Connection: close``), as sent."""
    payload = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    if payload:
        head += f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
    return head.encode() + b"\r\n" + payload


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None,
         source: str = "127.0.0.1", timeout: float = 60) -> tuple[int, Any]:
    with socket.create_connection(("127.0.0.1", port), timeout=timeout,
                                  source_address=(source, 0)) as sock:
        sock.sendall(request_bytes(method, f"/api/v1{path}", body, token))
        data = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                data += chunk
    if not data:
        return 0, None
    status = int(data.split(b" ", 2)[1])
    text = data.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in data else b""
    try:
        return status, json.loads(text)
    except ValueError:
        return status, None


def answer_of(sock: socket.socket) -> str:
    """What the attacker's connection got: ``200``, ``429``, ``429 door`` (refused by the
    door), ``closed`` (no answer)."""
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        status = data.split(b" ", 2)[1].decode() if data else ""
        if status and status != "200":
            sock.settimeout(2)
            with contextlib.suppress(OSError):
                while len(data) < 4096 and (chunk := sock.recv(4096)):
                    data += chunk
    except OSError:
        pass
    if not data:
        return "closed"
    return f"{status} door" if b"too_many_connections" in data else status


def tally(answers: list[str]) -> str:
    counts: dict[str, int] = {}
    for answer in answers:
        counts[answer] = counts.get(answer, 0) + 1
    return ", ".join(f"{n} x {answer}" for answer, n in sorted(counts.items()))


# -- the table, and the probes from other addresses -------------------------------------
@dataclass
class Table:
    port: int
    host: str  # a host token (logged in with the key: PIN guessers never lock it out)
    worker: int
    seats: dict[str, str] = field(default_factory=dict)  # name -> token, in a game
    probes: int = 0

    def to_lobby(self) -> None:
        call(self.port, "POST", "/host/new", {"keep_seats": False}, token=self.host,
             source=HOST_FROM)
        self.seats = {}

    def to_game(self, hints: bool = False) -> None:
        self.to_lobby()
        for name in ("Ana", "Ben", "Caro"):
            self.seats[name] = call(self.port, "POST", "/join", {"name": name},
                                    source=PICK_FROM)[1]["token"]
        call(self.port, "POST", "/host/settings", {"hints": hints}, token=self.host,
             source=HOST_FROM)
        status, _ = call(self.port, "POST", "/host/start", {}, token=self.host,
                         source=HOST_FROM)
        assert status == 200, status

    def state(self) -> int:
        return call(self.port, "GET", "/state", source=STATE_FROM, timeout=30)[0]

    def join(self) -> int:
        self.probes += 1
        status, body = call(self.port, "POST", "/join", {"name": f"Probe {self.probes}"},
                            source=JOIN_FROM, timeout=30)
        if status == 201:  # not timed: the seat goes again, so the lobby never fills
            call(self.port, "POST", "/host/remove", {"id": body["id"]}, token=self.host,
                 source=HOST_FROM, timeout=30)
        return status

    def pick(self) -> int:
        self.probes += 1
        return call(self.port, "POST", "/pick", {"round": 1, "card": self.probes % 2},
                    token=self.seats["Ben"], source=PICK_FROM, timeout=30)[0]


class Probe:
    """Times one kind of request, over and over, on its own thread."""

    def __init__(self, name: str, ask: Callable[[], int], good: int) -> None:
        self.name, self.ask, self.good = name, ask, good
        self.times: list[float] = []
        self.failed = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.is_set():
            start = time.monotonic()
            try:
                status = self.ask()
            except (OSError, KeyError, TypeError):
                status = 0
            seconds = time.monotonic() - start
            if status == self.good:
                self.times.append(seconds)
            else:
                self.failed += 1
            time.sleep(PAUSE_S)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(120)


@contextlib.contextmanager
def probing(table: Table, phase: str, results: dict[str, list[Probe]]) -> Iterator[None]:
    probes = [Probe("state", table.state, 200)]
    probes.append(Probe("join", table.join, 201) if phase == "lobby"
                  else Probe("pick", table.pick, 200))
    try:
        yield
    finally:
        for probe in probes:
            probe.stop()
            results.setdefault(probe.name, []).append(probe)


def summary(probes: list[Probe]) -> str:
    times = [t for probe in probes for t in probe.times]
    failed = sum(probe.failed for probe in probes)
    if not times:
        return f"no answer ({failed} failed)"
    return (f"median {statistics.median(times) * 1000:.0f} ms, worst "
            f"{max(times) * 1000:.0f} ms ({len(times)} answered, {failed} failed)")


# -- the attacks ---------------------------------------------------------------------------
def open_many(port: int, count: int, addresses: int, request: bytes, prefix: str
              ) -> list[socket.socket]:
    opened = []
    for i in range(count):
        try:
            sock = socket.create_connection(("127.0.0.1", port), timeout=30,
                                            source_address=(f"{prefix}.{i % addresses + 1}",
                                                            0))
            sock.sendall(request)
        except OSError:
            continue
        opened.append(sock)
    return opened


def streams(table: Table, addresses: int, prefix: str) -> str:
    opened = open_many(table.port, 1050, addresses,
                       b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n", prefix)
    answers = [answer_of(sock) for sock in opened]
    time.sleep(HOLD_S)  # the streams held stay open: each probe's change goes to them all
    memory = rss_kb(table.worker) // 1024
    for sock in opened:
        sock.close()
    return f"{tally(answers)}; worker {memory} MB"


def half_bodies(table: Table, addresses: int, prefix: str) -> str:
    start = time.monotonic()
    opened = open_many(table.port, 1100, addresses,
                       b"POST /api/v1/join HTTP/1.1\r\nHost: x\r\nContent-Type: "
                       b"application/json\r\nContent-Length: 100\r\n\r\n{", prefix)
    answers = [answer_of(sock) for sock in opened]
    seconds = time.monotonic() - start
    memory = rss_kb(table.worker) // 1024
    for sock in opened:
        sock.close()
    return f"{tally(answers)} (all answered within {seconds:.1f} s); worker {memory} MB"


def pipelined(table: Table, connections: int, addresses: int, prefix: str) -> str:
    """Each connection sends 2000 requests at once and never reads an answer."""
    opened = open_many(table.port, connections, addresses, b"", prefix)
    flood = b"GET /api/v1/state HTTP/1.1\r\nHost: x\r\n\r\n" * 2000
    cpu = worker_cpu(table.worker)

    def send(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.sendall(flood)

    senders = [threading.Thread(target=send, args=(sock,), daemon=True) for sock in opened]
    for sender in senders:
        sender.start()
    time.sleep(3 * HOLD_S)
    used = worker_cpu(table.worker) - cpu
    refused = 0
    for sock in opened:
        sock.setblocking(False)
        with contextlib.suppress(OSError):
            if b"too_many_connections" in sock.recv(4096):
                refused += 1
        sock.close()
    return (f"{len(opened)} connections, {refused} refused by the door; the worker "
            f"busy {used:.1f} s of {3 * HOLD_S:.0f}")


def worker_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def hints(table: Table) -> str:
    answers: list[int] = []
    start = time.monotonic()
    token = table.seats["Ana"]

    def ask(i: int) -> None:
        try:
            answers.append(call(table.port, "GET", "/hint", token=token,
                                source=f"127.0.5.{i % 10 + 1}")[0])
        except OSError:
            answers.append(0)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(300)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return (f"{tally([str(a) for a in answers])} in {time.monotonic() - start:.1f} s; "
            f"worker {rss_kb(table.worker) // 1024} MB")


def pins(table: Table, host_key: str) -> str:
    statuses = [str(call(table.port, "POST", "/host", {"pin": f"{i:04d}"},
                         source=f"127.0.{6 + i // 250}.{i % 250 + 1}")[0])
                for i in range(600)]
    key = call(table.port, "POST", "/host", {"key": host_key}, source="127.0.9.9")[0]
    screen = call(table.port, "POST", "/host", {}, source="127.0.0.1")[0]
    return (f"{tally(statuses)}; then the host key {key}, the Pi's own screen without a "
            f"secret {screen} (refused: it is no host)")


Attack = tuple[str, tuple[str, ...], Callable[[Table], str]]


def attacks(host_key: str) -> list[Attack]:
    both = ("lobby", "game")
    return [
        ("1050 event streams from 1 address", both, lambda t: streams(t, 1, "127.0.1")),
        ("1050 event streams from 70 addresses", both, lambda t: streams(t, 70, "127.0.2")),
        ("1100 half-sent bodies from 1 address", both,
         lambda t: half_bodies(t, 1, "127.0.3")),
        ("1100 half-sent bodies from 40 addresses", both,
         lambda t: half_bodies(t, 40, "127.0.4")),
        ("64 connections x 2000 pipelined requests from 1 address", both,
         lambda t: pipelined(t, 64, 1, "127.0.10")),
        ("1050 connections x 2000 pipelined requests from 70 addresses", both,
         lambda t: pipelined(t, 1050, 70, "127.0.11")),
        ("300 hints at once for one seat from 10 addresses", ("game",), hints),
        ("600 wrong PINs from 600 addresses", ("game",), lambda t: pins(t, host_key)),
    ]


# -- the runs ------------------------------------------------------------------------------
def console_key(log: Path) -> str:
    """The host key from the host link the table prints when it starts."""
    found = re.findall(r"Host link.*#key=(\S+)", log.read_text(errors="replace"))
    return found[-1] if found else ""


Results = dict[tuple[str, str], dict[str, list[Probe]]]


def one_run(results: Results) -> None:
    """A fresh table on a free port, as the README's first command starts it, attacked."""
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
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                try:
                    call(port, "GET", "/state", timeout=2)
                    break
                except OSError:
                    time.sleep(0.1)
            worker = next(pid for pid in child_pids(proc.pid) if runs(pid, "serve"))
            attack_table(port, console_key(log), worker, results)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(30)


def installed_worker() -> int:
    """The web worker of the table systemd runs (``kalimambo.service``)."""
    main = subprocess.run(["systemctl", "show", "-p", "MainPID", "--value",
                           "kalimambo.service"], capture_output=True, text=True,
                          check=True).stdout.strip()
    return next(pid for pid in child_pids(int(main)) if runs(pid, "serve"))


def attack_table(port: int, key: str, worker: int, results: Results) -> None:
    """Every attack, in each of its phases, against the table on 127.0.0.1:``port``."""
    host = call(port, "POST", "/host", {"key": key}, source=HOST_FROM)[1]["token"]
    table = Table(port, host, worker)
    print(f"table up, worker {rss_kb(worker) // 1024} MB", flush=True)
    for name, phases, attack in attacks(key):
        for phase in phases:
            if phase == "lobby":
                table.to_lobby()
            else:
                table.to_game(hints=name.startswith("300 hints"))
            time.sleep(2.5)  # the door's places held after refusals come free
            probes = results.setdefault((name, phase), {})
            with probing(table, phase, probes):
                time.sleep(0.2)
                got = attack(table)
                time.sleep(0.2)
            last = {kind: [kept[-1]] for kind, kept in probes.items()}
            print(f"{name} ({phase}): {got}", flush=True)
            for kind, probe in last.items():
                print(f"    {kind:5} {summary(probe)}", flush=True)
    table.to_lobby()


def room_for_the_attackers(want: int = 4096) -> None:
    """1050 sockets at once need more than the 1024 files a login shell gets by default:
    the attackers' own limit, not the table's (inside the Pi the bench stopped on it)."""
    limits.raise_open_files(want)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.attacks", description=__doc__
                                     .split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh tables, one after "
                                                            "the other (default 3)")
    parser.add_argument("--installed", type=int, metavar="PORT",
                        help="attack the table systemd runs on 127.0.0.1:PORT instead "
                             "(as root on the Pi; with --key)")
    parser.add_argument("--key", help="that table's host key (kalimambo host-link)")
    args = parser.parse_args()
    if args.installed and not args.key:
        parser.error("--installed needs --key (sudo -u kalimambo kalimambo host-link)")
    room_for_the_attackers()
    results: Results = {}
    for run in range(args.runs):
        print(f"-- run {run + 1} of {args.runs}", flush=True)
        if args.installed:
            attack_table(args.installed, args.key, installed_worker(), results)
        else:
            one_run(results)
    print(f"-- all {args.runs} runs: from other addresses, during each attack")
    for (name, phase), probes in results.items():
        print(f"{name} ({phase}):")
        for kind, probe_runs in probes.items():
            print(f"    {kind:5} {summary(probe_runs)}")


if __name__ == "__main__":
    main()
