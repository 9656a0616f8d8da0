"""Issue 11's attacks replayed against a real ``kalimambo serve`` (gunicorn + gevent).

Only on 127.0.0.x, bounded in count and time.  Each test prints the figures it saw
(``pytest -s tests/test_attacks.py`` shows them); pass or fail never depends on a
time measurement, only on answers.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web import limits
from tests.conftest import ROOT, ServerProcess, http
from tests.helpers import assert_refused, free_port, kalimambo


def timed_state(url: str) -> tuple[int, float]:
    start = time.monotonic()
    status, _ = http("GET", f"{url}/api/v1/state", timeout=30)
    return status, time.monotonic() - start


def connect(port: int, source: str) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=30,
                                    source_address=(source, 0))


def read_status(sock: socket.socket) -> int:
    """The status code of the answer on ``sock`` (0 if closed without one)."""
    data = b""
    while b"\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return 0
        data += chunk
    return int(data.split(b" ", 2)[1])


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# -- finding 1: event streams and half-sent bodies -----------------------------------------
def test_a_flood_of_event_streams_leaves_the_table_answering(server: Any) -> None:
    opened: list[socket.socket] = []
    statuses: list[int] = []
    try:
        for _ in range(400):  # 400 from one address, then 25 addresses x 16 more
            sock = connect(server.port, "127.0.0.2")
            sock.sendall(b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
            opened.append(sock)
        statuses = [read_status(sock) for sock in opened]
        held = statuses.count(200)
        assert held == limits.STREAMS_PER_ADDRESS
        assert statuses.count(429) == 400 - held
        more = []
        for n in range(25):
            for _ in range(limits.STREAMS_PER_ADDRESS):
                sock = connect(server.port, f"127.0.1.{n + 1}")
                sock.sendall(b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
                opened.append(sock)
                more.append(sock)
        more_statuses = [read_status(sock) for sock in more]
        total_held = held + more_statuses.count(200)
        assert total_held == limits.STREAMS_TOTAL
        assert more_statuses.count(503) == len(more) - (total_held - held)
        status, seconds = timed_state(server.url)
        assert status == 200
        pid = server.worker_pids()[0]
        print(f"\nstreams: {len(opened)} asked, {total_held} held; /state answered in "
              f"{seconds * 1000:.0f} ms; worker RSS {rss_kb(pid) // 1024} MB")
    finally:
        for sock in opened:
            sock.close()


def test_half_sent_bodies_are_cut_off_and_the_table_keeps_answering(server: Any) -> None:
    opened: list[socket.socket] = []
    try:
        for _ in range(300):
            sock = connect(server.port, "127.0.0.3")
            sock.sendall(b"POST /api/v1/join HTTP/1.1\r\nHost: x\r\n"
                         b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
            opened.append(sock)
        status, seconds = timed_state(server.url)
        assert status == 200
        statuses = [read_status(sock) for sock in opened]  # the held ones wait the deadline
        assert statuses.count(408) == limits.REQUESTS_PER_ADDRESS
        assert statuses.count(429) == 300 - limits.REQUESTS_PER_ADDRESS
        assert http("GET", f"{server.url}/api/v1/state")[1]["seats"] == []
        print(f"\nhalf-sent bodies: 300 sent, {statuses.count(408)} held until the "
              f"{limits.BODY_SECONDS:g} s deadline (408), the rest 429 at once; /state "
              f"answered in {seconds * 1000:.0f} ms meanwhile")
    finally:
        for sock in opened:
            sock.close()


# -- finding 12: chunked bodies over 4 KB, and 9 through the real server --------------------
def chunked_post(port: int, path: str, payload: bytes) -> tuple[int, bytes]:
    with connect(port, "127.0.0.4") as sock:
        head = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n").encode()
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(payload[i:i + 1000]), payload[i:i + 1000])
                          for i in range(0, len(payload), 1000))
        sock.sendall(head + chunks + b"0\r\n\r\n")
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return int(data.split(b" ", 2)[1]), data.split(b"\r\n\r\n", 1)[1]


def test_chunked_bodies_over_the_limit_are_413(server: Any) -> None:
    name = b'{"name": "Ana", "pad": "' + b"x" * 5000 + b'"}'
    status, body = chunked_post(server.port, "/api/v1/join", name)
    assert status == 413 and b'"too_large"' in body
    status, body = chunked_post(server.port, "/api/v1/join", b'{"name": "Ana"}')
    assert status == 201, body
    deep = b'{"name": ' + b"[" * 1000 + b"]" * 1000 + b"}"
    status, body = chunked_post(server.port, "/api/v1/join", deep)
    assert status == 400 and b'"error"' in body


# -- finding 2: PIN guessing from many addresses ----------------------------------------------
def test_pin_guessers_on_many_addresses_never_lock_out_the_host(server: Any) -> None:
    statuses = []
    for i in range(120):  # 120 addresses, 2 wrong PINs each
        for guess in range(2):
            statuses.append(_login_from(server.port, f"127.0.2.{i + 1}",
                                        {"pin": f"9{i:02d}{guess}"}))
    assert set(statuses) <= {403, 429} and statuses.count(403) <= 30
    key = server.host_key()  # from the console line, as the host reads it
    assert _login_from(server.port, "127.0.3.1", {"key": key}) == 200
    assert _login_from(server.port, "127.0.0.1", {"key": key}) == 200
    assert _login_from(server.port, "127.0.0.1", {}) == 400  # the own screen is no host
    print(f"\nPIN guessing: {len(statuses)} wrong PINs from 120 addresses, "
          f"{statuses.count(403)} checked, {statuses.count(429)} braked; the host key "
          "still logs in")


def _login_from(port: int, source: str, body: dict[str, Any]) -> int:
    import json

    payload = json.dumps(body).encode()
    with connect(port, source) as sock:
        sock.sendall(b"POST /api/v1/host HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                     b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                     % (len(payload), payload))
        return read_status(sock)


# -- finding 7: hints ---------------------------------------------------------------------
def test_a_flood_of_hints_from_one_seat_leaves_state_answering(start_server: Any) -> None:
    server = start_server()
    url = server.url
    tokens = [http("POST", f"{url}/api/v1/join", {"name": n})[1]["token"]
              for n in ("Ana", "Ben", "Caro")]
    host = http("POST", f"{url}/api/v1/host", {"pin": server.pin})[1]["token"]
    http("POST", f"{url}/api/v1/host/settings", {"hints": True}, token=host)
    assert http("POST", f"{url}/api/v1/host/start", {}, token=host)[0] == 200
    answers: list[int] = []
    worst = [0.0]

    def ask() -> None:  # the hostile phone, on its own address
        with connect(server.port, "127.0.0.5") as sock:
            sock.sendall(f"GET /api/v1/hint HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                         f"Authorization: Bearer {tokens[0]}\r\n\r\n".encode())
            answers.append(read_status(sock))

    threads = [threading.Thread(target=ask) for _ in range(100)]
    for thread in threads:
        thread.start()
    states = []
    while any(t.is_alive() for t in threads):
        status, seconds = timed_state(url)
        states.append(status)
        worst[0] = max(worst[0], seconds)
    for thread in threads:
        thread.join(60)
    assert set(answers) <= {200, 429} and 200 in answers
    assert states and set(states) == {200}
    print(f"\nhints: 100 at once from one seat: {answers.count(200)} answered, "
          f"{answers.count(429)} refused; /state {len(states)} times, worst "
          f"{worst[0] * 1000:.0f} ms")


# -- finding 4: two servers on one data dir --------------------------------------------------
def test_a_second_server_on_the_same_data_dir_exits_2(server: Any, tmp_path: Path) -> None:
    done = serve_once(server.data_dir)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(server.data_dir) in lines[0]
    assert f"pid {server.proc.pid}" in lines[0]
    assert http("POST", f"{server.url}/api/v1/join", {"name": "Ana"})[0] == 201


# -- finding 5: broken stores --------------------------------------------------------------
def serve_once(data_dir: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return kalimambo("serve", "--host", "127.0.0.1", "--port", str(free_port()),
                     "--data-dir", str(data_dir), "--strip", "sim", *extra)


def make_store(data_dir: Path) -> Path:
    from kalimambo.web.app import create_app

    app = create_app({"DATA_DIR": str(data_dir), "HOST_PIN": "1234", "RUNNER": "inline"})
    client = app.test_client()
    for name in ("Ana", "Ben", "Caro"):
        client.post("/api/v1/join", json={"name": name})
    token = client.post("/api/v1/host", json={"pin": "1234"}).json["token"]
    client.post("/api/v1/host/start", headers={"Authorization": f"Bearer {token}"})
    app.extensions["kalimambo"].close()
    return data_dir / "kalimambo.sqlite3"


def _sql(path: Path, statement: str) -> None:
    db = sqlite3.connect(path)
    db.execute(statement)
    db.commit()
    db.close()


BREAKAGES = {
    "truncated": lambda p: p.write_bytes(p.read_bytes()[:1500]),
    "random bytes": lambda p: p.write_bytes(os.urandom(8192)),
    "damaged header": lambda p: p.write_bytes(b"\x00" * 100 + p.read_bytes()[100:]),
    "a directory": lambda p: (p.unlink(), p.mkdir()),
    "bad setting": lambda p: _sql(p, "UPDATE settings SET value = '{oops' "
                                     "WHERE key = 'restarts'"),
    "bad setup": lambda p: _sql(p, "UPDATE games SET setup = '[1,' WHERE started IS NOT NULL"),
    "wrong setup": lambda p: _sql(p, "UPDATE games SET setup = '{\"rhino\": 1}' "
                                     "WHERE started IS NOT NULL"),
}


@pytest.mark.parametrize("pin", [(), ("--host-pin", "1234")], ids=["no pin", "pin"])
@pytest.mark.parametrize("breakage", list(BREAKAGES))
def test_a_broken_store_is_one_line_and_exit_2(tmp_path: Path, breakage: str,
                                               pin: tuple[str, ...]) -> None:
    path = make_store(tmp_path / "data")
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    BREAKAGES[breakage](path)
    done = serve_once(tmp_path / "data", *pin)
    assert_refused(done, str(path))


@contextlib.contextmanager
def tmpfs(where: Path, size: str) -> Iterator[Path]:
    """A real filesystem of fixed size (root only)."""
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def test_a_read_only_store_is_one_line_and_exit_2(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", "4m") as mount:
        make_store(mount / "data")
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        for pin in ((), ("--host-pin", "1234")):
            done = serve_once(mount / "data", *pin)
            assert_refused(done, str(mount / "data"))


# -- finding 12: a full disk -------------------------------------------------------------------
def fill(directory: Path) -> Path:
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
    finally:
        os.close(fd)
    return filler


@pytest.fixture
def servers() -> Iterator[list[ServerProcess]]:
    started: list[ServerProcess] = []
    yield started
    for server in started:
        server.kill()


@pytest.mark.slow
def test_a_full_disk_refuses_with_507_and_loses_nothing(servers: list[ServerProcess],
                                                         tmp_path: Path) -> None:
    with tmpfs(tmp_path / "small", "8m") as mount:
        server = ServerProcess(mount / "data")
        server.log = tmp_path / "server.log"  # the log must not need the full disk
        servers.append(server.start())
        url = server.url
        tokens = {n: http("POST", f"{url}/api/v1/join", {"name": n})[1]["token"]
                  for n in ("Ana", "Ben", "Caro")}
        host = http("POST", f"{url}/api/v1/host", {"pin": server.pin})[1]["token"]
        assert http("POST", f"{url}/api/v1/host/start", {}, token=host)[0] == 200
        hands = {n: http("GET", f"{url}/api/v1/me", token=t)[1]["me"]["hand"]
                 for n, t in tokens.items()}
        assert http("POST", f"{url}/api/v1/pick", {"round": 1, "card": hands["Ana"][0]},
                    token=tokens["Ana"])[0] == 200  # acknowledged before the disk fills
        filler = fill(mount)
        status, body = 0, None
        for i in range(400):  # the WAL grows until the disk refuses a page
            status, body = http("POST", f"{url}/api/v1/pick",
                                {"round": 1, "card": hands["Ben"][i % 2]},
                                token=tokens["Ben"])
            if status != 200:
                break
        assert status == 507 and body["error"]["code"] == "storage_full", body
        view = http("GET", f"{url}/api/v1/state")[1]
        assert view["storage"]["ok"] is False and view["storage"]["error"]
        assert http("POST", f"{url}/api/v1/join", {"name": "Dan"})[0] == 409  # started
        filler.unlink()
        status, _ = http("POST", f"{url}/api/v1/pick", {"round": 1, "card": hands["Ben"][0]},
                         token=tokens["Ben"])
        assert status == 200
        assert http("GET", f"{url}/api/v1/state")[1]["storage"]["ok"] is True
        server.kill()
        again = ServerProcess(mount / "data")
        again.log = tmp_path / "again.log"
        servers.append(again.start())
        me = http("GET", f"{again.url}/api/v1/me", token=tokens["Ana"])[1]["me"]
        assert me["pick"] == hands["Ana"][0]
        print(f"\nfull disk: the pick got {status} after the refusal; "
              "Ana's acknowledged pick survived the restart")


# -- finding 6: board files --------------------------------------------------------------
BOARDS = {
    "gamma nan": "[strip]\ngamma = nan\n",
    "max_brightness nan": "[strip]\nmax_brightness = nan\n",
    "supply_ma inf": "[power]\nsupply_ma = inf\n",
    "ma_per_led nan": "[power]\nma_per_led = nan\n",
    "undo_hold_s nan": "[buttons]\nundo_hold_s = nan\n",
    "deep": "a = " + "[" * 20000 + "]" * 20000 + "\n",
}


@pytest.mark.parametrize("case", [*BOARDS, "binary"])
@pytest.mark.parametrize("command", ["serve", "leds"])
def test_a_bad_board_file_is_one_line_naming_it(tmp_path: Path, case: str,
                                                command: str) -> None:
    board = tmp_path / "board.toml"
    if case == "binary":
        board.write_bytes(bytes(range(256)) * 8)
    else:
        board.write_text(BOARDS[case])
    if command == "serve":
        done = serve_once(tmp_path / "data", "--config", str(board))
    else:
        done = kalimambo("leds", "--config", str(board), "--strip", "sim", "test")
    assert_refused(done, str(board))


# -- finding 10: replay --------------------------------------------------------------------
MEASURE = """
import os, subprocess, sys, time
with open("/dev/zero", "rb") as zero:
    start = time.monotonic()
    proc = subprocess.Popen(sys.argv[1:], stdin=zero, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss, time.monotonic() - start)
