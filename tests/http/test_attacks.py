"""Issue 11's attacks, and issue 22's floods, replayed against a real ``kalimambo serve``
(gunicorn + gevent, started as the README's first command starts it).

Only on 127.0.0.x and 127.0.x.y, bounded in count and time; every attacker has its own
address, never the 127.0.0.1 the other requests come from (a per-address limit must
hold the attacker back, not the table).  Each test prints the figures it saw
(``pytest -s tests/http/test_attacks.py`` shows them).  Pass or fail depends on answers: who
got in and who was refused by whom (``too_many_connections`` is the door's refusal,
made before a byte of the request was read: ``kalimambo.web.http.door``), and on time only
as generous ceilings (a socket timeout of ``PATIENCE_S`` for a request that a flood
held back for 5 to 19 s before the door).

The floods (marked ``installed``) also run against a table as ``setup.sh`` installed it:
with ``KALIMAMBO_INSTALLED_TABLE=PORT`` and ``KALIMAMBO_INSTALLED_KEY=<host key>`` they
attack that table on 127.0.0.1 (tests/pi/run-emulated does it inside the booted Pi, as
root beside the services), reset to an empty lobby before each test; every other test
here needs a server of its own and says so.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.attacks import request_bytes
from kalimambo.web.http import limits
from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.storage.store import DB_NAME, KEPT_IN_MEMORY, SettingKey
from tests.conftest import ROOT, ServerProcess, http
from tests.helpers import assert_refused, child_pids, free_port, kalimambo, runs

PATIENCE_S = 5.0
"""How long a request from another address may take during a flood before the test says
the flood held it back (before the door: 5 s behind a stream flood, 19 s behind a
pipelined one; with it tens of milliseconds on a busy machine)."""
STREAM = b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n"
HALF_BODY = (b"POST /api/v1/join HTTP/1.1\r\nHost: x\r\n"
             b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{")


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


def read_answer(sock: socket.socket) -> tuple[int, str]:
    """``(status, error code)`` of the answer on ``sock``: the code is ``""`` for a 2xx
    (a stream's head is read, not the stream), ``(0, "")`` if closed without an answer."""
    data = b""
    with contextlib.suppress(ConnectionResetError):
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
        if data and not data.startswith(b"HTTP/1.1 2"):
            while b"}}" not in data and (chunk := sock.recv(4096)):
                data += chunk
    if not data:
        return 0, ""
    status = int(data.split(b" ", 2)[1])
    if status < 300:
        return status, ""
    body = json.loads(data.split(b"\r\n\r\n", 1)[1])
    return status, str(body["error"]["code"])


def closed_by_server(sock: socket.socket, within: float = 3.0) -> bool:
    """Whether the server ends the connection (after its answer) within ``within`` s;
    gunicorn's keep-alive alone would keep it 5 s."""
    sock.settimeout(within)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except OSError:
        return True
    return True


def send_request(port: int, source: str, method: str, path: str, body: Any = None,
                 token: str | None = None) -> tuple[int, Any]:
    """One request on a new connection from ``source``: ``(status, parsed body)``."""
    with connect(port, source) as sock:
        sock.settimeout(PATIENCE_S)
        sock.sendall(request_bytes(method, path, body, token))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1]), json.loads(data.split(b"\r\n\r\n", 1)[1])


def idle_connections(port: int, source: str, count: int) -> list[socket.socket]:
    """``count`` connections from ``source`` that send nothing (gunicorn drops them after
    its 5 s keep-alive: the tests that use them are done well before)."""
    return [connect(port, source) for _ in range(count)]


