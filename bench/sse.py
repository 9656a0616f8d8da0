"""Event-stream speed: 60 SSE clients, 7 seats picking, time from the last pick to the reveal,
and the size of each message (issue 10: p99 <= 20 ms, every message <= 2 KB).

Run ``.venv/bin/python -m bench.sse``.  Starts a real ``kalimambo serve`` (gunicorn +
gevent, simulated strip) on a free port, opens ``--clients`` event streams (read by one
selector thread, so the readers do not fight over the GIL) and waits until every one
has its first view, has ``--seats`` seats play ``--games`` whole games of 12 rounds
(each seat plays its lowest card, so cards tie and often every seat pays at once: the
largest messages), and for every round measures the time from sending the round's last
pick to the reveal (the playback's first step, k = 1) arriving at each client; the rest
of the playback then runs on the table's clock (the shortest pause).  Prints the
median and 99th percentile (per client and for "all clients have it"), the bytes per
message after the first whole view (the SSE message, without HTTP's chunk framing:
median, mean, largest, largest in round 12), the server's memory (each process's
resident set, and all of them together as proportional set sizes: shared pages counted
once, not once per process), and how long
60 clients dropping and reconnecting at once take to be served again, each with
whether it is within the goal.  The seats' own phones are measured too (issue 44): the
time from the last pick to every phone showing the round with its own hand, and the
phones' requests per round, for each way a phone can follow its seat (``--phones``):
``own``, the seat's own stream (``?token=``), whose messages carry its hand and pick, and
``pull``, the way the phone page worked before: the public stream, then ``GET /me`` after
each push that opens or ends a round (the phone shows the round when that answers).
``--repeat N`` runs it N times (a shared machine is noisy) and prints each run and the
medians.  Prints figures and asserts nothing about
them; it stops with an error when the game itself does not go as planned.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kalimambo.engine.setup import SAMPLE_NAMES
from tests.helpers import ROOT, child_pids, free_port, runs

NAMES = SAMPLE_NAMES


class Api:
    """A keep-alive JSON client for the picks (one connection, like one phone)."""

    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

    def call(self, method: str, path: str, body: Any = None, token: str | None = None
             ) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body)
        self.conn.request(method, "/api/v1" + path, body=data, headers=headers)
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"null")


class Dechunk:
    """HTTP/1.1 chunked transfer decoding, fed as bytes arrive: the SSE body itself."""

    def __init__(self) -> None:
        self.raw = b""
        self.left = 0  # bytes of the current chunk still to come (then its CRLF)

    def feed(self, data: bytes) -> bytes:
        self.raw += data
        body = b""
        while True:
            if self.left:
                take = self.raw[:self.left]
                body += take
                self.raw = self.raw[len(take):]
                self.left -= len(take)
                if self.left:
                    return body
                self.left = -2  # then the chunk's CRLF
            if self.left == -2:
                if len(self.raw) < 2:
                    return body
                self.raw, self.left = self.raw[2:], 0
            line_end = self.raw.find(b"\r\n")
            if line_end < 0:
                return body
            size = int(self.raw[:line_end].split(b";")[0], 16)
            self.raw = self.raw[line_end + 2:]
            if size == 0:
                return body
            self.left = size


class Streams:
    """``count`` event streams read by one selector thread; records reveal arrivals.
    ``tokens``: one seat token per stream (the seats' own streams), else public ones."""

    def __init__(self, port: int, count: int, tokens: Sequence[str] = (), net: int = 0) -> None:
        self.port = port
        self.count = count
        self.tokens = list(tokens)
        self.net = net
        """Streams come from 127.0.<net>.x: the phones' apart from the other clients'."""
        self.selector = selectors.DefaultSelector()
        self.buffers: dict[socket.socket, bytes] = {}
        self.arrivals: dict[bytes, dict[socket.socket, float]] = {}
        self.sizes: list[tuple[int, int]] = []
        """(round being played, bytes) of every message after the first, on one stream."""
        self.whole_views = 0
        """Whole views sent again after the first (a stream that fell behind)."""
        self._body = b""
        self._dechunk = Dechunk()
        self._headers_done = False
        self.round = 0
        self.first: list[float] = []
        self.watch: list[bytes] = []
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def open_all(self) -> None:
        for _ in range(self.count):
            self._open()
        self.thread.start()

    def _open(self) -> None:
        # one loopback address per 8 clients: the table allows 16 streams per address
        source = f"127.0.{self.net}.{2 + len(self.buffers) // 8}"
        sock = socket.create_connection(("127.0.0.1", self.port), source_address=(source, 0))
        token = self.tokens[len(self.buffers)] if self.tokens else ""
        query = b"?patches=1" + (f"&token={token}".encode() if token else b"")
        sock.sendall(b"GET /api/v1/events%s HTTP/1.1\r\nHost: bench\r\n"
                     b"Accept: text/event-stream\r\n\r\n" % query)
        sock.setblocking(False)
        self.buffers[sock] = b""
        self.selector.register(sock, selectors.EVENT_READ)

    def expect(self, marker: bytes) -> None:
        with self.lock:
            self.arrivals[marker] = {}
            self.watch.append(marker)

    def wait(self, marker: bytes, timeout: float = 30.0) -> list[float]:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            with self.lock:
                if len(self.arrivals[marker]) >= self.count:
                    return list(self.arrivals[marker].values())
            time.sleep(0.001)
        raise TimeoutError(f"only {len(self.arrivals[marker])} clients saw {marker!r}")

    def _loop(self) -> None:
        while self.running:
            for key, _ in self.selector.select(timeout=0.1):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                try:
                    chunk = sock.recv(262144)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    chunk = b""
                now = time.perf_counter()
                if not chunk:
                    self.selector.unregister(sock)
                    sock.close()
                    self.buffers.pop(sock, None)
                    continue
                data = self.buffers[sock] + chunk
                if b"HTTP/1.1 200" in data[:20] and b"data: " in data:
                    with self.lock:
                        self.first.append(now)
                with self.lock:
                    for marker in self.watch:
                        if marker in data:
                            self.arrivals[marker].setdefault(sock, now)
                    if sock is self.sized:
                        self._measure(chunk)
                    self.watch = [m for m in self.watch
                                  if len(self.arrivals[m]) < self.count]
                cut = data.rfind(b"\n\n")
                self.buffers[sock] = data[cut + 2:] if cut >= 0 else data[-65536:]

    @property
    def sized(self) -> socket.socket | None:
        """The stream whose message sizes are measured (the first one opened)."""
        return next(iter(self.buffers), None)

    def _measure(self, chunk: bytes) -> None:
        """Cut the sized stream's body into SSE messages and note each one's bytes."""
        if not self._headers_done:
            self._body += chunk
            end = self._body.find(b"\r\n\r\n")
            if end < 0:
                return
            self._headers_done = True
            chunk, self._body = self._body[end + 4:], b""
        self._body += self._dechunk.feed(chunk)
        *blocks, self._body = self._body.split(b"\n\n")
        for block in blocks:
            lines = block.split(b"\n")
            if not any(line.startswith(b"data: ") for line in lines):
                continue  # a heartbeat comment
            if lines[0].startswith(b"retry:"):
                continue  # the first whole view
            if b"event: patch" not in lines:
                self.whole_views += 1
            self.sizes.append((self.round, len(block) + 2))

    def drop_and_reconnect(self) -> float:
        """Close every stream at once and open them all again; seconds until all served."""
        self.running = False
        self.thread.join()
        for sock in list(self.buffers):
            self.selector.unregister(sock)
            sock.close()
        self.buffers.clear()
        self.first = []
        self._headers_done, self._body, self._dechunk = False, b"", Dechunk()
        self.running = True
        self.thread = threading.Thread(target=self._loop, daemon=True)
        began = time.perf_counter()
        self.open_all()
        deadline = began + 60
        while time.perf_counter() < deadline:
            with self.lock:
                if len(self.first) >= self.count:
                    return max(self.first) - began
            time.sleep(0.001)
        return float("nan")

    def wait_open(self, timeout: float = 30.0) -> None:
        """Until every stream has its first whole view (all ``count`` are held open)."""
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            with self.lock:
                if len(self.first) >= self.count:
                    return
            time.sleep(0.005)
        raise RuntimeError(f"only {len(self.first)} of {self.count} streams opened")

    def close(self) -> None:
        self.running = False
        self.thread.join()
        for sock in list(self.buffers):
            sock.close()


def _kb(path: str, field: str) -> int:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def rss_kb(pid: int) -> int:
    """Resident memory: counts the pages a process shares with others in full."""
    return _kb(f"/proc/{pid}/status", "VmRSS:")


def pss_kb(pid: int) -> int:
    """Proportional memory: a shared page counts as its share, so the figures of
    processes sharing pages (a forked worker and its master) add up to what they take."""
    return _kb(f"/proc/{pid}/smaps_rollup", "Pss:")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Phones:
    """The seats' phones: their streams (own or public, ``mode``), what they asked for,
    and when each showed a round with its own hand."""

    def __init__(self, port: int, tokens: dict[str, str], mode: str) -> None:
        self.port = port
        self.mode = mode
        self.tokens = tokens
        self.streams = Streams(port, len(tokens), list(tokens.values()) if mode == "own"
                               else (), net=1)
        self.requests = 0
        self.conns = {name: Api(port) for name in tokens}

    def call(self, name: str, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        self.requests += 1
        return self.conns[name].call(method, path, body, token=self.tokens[name])

    def shown(self, marker: bytes) -> list[float]:
        """When each phone showed the round ``marker`` reveals: its own stream's message
        (own), or the answer to the ``GET /me`` it sends when the public stream's
        message arrives (pull; the phones ask at once, each on its own connection)."""
        arrivals = self.streams.wait(marker)
        if self.mode == "own":
            return arrivals
        answered: list[float] = []

        def pull(name: str) -> None:
            self.call(name, "GET", "/me")
            answered.append(time.perf_counter())

        threads = [threading.Thread(target=pull, args=(name,)) for name in self.tokens]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return answered


def run(clients: int, seats: int, games: int, under: str | None = None,
        phone_mode: str = "own") -> dict[str, Any]:
    port = free_port()
    data = tempfile.mkdtemp(prefix="kalimambo-bench-", dir=under)
    proc = subprocess.Popen([sys.executable, "-m", "kalimambo", "serve", "--host", "127.0.0.1",
                             "--port", str(port), "--data-dir", data, "--host-pin", "1234",
                             "--strip", "sim"], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                Api(port).call("GET", "/state")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        api = Api(port)
        if not 3 <= seats <= len(NAMES):
            raise ValueError(f"--seats is 3 to {len(NAMES)}")
        tokens = {n: api.call("POST", "/join", {"name": n})[1]["token"] for n in NAMES[:seats]}
        host = api.call("POST", "/host", {"pin": "1234"})[1]["token"]
        api.call("POST", "/host/settings", {"pause_ms": 100}, token=host)  # short playbacks
        streams = Streams(port, clients)
        streams.open_all()
        streams.wait_open()
        phones = Phones(port, tokens, phone_mode)
        phones.streams.open_all()
        phones.streams.wait_open()
        per_client: list[float] = []
        all_clients: list[float] = []
        all_phones: list[float] = []
        def pick(name: str, round_no: int) -> None:
            """Each seat plays its lowest card, card r - 1 in round r (its phone knows
            its hand)."""
            status, answer = phones.call(name, "POST", "/pick",
                                         {"round": round_no, "card": round_no - 1})
            if status != 200:
                raise RuntimeError(f"{name}'s pick for round {round_no}: {status} {answer}")

        for game in range(games):
            streams.round = 0  # the new game's and the start's messages
            if game:
                api.call("POST", "/host/new", {"keep_seats": True}, token=host)
            status, view = api.call("POST", "/host/start", {}, token=host)
            if status != 200 or len(view["seats"]) != seats:
                raise RuntimeError(f"the game did not start with {seats} seats: {status}")
            if phone_mode == "pull":  # the game opened: each phone pulls its hand
                for name in tokens:
                    phones.call(name, "GET", "/me")
            for round_no in range(1, 13):
                for name in list(tokens)[:-1]:
                    pick(name, round_no)
                marker = b'{"type":"reveal","round":%d,' % round_no
                streams.expect(marker)
                phones.streams.expect(marker)
                streams.round = round_no
                last = list(tokens)[-1]
                began = time.perf_counter()
                status, answer = phones.call(last, "POST", "/pick",
                                             {"round": round_no, "card": round_no - 1})
                if status != 200 or not answer.get("resolved"):
                    raise RuntimeError(f"round {round_no} did not resolve: {status} {answer}")
                arrivals = streams.wait(marker)
                all_phones.append((max(phones.shown(marker)) - began) * 1000)
                while (view := api.call("GET", "/state")[1])["phase"] == "playing":
                    time.sleep(0.02)  # the playback runs on the table's clock
                if phone_mode == "pull" and round_no < 12:  # the new round opened: pull
                    for name in tokens:
                        phones.call(name, "GET", "/me")
                per_client += [(t - began) * 1000 for t in arrivals]
                all_clients.append((max(arrivals) - began) * 1000)
            if view["phase"] != "finished" or len(view["history"]) != 12:
                raise RuntimeError(f"game {game + 1} did not finish after round 12")
        time.sleep(0.2)  # the last messages (the strip's status) reach the sized stream
        forked = child_pids(proc.pid)
        parts = {"master": [proc.pid], "worker": [p for p in forked if runs(p, "serve")],
                 "lights": [p for p in forked if runs(p, "lights")]}
        memory_kb = {f"{kind}_{name}": sum(measure(p) for p in pids)
                     for name, pids in parts.items()
                     for kind, measure in (("rss", rss_kb), ("pss", pss_kb))}
        memory_kb["pss_total"] = sum(memory_kb[f"pss_{name}"] for name in parts)
        reconnect = streams.drop_and_reconnect()
        streams.close()
        phones.streams.close()
        message_sizes = [size for _, size in streams.sizes]
        round_12 = [size for r, size in streams.sizes if r == 12]
        return {
            "clients": clients, "seats": seats, "games": games, "rounds": len(all_clients),
            "messages": len(message_sizes), "whole_views_again": streams.whole_views,
            "message_bytes_median": statistics.median(message_sizes),
            "message_bytes_mean": round(statistics.mean(message_sizes), 1),
            "message_bytes_max": max(message_sizes),
            "message_bytes_max_round_12": max(round_12),
            "reveal_ms_median": round(statistics.median(per_client), 2),
            "reveal_ms_p99": round(percentile(per_client, 0.99), 2),
            "all_clients_ms_median": round(statistics.median(all_clients), 2),
            "all_clients_ms_p99": round(percentile(all_clients, 0.99), 2),
            "all_clients_ms_max": round(max(all_clients), 2),
            "phones": phone_mode,
            "all_phones_ms_median": round(statistics.median(all_phones), 2),
            "all_phones_ms_p99": round(percentile(all_phones, 0.99), 2),
            "phone_requests_per_round": round(phones.requests / len(all_phones), 2),
            **{f"{key}_mb": round(kb / 1024, 1) for key, kb in memory_kb.items()},
            "reconnect_storm_ms": round(reconnect * 1000, 1),
        }
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        shutil.rmtree(data, ignore_errors=True)  # /dev/shm is memory


GOALS = {"reveal_ms_p99": 20.0, "message_bytes_max": 2048, "pss_total_mb": 80.0}
"""Issue 10's goals (at most), and the memory goal the table has kept since."""


def verdict(figures: dict[str, Any], key: str) -> str:
    goal = GOALS[key]
    return f"(goal <= {goal:g}: {'within' if figures[key] <= goal else 'NOT within'})"


def report(figures: dict[str, Any]) -> None:
    print(f"{figures['clients']} event streams, {figures['seats']} seats, "
          f"{figures['games']} whole games, {figures['rounds']} rounds")
    print(f"last pick -> reveal at a client: median {figures['reveal_ms_median']} ms, "
          f"p99 {figures['reveal_ms_p99']} ms {verdict(figures, 'reveal_ms_p99')}")
    print(f"bytes per message after the first view ({figures['messages']} messages): median "
          f"{figures['message_bytes_median']}, mean {figures['message_bytes_mean']}, max "
          f"{figures['message_bytes_max']} {verdict(figures, 'message_bytes_max')}, max in "
          f"round 12 {figures['message_bytes_max_round_12']}; whole views sent again: "
          f"{figures['whole_views_again']}")
    print(f"last pick -> reveal at all clients: median {figures['all_clients_ms_median']} ms, "
          f"p99 {figures['all_clients_ms_p99']} ms, max {figures['all_clients_ms_max']} ms")
    print(f"last pick -> every phone showing the round with its hand ({figures['phones']}): "
          f"median {figures['all_phones_ms_median']} ms, p99 {figures['all_phones_ms_p99']} "
          f"ms; the {figures['seats']} phones' requests per round: "
          f"{figures['phone_requests_per_round']}")
    print("server memory, resident (shared pages in each): " + ", ".join(
        f"{name} {figures[f'rss_{name}_mb']} MB" for name in ("master", "worker", "lights")))
    print("server memory, proportional: " + " + ".join(
        f"{name} {figures[f'pss_{name}_mb']}" for name in ("master", "worker", "lights"))
        + f" = {figures['pss_total_mb']} MB {verdict(figures, 'pss_total_mb')}")
    print(f"all {figures['clients']} streams dropped and reopened at once: served again in "
          f"{figures['reconnect_storm_ms']} ms")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sse", description=__doc__)
    parser.add_argument("--clients", type=int, default=60)
    parser.add_argument("--seats", type=int, default=7)
    parser.add_argument("--games", type=int, default=3, help="games of 12 rounds each")
    parser.add_argument("--repeat", type=int, default=1, help="runs, then their medians")
    parser.add_argument("--phones", default="own,pull", help="how the seats' phones follow "
                        "their seat: own (their own stream), pull (the public stream and "
                        "GET /me after a push, as before issue 44), or both, one run each")
    parser.add_argument("--json", action="store_true", help="one JSON object per run")
    parser.add_argument("--store-under", metavar="DIR", help="make the table's data dir in "
                        "DIR (default: the system's temp dir); /dev/shm leaves out the "
                        "disk's fsync, to see the rest of the path")
    args = parser.parse_args(argv)
    modes = args.phones.split(",")
    if not set(modes) <= {"own", "pull"}:
        parser.error("--phones is own, pull or own,pull")
    for mode in modes:
        runs = []
        for number in range(args.repeat):
            figures = run(args.clients, args.seats, args.games, args.store_under, mode)
            runs.append(figures)
            if args.json:
                print(json.dumps(figures), flush=True)
                continue
            if args.repeat > 1:
                print(f"-- run {number + 1} of {args.repeat} ({mode})")
            report(figures)
            sys.stdout.flush()
        if args.repeat > 1 and not args.json:
            medians = {key: (statistics.median(run[key] for run in runs)
                             if isinstance(runs[0][key], (int, float)) else runs[0][key])
                       for key in runs[0]}
            print(f"-- medians of {args.repeat} runs ({mode})")
            report(medians)
    return 0


if __name__ == "__main__":
    sys.exit(main())