sys.stderr.write(err)
"""


@pytest.mark.parametrize("jsonl", [False, True])
def test_replay_of_endless_input_stops_early_and_small(jsonl: bool) -> None:
    """``replay - < /dev/zero``, measured by a small parent (pytest's own size would
    count in the child's peak before its exec)."""
    command = [sys.executable, "-m", "kalimambo", "replay", "-", *(["--jsonl"] if jsonl
                                                                    else [])]
    done = subprocess.run([sys.executable, "-c", MEASURE, *command], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    code, peak_kb, seconds = done.stdout.split()
    assert int(code) == 2, done.stderr
    assert "standard input" in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert int(peak_kb) < 100 * 1024
    print(f"\nreplay {'--jsonl ' if jsonl else ''}- < /dev/zero: exit 2 after "
          f"{float(seconds):.2f} s, peak RSS {int(peak_kb) // 1024} MB")


def test_replay_refuses_a_huge_record_before_parsing(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    rounds = ",".join('{"cards": {"A": 1, "B": 2, "C": 3}, "kali": 4}' for _ in range(60000))
    big.write_text('{"format": "kalimambo-record/1", "rounds": [' + rounds + "]}")
    done = kalimambo("replay", str(big))
    assert done.returncode == 2 and str(big) in done.stderr and "bigger than" in done.stderr
