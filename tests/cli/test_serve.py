"""``kalimambo serve`` as a real process: options, many event streams, simultaneous picks."""

from __future__ import annotations

import copy
import json
import resource
import socket
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from kalimambo.engine.rules import CARD_VALUES
from kalimambo.firmware.wire import apply_patch as apply
from kalimambo.web.http import limits
from tests.helpers import NAMES, assert_refused, kalimambo


def serve(*args: str) -> subprocess.CompletedProcess[str]:
    return kalimambo("serve", *args)


@pytest.mark.parametrize(("args", "words"), [
    (("--strip", "neon"), "--strip"),
    (("--port", "eighty"), "--port"),
    (("--port", "70000"), "--port"),
    (("--host-pin", "1 2"), "--host-pin"),
    (("--config", "/nonexistent/board.toml"), "not found"),
])
def test_bad_options_end_in_one_line_and_status_2(tmp_path: Path, args: tuple[str, ...],
                                                  words: str) -> None:
    assert_refused(serve("--data-dir", str(tmp_path / "d"), *args), words)


def test_a_broken_board_file_names_the_key(tmp_path: Path) -> None:
    board = tmp_path / "board.toml"
    board.write_text("[track]\nspaces = -4\n")
    assert_refused(serve("--config", str(board), "--data-dir", str(tmp_path / "d")), "spaces")
    broken = tmp_path / "broken.toml"
    broken.write_text("[track\n")
    assert_refused(serve("--config", str(broken), "--data-dir", str(tmp_path / "d")))


def test_a_broken_or_missing_hotspot_file_is_refused(tmp_path: Path) -> None:
    hotspot = tmp_path / "hotspot.toml"
    hotspot.write_text('name = "Booth"\npassword = "short"\n')
    data = ("--data-dir", str(tmp_path / "d"))
    assert_refused(serve("--hotspot-file", str(hotspot), *data), "8 to 63")
    assert_refused(serve("--hotspot-file", str(tmp_path / "none.toml"), *data),
                   "no file")
    assert not (tmp_path / "d").exists()  # refused before the data dir is touched


def test_a_broken_or_missing_table_file_is_refused(tmp_path: Path) -> None:
    table = tmp_path / "table.toml"
    table.write_text('name = "kalimambo-abcd"\nlanguage = "nl"\n')
    data = ("--data-dir", str(tmp_path / "d"))
    assert_refused(serve("--table-file", str(table), *data), "language is one of en")
    assert_refused(serve("--table-file", str(tmp_path / "none.toml"), *data), "no file")
    assert not (tmp_path / "d").exists()


def test_a_port_in_use_is_refused_at_once(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        port = sock.getsockname()[1]
        result = serve("--host", "127.0.0.1", "--port", str(port),
                       "--data-dir", str(tmp_path / "d"))
    assert result.returncode == 2 and "in use" in result.stderr


def test_server_prints_url_and_pin_and_gives_lan_join_url(server: Any, http: Any) -> None:
    log = server.log.read_text()
    assert "Host PIN: 1234" in log and "host#key=" in log
    status, view = http("GET", f"{server.url}/api/v1/state")
    assert status == 200
    assert view["join_url"].startswith("http://")
    assert "localhost" not in view["join_url"] and "127.0.0.1" not in view["join_url"]
    assert f"phones open {view['join_url']}" in log
    assert len(server.worker_pids()) == 1


class SseClient:
    """A raw-socket event stream reader (no buffering surprises): the whole view first,
    then patches applied to it."""

    def __init__(self, port: int, token: str | None = None, source: str = "127.0.0.1"
                 ) -> None:
        path = "/api/v1/events?patches=1" + (f"&token={token}" if token else "")
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=20,
                                             source_address=(source, 0))
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\n\r\n".encode())
        self.buffer = b""
        self.view: dict[str, Any] = {}

    def next_view(self) -> dict[str, Any]:
        while True:
            while b"\n\n" not in self.buffer.split(b"\r\n\r\n", 1)[-1] or \
                    b"data: " not in self.buffer:
                chunk = self.sock.recv(65536)
                if not chunk:
                    raise ConnectionError("stream closed")
                self.buffer += chunk
            start = self.buffer.index(b"data: ") + 6
            end = self.buffer.index(b"\n", start)
            line = self.buffer[start:end]
            patch = b"event: patch" in self.buffer[:start]
            self.buffer = self.buffer[end + 1:]
            data = json.loads(line.split(b"\r\n")[0])
            self.view = apply(self.view, data["patch"]) if patch else data
            return copy.deepcopy(self.view)

    def close(self) -> None:
        self.sock.close()