def tally(answers: list[tuple[int, str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for status, code in answers:
        key = f"{status} {code}".strip()
        counts[key] = counts.get(key, 0) + 1
    return counts


class InstalledTable:
    """The table a service runs (``KALIMAMBO_INSTALLED_TABLE``), as the tests' ``server``:
    the same port, url, host key and worker, emptied to a lobby for each test."""

    def __init__(self, port: int, key: str) -> None:
        self.port = port
        self.key = key

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def host_key(self) -> str:
        return self.key

    def worker_pids(self) -> list[int]:
        main = subprocess.run(["systemctl", "show", "-p", "MainPID", "--value",
                               "kalimambo.service"], capture_output=True, text=True,
                              check=True).stdout.strip()
        return [pid for pid in child_pids(int(main)) if runs(pid, "serve")]

    def reset(self) -> InstalledTable:
        """An empty lobby without hints, after the door has let go of the last test."""
        time.sleep(limits.REFUSED_HOLD_SECONDS + 0.5)
        status, body = http("POST", f"{self.url}/api/v1/host", {"key": self.key})
        assert status == 200, body
        token = body["token"]
        for path, payload in (("/host/new", {"keep_seats": False}),
                              ("/host/settings", {"hints": False})):
            status, body = http("POST", f"{self.url}/api/v1{path}", payload, token)
            assert status == 200, (path, body)
        assert http("GET", f"{self.url}/api/v1/state")[1]["seats"] == []
        return self


INSTALLED = os.environ.get("KALIMAMBO_INSTALLED_TABLE")
installed = pytest.mark.installed


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Any:
    """A fresh ``kalimambo serve`` (as the README's first command starts it), or the
    installed table with ``KALIMAMBO_INSTALLED_TABLE`` (for the tests marked installed)."""
    if not INSTALLED:
        return request.getfixturevalue("start_server")()
    if request.node.get_closest_marker("installed") is None:
        pytest.skip("needs a kalimambo serve of its own, not the installed table")
    return InstalledTable(int(INSTALLED), os.environ["KALIMAMBO_INSTALLED_KEY"]).reset()


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


@pytest.fixture
def many_files() -> None:
    """Room for a thousand sockets in this process (the soft limit is often 1024)."""
    if not limits.raise_open_files(4096):
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        pytest.skip(f"this process may open only {hard} files")


# -- finding 1: event streams and half-sent bodies -----------------------------------------
@installed
def test_a_flood_of_event_streams_leaves_the_table_answering(server: Any) -> None:
    opened: list[socket.socket] = []
    try:
        for _ in range(400):  # 400 from one address, then 25 addresses x 16 more
            sock = connect(server.port, "127.0.0.2")
            sock.sendall(STREAM)
            opened.append(sock)
        answers = [read_answer(sock) for sock in opened]
        held = answers.count((200, ""))
        assert held == limits.STREAMS_PER_ADDRESS
        door = answers.count((429, "too_many_connections"))
        guard = answers.count((429, "too_many_streams"))
        assert door + guard == 400 - held, tally(answers)
        # The door keeps the places of the guard's refusals for a while: the guard pays
        # for one address's flood at most once per place.
        assert guard <= limits.CONNECTIONS_PER_ADDRESS - limits.STREAMS_PER_ADDRESS
        refused = next(sock for sock, answer in zip(opened, answers, strict=True)
                       if answer == (429, "too_many_streams"))
        assert closed_by_server(refused)  # a refusal holds nothing
        more = []
        for n in range(25):
            for _ in range(limits.STREAMS_PER_ADDRESS):
                sock = connect(server.port, f"127.0.1.{n + 1}")
                sock.sendall(STREAM)
                opened.append(sock)
                more.append(sock)
        more_answers = [read_answer(sock) for sock in more]
        total_held = held + more_answers.count((200, ""))
        # 256 in all: the first 15 addresses fill them; each of the other 10 still gets
        # the one stream an address without any may always open.
        late = 25 - (limits.STREAMS_TOTAL - held) // limits.STREAMS_PER_ADDRESS
        assert total_held == limits.STREAMS_TOTAL + late * limits.STREAMS_FEW
        assert more_answers.count((503, "too_many_streams")) == len(more) - (total_held
                                                                            - held)
        status, seconds = timed_state(server.url)
        assert status == 200
        newcomer = connect(server.port, "127.0.0.8")
        opened.append(newcomer)
        newcomer.sendall(STREAM)
        assert read_answer(newcomer) == (200, "")  # a new phone gets its live view
        pid = server.worker_pids()[0]
        print(f"\nstreams: {len(opened)} asked, {total_held + 1} held, from the first "
              f"address {door} refused by the door and {guard} by the guard; /state "
              f"answered in {seconds * 1000:.0f} ms; worker RSS {rss_kb(pid) // 1024} MB")
    finally:
        for sock in opened:
            sock.close()


@installed
def test_half_sent_bodies_are_cut_off_and_the_table_keeps_answering(server: Any) -> None:
    opened: list[socket.socket] = []
    try:
        for _ in range(300):
            sock = connect(server.port, "127.0.0.3")
            sock.sendall(HALF_BODY)
            opened.append(sock)
        status, seconds = timed_state(server.url)
        assert status == 200
        joined = send_request(server.port, "127.0.0.4", "POST", "/api/v1/join",
                              {"name": "Ana"})
        assert joined[0] == 201  # a phone of its own joins meanwhile
        answers = [read_answer(sock) for sock in opened]  # the held ones wait the deadline
        assert answers.count((408, "too_slow")) == limits.REQUESTS_PER_ADDRESS
        door = answers.count((429, "too_many_connections"))
        guard = answers.count((429, "too_many_requests"))
        assert door + guard == 300 - limits.REQUESTS_PER_ADDRESS, tally(answers)
        assert guard <= limits.CONNECTIONS_PER_ADDRESS - limits.REQUESTS_PER_ADDRESS
        assert [seat["name"] for seat in http("GET", f"{server.url}/api/v1/state")[1]
                ["seats"]] == ["Ana"]
        print(f"\nhalf-sent bodies: 300 sent, {limits.REQUESTS_PER_ADDRESS} held until "
              f"the {limits.BODY_SECONDS:g} s deadline (408), {door} refused by the door "
              f"and {guard} by the guard at once; /state answered in "
              f"{seconds * 1000:.0f} ms meanwhile")
    finally:
        for sock in opened:
            sock.close()


@installed
def test_slow_bodies_from_many_addresses_never_refuse_a_new_phones_join(server: Any
                                                                         ) -> None:
    """More slow bodies than ``BODIES_TOTAL`` from 20 addresses: a new phone still joins
    (an address reading fewer than ``BODIES_FEW`` is never refused by the total)."""
    opened: list[socket.socket] = []
    try:
        for i in range(limits.BODIES_TOTAL + 40):
            sock = connect(server.port, f"127.0.2.{i % 20 + 1}")
            sock.sendall(HALF_BODY)
            opened.append(sock)
        time.sleep(0.5)  # they are all being read (or refused)
        status, body = send_request(server.port, "127.0.0.4", "POST", "/api/v1/join",
                                    {"name": "Ana"})
        assert status == 201, body
        assert send_request(server.port, "127.0.0.1", "GET", "/api/v1/state")[0] == 200
    finally:
        for sock in opened:
            sock.close()


# -- issue 22: the door ------------------------------------------------------------------
@installed
def test_the_door_refuses_connections_over_an_address_cap_unread(server: Any) -> None:
    """One address's connections over ``CONNECTIONS_PER_ADDRESS`` are refused before a
    byte is read, and a refused join changes nothing; other addresses are served."""
    held = idle_connections(server.port, "127.0.0.6", limits.CONNECTIONS_PER_ADDRESS)
    try:
        silent = connect(server.port, "127.0.0.6")  # sends nothing, still answered
        assert read_answer(silent) == (429, "too_many_connections")
        silent.close()
        status, body = send_request(server.port, "127.0.0.6", "POST", "/api/v1/join",
                                    {"name": "Mallory"})
        assert (status, body["error"]["code"]) == (429, "too_many_connections")
        assert send_request(server.port, "127.0.0.1", "GET", "/api/v1/state")[0] == 200
        assert send_request(server.port, "127.0.0.7", "POST", "/api/v1/join",
                            {"name": "Ana"})[0] == 201
    finally:
        for sock in held:
            sock.close()
    for _ in range(100):  # the places come back as the connections end
        status, body = send_request(server.port, "127.0.0.6", "POST", "/api/v1/join",
                                    {"name": "Bea"})
        if status != 429:
            break
        time.sleep(0.05)
    assert status == 201, body
    names = [seat["name"] for seat in http("GET", f"{server.url}/api/v1/state")[1]["seats"]]
    assert names == ["Ana", "Bea"]  # no Mallory: the refused join changed nothing


FILL_TRIES = 3
"""Tries at filling the door before gunicorn's 5 s keep-alive drops the first idle
connections (a slow machine, such as an emulated Pi, can take about that long)."""


def still_held(socks: list[socket.socket]) -> bool:
    """Whether the table still holds every one of ``socks``: none answered or closed."""
    for sock in socks:
        sock.setblocking(False)
        try:
            sock.recv(1, socket.MSG_PEEK)
            return False  # an answer, or the end: gunicorn's keep-alive has run out
        except BlockingIOError:
            pass
        except OSError:
            return False
        finally:
            sock.settimeout(30)
    return True


def fill_the_door(port: int, name: str) -> tuple[int, str] | None:
    """The shared places taken by 12 addresses, then the reserve by addresses of
    ``CONNECTIONS_FEW``: the answer to one connection more, or None if the first ones
    were dropped by the keep-alive meanwhile (the fill took too long to mean anything)."""
    per = limits.CONNECTIONS_PER_ADDRESS
    flooders = limits.CONNECTIONS_TOTAL // per
    held: list[socket.socket] = []
    try:
        for n in range(flooders):
            held += idle_connections(port, f"127.0.3.{n + 1}", per)
        held += idle_connections(port, "127.0.4.1", limits.CONNECTIONS_FEW)
        one_more = connect(port, "127.0.4.1")
        assert read_answer(one_more) == (503, "too_many_connections")
        one_more.close()
        assert send_request(port, "127.0.0.1", "GET", "/api/v1/state")[0] == 200
        assert send_request(port, "127.0.0.7", "POST", "/api/v1/join",
                            {"name": name})[0] == 201
        # The reserve, taken by addresses of CONNECTIONS_FEW each: then no one gets in.
        left = limits.CONNECTIONS_RESERVED - limits.CONNECTIONS_FEW
        for n in range(left // limits.CONNECTIONS_FEW):
            held += idle_connections(port, f"127.0.5.{n + 1}", limits.CONNECTIONS_FEW)
        held += idle_connections(port, "127.0.6.1", left % limits.CONNECTIONS_FEW)
        last = connect(port, "127.0.6.2")
        answer = read_answer(last)
        last.close()
        if not still_held(held):
            return None
        print(f"\nconnections: {len(held)} held from "
              f"{flooders + 2 + left // limits.CONNECTIONS_FEW} addresses; a new phone got "
              "in until the reserve was taken")
        return answer
    finally:
        for sock in held:
            sock.close()


@installed
def test_a_flood_from_many_addresses_leaves_room_for_a_new_phone(server: Any,
                                                                 many_files: None) -> None:
    """The shared ``CONNECTIONS_TOTAL`` taken by 12 addresses: an address holding
    ``CONNECTIONS_FEW`` is refused, a new one still gets in, until the reserve is gone."""
    for attempt in range(FILL_TRIES):
        begun = time.monotonic()
        answer = fill_the_door(server.port, f"Ana {attempt + 1}")
        if answer is not None:
            assert answer == (503, "too_many_connections")
            return
        print(f"\nthe fill took {time.monotonic() - begun:.1f} s: the first connections "
              "were dropped by the keep-alive; again")
        time.sleep(limits.REFUSED_HOLD_SECONDS)
    pytest.fail(f"the door could not be filled within gunicorn's keep-alive in "
                f"{FILL_TRIES} tries: this machine is too slow for the test")


@installed
def test_a_stream_flood_from_many_addresses_is_mostly_refused_at_the_door(
        server: Any, many_files: None) -> None:
    """1050 event streams from 70 addresses: the guard refuses only what the door's places
    let through, and a new phone gets its state, a seat and a live view."""
    opened: list[socket.socket] = []
    try:
        for i in range(1050):
            sock = connect(server.port, f"127.0.7.{i % 70 + 1}")
            sock.sendall(STREAM)
            opened.append(sock)
        answers = [read_answer(sock) for sock in opened]
        counts = tally(answers)
        assert counts["200"] == limits.STREAMS_TOTAL, counts
        guard = counts.get("503 too_many_streams", 0)
        assert counts.get("503 too_many_connections", 0) + guard == 1050 - 256, counts
        assert guard <= (limits.CONNECTIONS_TOTAL + limits.CONNECTIONS_RESERVED
                         - limits.STREAMS_TOTAL), counts
        assert send_request(server.port, "127.0.0.1", "GET", "/api/v1/state")[0] == 200
        assert send_request(server.port, "127.0.0.7", "POST", "/api/v1/join",
                            {"name": "Ana"})[0] == 201
        newcomer = connect(server.port, "127.0.0.8")
        opened.append(newcomer)
        newcomer.sendall(STREAM)
        assert read_answer(newcomer) == (200, "")
        print(f"\nstreams from 70 addresses: {counts}")
    finally:
        for sock in opened:
            sock.close()


@installed
def test_a_pipelined_keep_alive_flood_leaves_the_table_answering(server: Any) -> None:
    """16 connections from one address, 3000 requests sent ahead on each and no answer
    read: other addresses' state, join and pick are answered meanwhile (before, all of
    one connection's requests were served before anyone else's: 19 s)."""
    flooders = [connect(server.port, "127.0.0.9") for _ in range(16)]
    flood = b"GET /api/v1/state HTTP/1.1\r\nHost: x\r\n\r\n" * 3000

    def send(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.sendall(flood)

    senders = [threading.Thread(target=send, args=(sock,), daemon=True)
               for sock in flooders]
    try:
        for sender in senders:
            sender.start()
        time.sleep(0.3)
        port = server.port
        tokens = {}
        for n, name in enumerate(("Ana", "Ben", "Caro")):
            status, body = send_request(port, f"127.0.0.{20 + n}", "POST", "/api/v1/join",
                                        {"name": name})
            assert status == 201, body
            tokens[name] = body["token"]
        status, body = send_request(port, "127.0.0.1", "POST", "/api/v1/host",
                                    {"key": server.host_key()})
        host = body["token"]
        assert send_request(port, "127.0.0.1", "POST", "/api/v1/host/start", {},
                            token=host)[0] == 200
        hand = send_request(port, "127.0.0.20", "GET", "/api/v1/me",
                            token=tokens["Ana"])[1]["me"]["hand"]
        assert send_request(port, "127.0.0.20", "POST", "/api/v1/pick",
                            {"round": 1, "card": hand[0]}, token=tokens["Ana"])[0] == 200
        assert send_request(port, "127.0.0.1", "GET", "/api/v1/state")[0] == 200
    finally:
        for sock in flooders:
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


@installed
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
@installed
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
@installed
def test_a_flood_of_hints_from_one_seat_leaves_state_answering(server: Any) -> None:
    url = server.url
    tokens = [http("POST", f"{url}/api/v1/join", {"name": n})[1]["token"]
              for n in ("Ana", "Ben", "Caro")]
    host = http("POST", f"{url}/api/v1/host", {"key": server.host_key()})[1]["token"]
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
    from kalimambo.web.http.app import create_app

    app = create_app(AppConfig(data_dir=data_dir, host_pin="1234", runner="inline"))
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
                                     f"WHERE key = '{SettingKey.RESTARTS}'"),
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


def on_disk(data: Path, sql: str) -> list[tuple[Any, ...]]:
    """What the store's file holds (a reader of its own, as after a power cut)."""
    db = sqlite3.connect(f"{(data / DB_NAME).resolve().as_uri()}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


@pytest.mark.slow
def test_a_full_disk_keeps_the_game_going_in_memory_and_loses_nothing(
        servers: list[ServerProcess], tmp_path: Path) -> None:
    """A full card does not stop the game: the store goes on in memory (the host page
    says so), everything acknowledged before stays on disk as it was, and once there is
    room again the table writes it all back by itself (its clock tries every 10 s)."""
    with tmpfs(tmp_path / "small", "8m") as mount:
        data = mount / "data"
        server = ServerProcess(data)
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
        view: dict[str, Any] = {}
        for i in range(400):  # the WAL grows until the disk refuses a page
            status, body = http("POST", f"{url}/api/v1/pick",
                                {"round": 1, "card": hands["Ben"][i % 2]},
                                token=tokens["Ben"])
            assert status == 200, body  # never refused: the game goes on
            view = http("GET", f"{url}/api/v1/state")[1]
            if view["storage"]["in_memory"]:
                break
        assert view["storage"] == {"ok": False, "error": KEPT_IN_MEMORY, "in_memory": True}
        assert http("POST", f"{url}/api/v1/pick", {"round": 1, "card": hands["Caro"][0]},
                    token=tokens["Caro"])[0] == 200  # the last pick: round 1 is played
        view = wait_for_view(url, lambda v: len(v["history"]) == 1)
        played = view["history"][0]["cards"]
        assert on_disk(data, "SELECT round FROM rounds") == []  # in memory only, so far
        assert on_disk(data, "SELECT name, card FROM picks WHERE round = 1") == [
            ("Ana", hands["Ana"][0])]  # what was on disk before is as it was
        filler.unlink()
        view = wait_for_view(url, lambda v: v["storage"]["ok"], ceiling=60)
        assert view["storage"] == {"ok": True, "error": None, "in_memory": False}
        assert [json.loads(cards) for (cards,) in on_disk(
            data, "SELECT cards FROM rounds WHERE round = 1")] == [played]
        server.kill()  # a power cut once it is written: nothing lost
        again = ServerProcess(data)
        again.log = tmp_path / "again.log"
        servers.append(again.start())
        after = http("GET", f"{again.url}/api/v1/state")[1]
        assert [r["cards"] for r in after["history"]] == [played]
        assert after["storage"]["ok"] is True
        print(f"\nfull disk: {i + 1} picks until the store went into memory; round 1 "
              f"({played}) played in memory, written back once the filler went, kept "
              "after a restart")


def wait_for_view(url: str, condition: Callable[[dict[str, Any]], bool],
                  ceiling: float = 20.0) -> dict[str, Any]:
    """The public view once ``condition`` holds (polled; a playback or a write-back takes
    its time)."""
    deadline = time.monotonic() + ceiling
    while True:
        view: dict[str, Any] = http("GET", f"{url}/api/v1/state")[1]
        if condition(view) or time.monotonic() > deadline:
            assert condition(view), view
            return view
        time.sleep(0.2)


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
