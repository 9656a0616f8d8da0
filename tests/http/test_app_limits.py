"""The limits and refusals the app itself makes (the Flask test client, real SQLite):
look-alike names, nesting depth, PIN tries, hint searches, the door's counting.

The ones about the server process (connections, slow bodies, two servers, broken
files, a full disk) are in tests/http/test_attacks.py against a real gunicorn server.
"""

from __future__ import annotations

import threading
import time
import unicodedata
from typing import Any

import pytest

from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.table.hints import HintDesk
from kalimambo.web.table.hostlogin import FREE_TRIES, GLOBAL_TRIES_PER_MINUTE
from tests.conftest import PIN
from tests.helpers import end_playback

AWAY = {"REMOTE_ADDR": "192.168.1.20"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def error_code(response: Any) -> tuple[int, str]:
    body = response.json
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    return response.status_code, body["error"]["code"]


def join(client: Any, name: str) -> Any:
    return client.post("/api/v1/join", json={"name": name})


# -- finding 11: names ------------------------------------------------------------------
@pytest.mark.parametrize("twin", ["Ａｌｉｃｅ", "Аlice", "ALICE", "alice "])
def test_look_alike_names_are_one_name(client: Any, twin: str) -> None:
    assert join(client, "Alice").status_code == 201
    assert error_code(join(client, twin)) == (409, "name_taken")
    assert [s["name"] for s in client.get("/api/v1/state").json["seats"]] == ["Alice"]


@pytest.mark.parametrize("name", ["ＫＡＬＩ", "Kаli", "Kalı", "kali", "KALI"])
def test_look_alikes_of_kali_are_reserved(client: Any, name: str) -> None:
    assert error_code(join(client, name)) == (409, "name_taken")


@pytest.mark.parametrize("name", ["\u3164", "\u2800", "\u0301\u0300", "\u3164\u3164 ",
                                  "\uffa0", "\u115f"])
def test_blank_looking_names_are_refused(client: Any, name: str) -> None:
    assert error_code(join(client, name)) == (400, "bad_name")
    assert client.get("/api/v1/state").json["seats"] == []


def test_different_names_still_sit_together(client: Any) -> None:
    for name in ("Ana", "Anna", "Zoë", "李", "Ålesund"):
        assert join(client, name).status_code == 201, name


def test_remove_normalises_the_name_and_takes_the_id(client: Any, host_token: str) -> None:
    assert join(client, "Zoë").status_code == 201
    assert join(client, "Ben").status_code == 201
    decomposed = unicodedata.normalize("NFD", "Zoë")
    assert decomposed != "Zoë"
    view = client.post("/api/v1/host/remove", json={"name": decomposed},
                       headers=bearer(host_token)).json
    assert [s["name"] for s in view["seats"]] == ["Ben"]
    seat_id = view["seats"][0]["id"]
    assert error_code(client.post("/api/v1/host/remove", json={"id": "nope"},
                                  headers=bearer(host_token))) == (404, "no_such_seat")
    view = client.post("/api/v1/host/remove", json={"id": seat_id},
                       headers=bearer(host_token)).json
    assert view["seats"] == []


# -- finding 3: hosted seats named a/b or .. ---------------------------------------------
def test_hosted_seats_with_path_like_names_play_to_the_end(client: Any,
                                                           host_token: str) -> None:
    host = bearer(host_token)
    for name in ("a/b", ".."):
        response = client.post("/api/v1/host/seats", json={"name": name}, headers=host)
        assert response.status_code == 201
        assert "/" not in response.json["id"]
    phone = join(client, "Ana").json["token"]
    ids_before = [s["id"] for s in client.get("/api/v1/state").json["seats"]]
    assert client.post("/api/v1/host/start", headers=host).status_code == 200
    view = client.get("/api/v1/state").json
    assert [s["id"] for s in view["seats"]] == ids_before  # ids are kept through the start
    hosted = [s["id"] for s in view["seats"] if s["hosted"]]
    assert len(hosted) == 2
    for round_no in range(1, 13):
        for seat_id in hosted:
            me = client.get(f"/api/v1/host/seats/{seat_id}/me", headers=host)
            assert me.status_code == 200, me.json
            card = me.json["me"]["hand"][0]
            pick = client.post(f"/api/v1/host/seats/{seat_id}/pick",
                               json={"round": round_no, "card": card}, headers=host)
            assert pick.status_code == 200, pick.json
        hand = client.get("/api/v1/me", headers=bearer(phone)).json["me"]["hand"]
        answer = client.post("/api/v1/pick", json={"round": round_no, "card": hand[0]},
                             headers=bearer(phone)).json
        assert answer["resolved"] is True
        end_playback(client)
    assert client.get("/api/v1/state").json["phase"] == "finished"


def test_seat_ids_survive_a_restart(tmp_path: Any) -> None:
    from kalimambo.web.http.app import create_app

    config = AppConfig(data_dir=tmp_path / "d", host_pin=PIN, runner="inline")
    first = create_app(config)
    first.test_client().post("/api/v1/join", json={"name": "Ana"})
    ids = [s["id"] for s in first.test_client().get("/api/v1/state").json["seats"]]
    first.extensions["kalimambo"].close()
    again = create_app(config)
    assert [s["id"] for s in again.test_client().get("/api/v1/state").json["seats"]] == ids
    again.extensions["kalimambo"].close()


# -- finding 9: 500 instead of 400 ---------------------------------------------------------
@pytest.mark.parametrize(("path", "key", "host"), [
    ("/api/v1/pick", "card", False), ("/api/v1/host/remove", "name", True),
    ("/api/v1/host/start", "setup", True), ("/api/v1/join", "name", False)])
def test_deep_nesting_is_400(client: Any, host_token: str, path: str, key: str,
                             host: bool) -> None:
    deep = "[" * 1000 + "1" + "]" * 1000
    headers = bearer(host_token) if host else {}
    before = client.get("/api/v1/state").json
    response = client.post(path, data=f'{{"round": 1, "{key}": {deep}}}', headers=headers,
                           content_type="application/json")
    assert error_code(response) in ((400, "too_deep"), (400, "bad_json"))
    after = client.get("/api/v1/state").json
    assert after["seats"] == before["seats"] and after["phase"] == before["phase"]


def test_a_setup_nests_within_the_limit_and_starts(client: Any, host_token: str) -> None:
    import random

    from kalimambo.engine import random_setup
    from kalimambo.web.http.api import depth
    from kalimambo.web.http.limits import MAX_DEPTH

    names = ["Ana", "Ben", "Caro"]
    for name in names:
        join(client, name)
    setup = random_setup(names, 32, random.Random(11)).to_dict()
    assert depth({"setup": setup}) <= MAX_DEPTH
    response = client.post("/api/v1/host/start", json={"setup": setup},
                           headers=bearer(host_token))
    assert response.status_code == 200, response.json
    assert response.json["setup"] == setup


def test_depth_counts_levels() -> None:
    from kalimambo.web.http.api import depth

    assert depth(1) == 0 and depth({}) == 1 and depth({"a": [1, [2]]}) == 3
    deep: Any = 0
    for _ in range(5000):  # no recursion: a very deep value is measured too
        deep = [deep]
    assert depth(deep) == 5000


@pytest.mark.parametrize("game_id", ["9223372036854775808", "99999999999999999999999"])
def test_huge_game_ids_are_404(client: Any, game_id: str) -> None:
    assert error_code(client.get(f"/api/v1/games/{game_id}/record")) == (404, "not_found")
    assert error_code(client.get("/api/v1/games/9223372036854775807/record")) == \
        (404, "no_such_game")


# -- finding 2: the host always gets in ------------------------------------------------------
def test_no_secret_logs_in_nowhere_not_even_on_the_pis_own_screen(client: Any) -> None:
    for where in ({"REMOTE_ADDR": "127.0.0.1"}, {"REMOTE_ADDR": "::1"}, AWAY):
        assert error_code(client.post("/api/v1/host", json={}, environ_base=where)) == \
            (400, "bad_pin")


def test_wrong_pins_from_many_addresses_never_lock_out_the_key(app: Any, client: Any) -> None:
    key = app.extensions["kalimambo"].table.host.key
    refused = 0
    for i in range(GLOBAL_TRIES_PER_MINUTE + 20):
        response = client.post("/api/v1/host", json={"pin": f"{i:04d}"},
                               environ_base={"REMOTE_ADDR": f"10.1.{i // 250}.{i % 250}"})
        refused += response.status_code == 429
    assert refused >= 20  # the global brake holds the PIN guessers
    for where in ("10.9.9.9", "192.168.1.20"):
        assert client.post("/api/v1/host", json={"key": key},
                           environ_base={"REMOTE_ADDR": where}).status_code == 200
    assert client.post("/api/v1/host", json={"key": key},
                       environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 200


def test_one_address_is_locked_out_but_the_pin_still_works_elsewhere(client: Any) -> None:
    for _ in range(FREE_TRIES):
        client.post("/api/v1/host", json={"pin": "0000"}, environ_base=AWAY)
    assert error_code(client.post("/api/v1/host", json={"pin": PIN}, environ_base=AWAY)) == \
        (429, "too_many_tries")
    assert client.post("/api/v1/host", json={"pin": PIN},
                       environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 200


# -- finding 7: hints -----------------------------------------------------------------------
def test_hint_requests_for_one_seat_share_one_search() -> None:
    desk = HintDesk(total=1, wait=30)
    started = threading.Event()
    release = threading.Event()
    searches: list[int] = []

    def search() -> int:
        searches.append(1)
        started.set()
        release.wait(30)
        return 7

    answers: list[int] = []
    threads = [threading.Thread(target=lambda: answers.append(desk.get("seat", search)))
               for _ in range(30)]
    for thread in threads:
        thread.start()
    assert started.wait(30)
    release.set()
    for thread in threads:
        thread.join(30)
    assert answers == [7] * 30 and searches == [1]
    assert desk.get("seat", search) == 7 and searches == [1]  # kept for the round


def test_a_hint_that_waits_too_long_is_429() -> None:
    desk = HintDesk(total=1, wait=0.05)
    hold = threading.Event()
    first = threading.Thread(target=lambda: desk.get("a", lambda: hold.wait(30)))
    first.start()
    deadline = time.monotonic() + 30
    while not desk._jobs and time.monotonic() < deadline:
        time.sleep(0.01)
    from kalimambo.web.core.refusals import Refusal
    from kalimambo.web.http.statuses import http_headers, http_status

    with pytest.raises(Refusal) as refused:
        desk.get("b", lambda: 1)  # the only slot is taken by "a"
    assert http_status(refused.value) == 429 and refused.value.code == "hint_busy"
    assert http_headers(refused.value) == {"Retry-After": "2"}
    hold.set()
    first.join(30)
    assert desk.get("b", lambda: 1) == 1  # a refused search is not kept: it runs now


# -- finding 8: a player named __proto__ -------------------------------------------------
def test_a_player_named_proto_is_a_plain_seat(client: Any, host_token: str) -> None:
    tokens = {n: join(client, n).json["token"] for n in ("__proto__", "constructor", "Ana")}
    assert client.post("/api/v1/host/start", headers=bearer(host_token)).status_code == 200
    for name, token in tokens.items():
        hand = client.get("/api/v1/me", headers=bearer(token)).json["me"]["hand"]
        client.post("/api/v1/pick", json={"round": 1, "card": hand[0]}, headers=bearer(token))
        assert name
    end_playback(client)
    view = client.get("/api/v1/state").json
    assert set(view["positions"]) >= {"__proto__", "constructor", "Ana"}
    assert isinstance(view["last_round"]["minus_points"]["__proto__"], int)


def test_the_host_qr_code_is_only_for_the_pis_own_screen(client: Any) -> None:
    """(tests/http/test_own_screen.py has the rest: before the first host, never in booth mode)"""
    client.application.extensions["kalimambo"].table.settings({"attract": False})
    assert client.get("/host-qr.svg", environ_base=AWAY).status_code == 403
    answer = client.get("/host-qr.svg", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert answer.status_code == 200 and answer.mimetype == "image/svg+xml"


def test_a_store_from_before_seat_ids_gets_ids(tmp_path: Any) -> None:
    import sqlite3

    from kalimambo.web.http.app import create_app
    from kalimambo.web.storage.store import DB_NAME

    config = AppConfig(data_dir=tmp_path / "d", host_pin=PIN, runner="inline")
    first = create_app(config)
    token = first.test_client().post("/api/v1/join", json={"name": "Ana"}).json["token"]
    first.extensions["kalimambo"].close()
    db = sqlite3.connect(tmp_path / "d" / DB_NAME)
    db.execute("ALTER TABLE seats DROP COLUMN sid")
    db.commit()
    db.close()
    again = create_app(config)
    client = again.test_client()
    seat = client.get("/api/v1/state").json["seats"][0]
    assert seat["name"] == "Ana" and seat["id"] and "/" not in seat["id"]
    assert client.get("/api/v1/me", headers=bearer(token)).json["me"]["id"] == seat["id"]
    again.extensions["kalimambo"].close()
    third = create_app(config)
    assert third.test_client().get("/api/v1/state").json["seats"][0]["id"] == seat["id"]
    third.extensions["kalimambo"].close()


# -- issue 22: the door and the guard's shared totals ----------------------------------------
def test_the_door_counts_each_address_and_all_with_room_kept_for_newcomers() -> None:
    from kalimambo.web.http.door import FULL, MINE, Door

    door = Door(per_address=3, total=4, reserved=2, few=2, hold=0)
    assert [door.admit("a") for _ in range(4)] == [None, None, None, MINE]
    assert door.admit("b") is None  # 4: the shared total is taken
    assert door.admit("b") is None  # b holds fewer than `few`: the reserve
    assert door.admit("b") == FULL  # b holds 2 now
    assert door.admit("c") is None  # the reserve's last place
    assert door.admit("d") == FULL  # the reserve is taken too (4 + 2)
    door.release("a")
    assert door.admit("d") is None  # d holds none: a place in the reserve again
    for _ in range(2):
        door.release("a")
    door.release("a")  # one too many does no harm
    assert "a" not in door.by_address and door.open == 4
    assert door.refused == 3


def test_the_door_holds_the_place_of_a_connection_the_guard_refused() -> None:
    from kalimambo.web.http.door import HUNG_UP, MINE, Door

    now = [100.0]
    door = Door(per_address=1, total=10, reserved=0, few=0, hold=2.0,
                clock=lambda: now[0])

    class Connection:
        pass

    refused, served = Connection(), Connection()
    assert door.admit("a") is None
    HUNG_UP.add(refused)
    door.release("a", refused)  # the guard refused it: its place stays taken 2 s
    assert refused not in HUNG_UP
    assert door.admit("a") == MINE
    now[0] += 2.0
    assert door.admit("a") is None
    door.release("a", served)  # an answered connection gives its place back at once
    assert door.admit("a") is None and door.open == 1


def test_an_address_lets_a_turn_pass_for_each_connection_it_holds() -> None:
    from kalimambo.web.http.door import Door

    door = Door(per_address=64, hold=0)
    assert door.turns("new") == 1
    for _ in range(5):
        door.admit("busy")
    assert door.turns("busy") == 5


@pytest.mark.parametrize("name", ["MINE", "FULL"])
def test_the_doors_refusals_are_whole_http_answers_in_the_api_shape(name: str) -> None:
    import json

    from kalimambo.web.http import door

    answer: bytes = getattr(door, name)
    head, body = answer.split(b"\r\n\r\n", 1)
    lines = head.decode("ascii").split("\r\n")
    status = int(lines[0].split()[1])
    headers = dict(line.split(": ", 1) for line in lines[1:])
    assert status == (429 if name == "MINE" else 503)
    assert int(headers["Content-Length"]) == len(body)
    assert headers["Connection"] == "close" and headers["Retry-After"] == "2"
    error = json.loads(body)["error"]
    assert error["code"] == "too_many_connections" and error["message"]


def test_the_guards_totals_leave_every_address_a_few() -> None:
    from kalimambo.web.http.guard import Counter

    counter = Counter()
    assert all(counter.take(f"a{i}", 16, 3, few=1) for i in range(3))  # the total
    assert not counter.take("a0", 16, 3, few=1)  # a0 holds one already
    assert counter.take("new", 16, 3, few=1)  # a new address still gets its one
    assert not counter.take("new", 16, 3, few=1)
    assert counter.total == 4
