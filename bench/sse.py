"""Event-stream speed: 60 SSE clients, 7 seats picking, time from the last pick to the reveal,
and the size of each message.

Run ``.venv/bin/python -m bench.sse``.  Starts a real ``kalimambo serve`` (gunicorn +
gevent, simulated strip) on a free port, opens ``--clients`` event streams (read by one
selector thread, so the readers do not fight over the GIL), has ``--seats`` seats play
``--games`` whole games, and for every round measures the time from sending the
round's last pick to the reveal (the playback's first step, k = 1) arriving at each
client; the rest of the playback then runs on the table's clock (the shortest pause).
Prints the median and 99th percentile (per client and for "all clients have it"),
the bytes per message after the first whole view (mean, largest, largest in round
12), the server's resident memory, and how long 60 clients dropping and reconnecting
at once take to be served again.  Prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import selectors
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
from tests.helpers import ROOT, free_port

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


class Streams:
    """``count`` event streams read by one selector thread; records reveal arrivals."""

    def __init__(self, port: int, count: int) -> None:
        self.port = port
        self.count = count
        self.selector = selectors.DefaultSelector()
        self.buffers: dict[socket.socket, bytes] = {}
        self.arrivals: dict[bytes, dict[socket.socket, float]] = {}
        self.sizes: list[tuple[int, int]] = []
        """(round being played, bytes) of every message after the first, on one stream."""
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
        source = f"127.0.0.{2 + len(self.buffers) // 8}"
        sock = socket.create_connection(("127.0.0.1", self.port), source_address=(source, 0))
        sock.sendall(b"GET /api/v1/events HTTP/1.1\r\nHost: bench\r\n"
                     b"Accept: text/event-stream\r\n\r\n")
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
                        self._measure(data)
                    self.watch = [m for m in self.watch
                                  if len(self.arrivals[m]) < self.count]
                cut = data.rfind(b"\n\n")
                self.buffers[sock] = data[cut + 2:] if cut >= 0 else data[-65536:]

    @property
    def sized(self) -> socket.socket | None:
        """The stream whose message sizes are measured (the first one opened)."""
        return next(iter(self.buffers), None)

    def _measure(self, data: bytes) -> None:
        blocks = data.split(b"\n\n")[:-1]
        for block in blocks:
            if b"event: patch" in block:
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

    def close(self) -> None:
        self.running = False
        self.thread.join()
        for sock in list(self.buffers):
            sock.close()


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(clients: int, seats: int, games: int) -> dict[str, Any]:
    port = free_port()
    data = tempfile.mkdtemp(prefix="kalimambo-bench-")
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
        tokens = {n: api.call("POST", "/join", {"name": n})[1]["token"] for n in NAMES[:seats]}
        host = api.call("POST", "/host", {"pin": "1234"})[1]["token"]
        api.call("POST", "/host/settings", {"pause_ms": 100}, token=host)  # short playbacks
        streams = Streams(port, clients)
        streams.open_all()
        per_client: list[float] = []
        all_clients: list[float] = []
        phones = {n: Api(port) for n in tokens}
        for game in range(games):
            if game:
                api.call("POST", "/host/new", {"keep_seats": True}, token=host)
            api.call("POST", "/host/start", {}, token=host)
            for round_no in range(1, 13):
                for name in list(tokens)[:-1]:
                    hand = phones[name].call("GET", "/me", token=tokens[name])[1]["me"]["hand"]
                    phones[name].call("POST", "/pick", {"round": round_no, "card": hand[0]},
                                      token=tokens[name])
                last = list(tokens)[-1]
                hand = phones[last].call("GET", "/me", token=tokens[last])[1]["me"]["hand"]
                marker = b'{"type":"reveal","round":%d,' % round_no
                streams.expect(marker)
                streams.round = round_no
                began = time.perf_counter()
                phones[last].call("POST", "/pick", {"round": round_no, "card": hand[0]},
                                  token=tokens[last])
                arrivals = streams.wait(marker)
                while api.call("GET", "/state")[1]["phase"] == "playing":
                    time.sleep(0.02)  # the playback runs on the table's clock
                per_client += [(t - began) * 1000 for t in arrivals]
                all_clients.append((max(arrivals) - began) * 1000)
        worker = children(proc.pid)
        rss_worker = sum(rss_kb(pid) for pid in worker)
        rss_master = rss_kb(proc.pid)
        reconnect = streams.drop_and_reconnect()
        streams.close()
        message_sizes = [size for _, size in streams.sizes]
        round_12 = [size for r, size in streams.sizes if r == 12]
        return {
            "clients": clients, "seats": seats, "rounds": len(all_clients),
            "message_bytes_mean": round(statistics.mean(message_sizes), 1),
            "message_bytes_max": max(message_sizes),
            "message_bytes_max_round_12": max(round_12),
            "reveal_ms_median": round(statistics.median(per_client), 2),
            "reveal_ms_p99": round(percentile(per_client, 0.99), 2),
            "all_clients_ms_median": round(statistics.median(all_clients), 2),
            "all_clients_ms_p99": round(percentile(all_clients, 0.99), 2),
            "all_clients_ms_max": round(max(all_clients), 2),
            "rss_worker_mb": round(rss_worker / 1024, 1),
            "rss_master_mb": round(rss_master / 1024, 1),
            "rss_total_mb": round((rss_worker + rss_master) / 1024, 1),
            "reconnect_storm_ms": round(reconnect * 1000, 1),
        }
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sse", description=__doc__)
    parser.add_argument("--clients", type=int, default=60)
    parser.add_argument("--seats", type=int, default=7)
    parser.add_argument("--games", type=int, default=3, help="games of 12 rounds each")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args(argv)
    figures = run(args.clients, args.seats, args.games)
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"{figures['clients']} event streams, {figures['seats']} seats, "
          f"{figures['rounds']} rounds")
    print(f"last pick -> reveal at a client: median {figures['reveal_ms_median']} ms, "
          f"p99 {figures['reveal_ms_p99']} ms (goal p99 <= 20 ms)")
    print(f"bytes per message after the first view: mean {figures['message_bytes_mean']}, "
          f"max {figures['message_bytes_max']}, max in round 12 "
          f"{figures['message_bytes_max_round_12']} (goal <= 2048)")
    print(f"last pick -> reveal at all clients: median {figures['all_clients_ms_median']} ms, "
          f"p99 {figures['all_clients_ms_p99']} ms, max {figures['all_clients_ms_max']} ms")
    print(f"server RSS: worker {figures['rss_worker_mb']} MB + master "
          f"{figures['rss_master_mb']} MB = {figures['rss_total_mb']} MB (goal <= 80 MB)")
    print(f"all {figures['clients']} streams dropped and reopened at once: served again in "
          f"{figures['reconnect_storm_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