def test_sixty_streams_get_the_snapshot_at_once_and_every_reveal(
        server: Any, http: Any) -> None:
    tokens = {n: http("POST", f"{server.url}/api/v1/join", {"name": n})[1]["token"]
              for n in NAMES}
    host = http("POST", f"{server.url}/api/v1/host", {"pin": server.pin})[1]["token"]
    # 60 screens from 8 addresses (at most 16 streams per address: docs/LIMITS.md)
    clients = [SseClient(server.port, source=f"127.0.0.{2 + i % 8}") for i in range(60)]
    try:
        firsts = [c.next_view() for c in clients]
        assert all(v["phase"] == "lobby" and len(v["seats"]) == 7 for v in firsts)
        assert http("POST", f"{server.url}/api/v1/host/start", {}, token=host)[0] == 200
        # Views may come in between (the lights process reporting in): read on to the start.
        for client in clients:
            while client.next_view()["phase"] == "lobby":
                pass
        for round_no in (1, 2):
            barrier = threading.Barrier(len(NAMES))
            answers: list[tuple[int, Any]] = []

            def pick(name: str, card: int, round_no: int = round_no,
                     barrier: Any = barrier, answers: list[Any] = answers) -> None:
                barrier.wait()
                answers.append(http("POST", f"{server.url}/api/v1/pick",
                                    {"round": round_no, "card": card}, token=tokens[name]))

            threads = [threading.Thread(target=pick, args=(n, (i + round_no) % 12))
                       for i, n in enumerate(NAMES)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(30)
            assert [status for status, _ in answers] == [200] * 7
            assert sum(body["resolved"] for _, body in answers) == 1
            http("POST", f"{server.url}/api/v1/host/skip", {}, token=host)
            for client in clients:
                view = client.next_view()
                while view["round"] == round_no:
                    assert view["last_round"] is None or view["last_round"]["round"] < round_no
                    view = client.next_view()
                assert view["last_round"]["round"] == round_no
                assert view["last_round"]["cards"] == {
                    n: (i + round_no) % CARD_VALUES for i, n in enumerate(NAMES)}
        _, record = http("GET", f"{server.url}/api/v1/record")
        assert len(record["rounds"]) == 2
    finally:
        for client in clients:
            client.close()


def test_a_seat_stream_marks_it_connected(server: Any, http: Any) -> None:
    token = http("POST", f"{server.url}/api/v1/join", {"name": "Ana"})[1]["token"]
    watcher = SseClient(server.port)
    assert watcher.next_view()["seats"][0]["connected"] is False
    phone = SseClient(server.port, token)
    phone.next_view()
    # Other views may come first (the lights process reporting in): read on until the
    # seat shows connected; a stream that never says so ends in the socket's timeout.
    while not watcher.next_view()["seats"][0]["connected"]:
        pass
    phone.close()
    watcher.close()


def test_bots_think_in_the_background_and_keep_up(server: Any, http: Any) -> None:
    """Under gevent the bots' search runs in native threads; the game still flows."""
    tokens = {n: http("POST", f"{server.url}/api/v1/join", {"name": n})[1]["token"]
              for n in NAMES[:2]}
    host = http("POST", f"{server.url}/api/v1/host", {"pin": server.pin})[1]["token"]
    status, body = http("POST", f"{server.url}/api/v1/host/bots",
                        {"count": 2, "level": "medium"}, token=host)
    assert status == 201 and len(body["names"]) == 2
    http("POST", f"{server.url}/api/v1/host/settings", {"pause_ms": 100}, token=host)
    watcher = SseClient(server.port)
    try:
        watcher.next_view()
        assert http("POST", f"{server.url}/api/v1/host/start", {}, token=host)[0] == 200
        for round_no in range(1, 13):
            for i, name in enumerate(tokens):
                status, _ = http("POST", f"{server.url}/api/v1/pick",
                                 {"round": round_no, "card": (round_no + 5 * i) % 12},
                                 token=tokens[name])
                assert status == 200
            view = watcher.next_view()
            while not (view["history"] and view["history"][-1]["round"] == round_no):
                view = watcher.next_view()
        assert view["phase"] == "finished"
    finally:
        watcher.close()
    # seconds after the worker booted: nothing it started (the boot heartbeat's thread
    # ending under gevent, the bots' threads) left a traceback on the console
    assert "Traceback" not in server.log.read_text(errors="replace")


def test_no_control_socket_is_opened(start_server: Any, tmp_path: Path) -> None:
    """gunicorn 25.1+ opens a control socket in $XDG_RUNTIME_DIR or $HOME/.gunicorn unless
    told not to: the table has nothing to steer from outside (and on a Pi the service
    user's home is not writable)."""
    home, runtime = tmp_path / "home", tmp_path / "runtime"
    home.mkdir()
    runtime.mkdir()
    server = start_server(env={"HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)})
    assert server.state()["phase"] == "lobby"
    assert list(home.iterdir()) == [] and list(runtime.iterdir()) == []


def test_the_table_makes_room_for_the_doors_connections(start_server: Any) -> None:
    """Started with the 1024 open files most systems give (the door lets in 960
    connections, a file each), the table raises its limit to ``OPEN_FILES`` for the
    worker that holds them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < limits.OPEN_FILES:
        pytest.skip(f"this machine allows only {hard} open files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    try:
        server = start_server()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert server.proc is not None
    children = Path(f"/proc/{server.proc.pid}/task/{server.proc.pid}/children")
    workers = children.read_text().split()
    assert workers, "no worker under the server"
    for pid in (server.proc.pid, *map(int, workers)):
        line = next(row for row in Path(f"/proc/{pid}/limits").read_text().splitlines()
                    if row.startswith("Max open files"))
        assert int(line.split()[3]) == limits.OPEN_FILES, line
    assert server.state()["phase"] == "lobby"
