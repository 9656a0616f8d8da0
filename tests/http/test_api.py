"""The HTTP API (API.md) through the Flask test client: every endpoint and its errors."""

from __future__ import annotations

import random
from typing import Any

import pytest

from kalimambo.engine.record import parse_record
from tests.helpers import assert_view_matches_replay, end_playback

NAMES = ["Ana", "Ben", "Caro"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def join_all(client: Any, names: list[str] = NAMES) -> dict[str, str]:
    tokens = {}
    for name in names:
        response = client.post("/api/v1/join", json={"name": name})
        assert response.status_code == 201, response.json
        assert response.json["name"] == name
        tokens[name] = response.json["token"]
    return tokens


def start(client: Any, host: str, setup: dict[str, Any] | None = None) -> dict[str, Any]:
    response = client.post("/api/v1/host/start", json={} if setup is None else {"setup": setup},
                           headers=bearer(host))
    assert response.status_code == 200, response.json
    view: dict[str, Any] = response.json
    return view


def state(client: Any) -> dict[str, Any]:
    response = client.get("/api/v1/state")
    assert response.status_code == 200
    view: dict[str, Any] = response.json
    return view


def assert_error(response: Any, status: int, code: str) -> None:
    assert response.status_code == status, (response.status_code, response.get_data())
    error = response.json["error"]
    assert error["code"] == code
    assert isinstance(error["message"], str) and error["message"]


def play_round(client: Any, tokens: dict[str, str], rng: random.Random) -> dict[str, int]:
    round_no = state(client)["round"]
    cards = {}
    for name, token in tokens.items():
        hand = client.get("/api/v1/me", headers=bearer(token)).json["me"]["hand"]
        cards[name] = rng.choice(hand)
        response = client.post("/api/v1/pick", json={"round": round_no, "card": cards[name]},
                               headers=bearer(token))
        assert response.status_code == 200, response.json
    end_playback(client)
    return cards


# -- anyone ------------------------------------------------------------------------
def test_lobby_view_has_the_documented_keys(client: Any) -> None:
    view = state(client)
    for key in ("version", "phase", "round", "track_length", "seats", "rhino", "positions",
                "dung", "last_round", "winners", "history", "setup", "game_id", "join_url",
                "hints", "lights"):
        assert key in view, key
    assert view["phase"] == "lobby"
    assert view["track_length"] == 32
    assert set(view["lights"]) >= {"backend", "ok", "error", "pacing", "playing"}
    assert "localhost" not in view["join_url"] and "127.0.0.1" not in view["join_url"]


def test_join_assigns_colours_in_order_and_long_tokens(client: Any) -> None:
    tokens = join_all(client, ["Ana", "Ben", "Caro", "Dan", "Eva", "Finn", "Gina"])
    seats = state(client)["seats"]
    assert [s["colour"] for s in seats] == ["green", "yellow", "violet", "red", "blue",
                                            "orange", "natural"]
    assert all(len(t) >= 22 for t in tokens.values())  # >= 128 bits in base64
    assert len(set(tokens.values())) == 7
    assert_error(client.post("/api/v1/join", json={"name": "Hugo"}), 409, "table_full")


def test_version_grows_with_every_change(client: Any) -> None:
    before = state(client)["version"]
    join_all(client, ["Ana"])
    assert state(client)["version"] > before


@pytest.mark.parametrize(("name", "code"), [
    ("", "bad_name"), ("   ", "bad_name"), ("x" * 21, "bad_name"), (7, "bad_name"),
    (None, "bad_name"), ("kali", "name_taken"), ("Kali", "name_taken"),
    ("a\u0000b", "bad_name"),
])
def test_join_refuses_bad_names(client: Any, name: object, code: str) -> None:
    before = state(client)
    response = client.post("/api/v1/join", json={"name": name})
    assert response.status_code in (400, 409)
    assert_error(response, response.status_code, code)
    assert state(client)["seats"] == before["seats"]


def test_names_are_trimmed_unique_ignoring_case_and_any_script(client: Any) -> None:
    response = client.post("/api/v1/join", json={"name": "  Ana  "})
    assert response.json["name"] == "Ana"
    assert_error(client.post("/api/v1/join", json={"name": "ANA"}), 409, "name_taken")
    for name in ("Željko", "明美", "Σοφία", "<script>alert(1)</script>"[:20], "x" * 20):
        response = client.post("/api/v1/join", json={"name": name})
        assert response.status_code == 201, (name, response.json)
        assert response.json["name"] == name


def test_join_after_start_is_refused(client: Any, host_token: str) -> None:
    join_all(client)
    start(client, host_token)
    assert_error(client.post("/api/v1/join", json={"name": "Late"}), 409, "already_started")


def test_bodies_must_be_small_json_objects(client: Any) -> None:
    assert_error(client.post("/api/v1/join", data="name=Ana",
                             content_type="application/x-www-form-urlencoded"), 415, "not_json")
    assert_error(client.post("/api/v1/join", data="{nope",
                             content_type="application/json"), 400, "bad_json")
    assert_error(client.post("/api/v1/join", json=["Ana"]), 400, "bad_json")
    big = '{"name": "Ana", "pad": "' + "x" * 5000 + '"}'
    assert_error(client.post("/api/v1/join", data=big, content_type="application/json"),
                 413, "too_large")
    assert state(client)["seats"] == []


def test_unknown_api_paths_and_methods_answer_json(client: Any) -> None:
    assert_error(client.get("/api/v1/nothing"), 404, "not_found")
    assert_error(client.get("/api/v1/join"), 405, "method_not_allowed")


def test_record_before_start_is_refused(client: Any) -> None:
    assert_error(client.get("/api/v1/record"), 409, "not_started")


def test_leds_is_a_frame_of_rgb_triples(client: Any) -> None:
    leds = client.get("/api/v1/leds").json["leds"]
    assert len(leds) >= 32
    assert all(len(px) == 3 and all(0 <= c <= 255 for c in px) for px in leds)


def test_local_says_only_whether_this_is_the_own_screen(client: Any) -> None:
    """No PIN and no key, not even on the table's own screen (tests/http/test_own_screen.py)."""
    answer = client.get("/api/v1/local", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert answer.json == {"local": True, "host_qr": False}  # booth mode: on by default
    key = client.application.extensions["kalimambo"].table.host.key
    text = answer.get_data(as_text=True)
    assert key not in text and "1234" not in text
    answer = client.get("/api/v1/local", environ_base={"REMOTE_ADDR": "192.168.1.20"}).json
    assert answer == {"local": False}


# -- a seat ------------------------------------------------------------------------
def test_me_needs_a_valid_token(client: Any) -> None:
    assert_error(client.get("/api/v1/me"), 401, "no_token")
    assert_error(client.get("/api/v1/me", headers=bearer("made-up")), 401, "unknown_token")
    tokens = join_all(client)
    me = client.get("/api/v1/me", headers=bearer(tokens["Ben"])).json["me"]
    assert me["name"] == "Ben" and me["colour"] == "yellow"
    assert me["hand"] == list(range(12)) and me["pick"] is None


def test_pick_errors_change_nothing(client: Any, host_token: str) -> None:
    tokens = join_all(client)
    assert_error(client.post("/api/v1/pick", json={"round": 1, "card": 3},
                             headers=bearer(tokens["Ana"])), 409, "not_started")
    start(client, host_token)
    ana = bearer(tokens["Ana"])
    before = state(client)
    assert_error(client.post("/api/v1/pick", json={"round": 1, "card": 3}), 401, "no_token")
    assert_error(client.post("/api/v1/pick", json={"round": 2, "card": 3}, headers=ana),
                 409, "wrong_round")
    assert_error(client.post("/api/v1/pick", json={"card": 3}, headers=ana), 400, "bad_round")
    assert_error(client.post("/api/v1/pick", json={"round": 1, "card": 12}, headers=ana),
                 400, "bad_card")
    assert_error(client.post("/api/v1/pick", json={"round": 1, "card": "7"}, headers=ana),
                 400, "bad_card")
    assert_error(client.post("/api/v1/pick", json={"round": 1, "card": True}, headers=ana),
                 400, "bad_card")
    assert state(client) == before
    # A card played in round 1 cannot come back in round 2.
    cards = play_round(client, tokens, random.Random(1))
    assert_error(client.post("/api/v1/pick", json={"round": 2, "card": cards["Ana"]},
                             headers=ana), 409, "card_not_in_hand")


def test_a_pick_may_change_until_the_last_seat_picks(client: Any, host_token: str) -> None:
    tokens = join_all(client)
    start(client, host_token)
    ana, ben, caro = (bearer(tokens[n]) for n in NAMES)
    client.post("/api/v1/pick", json={"round": 1, "card": 3}, headers=ana)
    client.post("/api/v1/pick", json={"round": 1, "card": 9}, headers=ana)
    assert client.get("/api/v1/me", headers=ana).json["me"]["pick"] == 9
    client.post("/api/v1/pick", json={"round": 1, "card": 4}, headers=ben)
    answer = client.post("/api/v1/pick", json={"round": 1, "card": 5}, headers=caro).json
    assert answer["resolved"] is True
    end_playback(client)
    view = state(client)
    assert view["round"] == 2 and view["phase"] == "picking"
    assert view["last_round"]["cards"] == {"Ana": 9, "Ben": 4, "Caro": 5}
    assert view["last_round"]["events"][0]["type"] == "reveal"
    assert all(not s["picked"] for s in view["seats"])
    assert 9 not in client.get("/api/v1/me", headers=ana).json["me"]["hand"]


def test_full_game_equals_replay_of_its_own_record(client: Any, host_token: str) -> None:
    tokens = join_all(client, ["Ana", "Ben", "Caro", "Dan"])
    start(client, host_token)
    rng = random.Random(7)
    for _ in range(12):
        play_round(client, tokens, rng)
    view = state(client)
    assert view["phase"] == "finished"
    assert_error(client.post("/api/v1/pick", json={"round": 12, "card": 0},
                             headers=bearer(tokens["Ana"])), 409, "game_over")
    assert_view_matches_replay(view, client.get("/api/v1/record").json)
    assert len(view["history"]) == 12


# -- the host ----------------------------------------------------------------------
def test_host_login(client: Any) -> None:
    away = {"REMOTE_ADDR": "192.168.1.20"}
    assert_error(client.post("/api/v1/host", json={"pin": "0000"}), 403, "wrong_pin")
    assert_error(client.post("/api/v1/host", json={}, environ_base=away), 400, "bad_pin")
    token = client.post("/api/v1/host", json={"pin": "1234"}).json["token"]
    assert client.get("/api/v1/host", headers=bearer(token)).json == {"host": True}
    assert_error(client.get("/api/v1/host"), 401, "host_only")


def test_wrong_pins_are_rate_limited(client: Any) -> None:
    for _ in range(5):
        assert_error(client.post("/api/v1/host", json={"pin": "0000"}), 403, "wrong_pin")
    response = client.post("/api/v1/host", json={"pin": "1234"})
    assert_error(response, 429, "too_many_tries")
    assert int(response.headers["Retry-After"]) > 0
    other = client.post("/api/v1/host", json={"pin": "1234"},
                        environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 200


@pytest.mark.parametrize("path", ["/api/v1/host/start", "/api/v1/host/bots",
                                  "/api/v1/host/undo", "/api/v1/host/new",
                                  "/api/v1/host/seats", "/api/v1/host/remove",
                                  "/api/v1/host/settings", "/api/v1/host/lights/retry"])
def test_host_endpoints_need_the_host_token(client: Any, path: str) -> None:
    tokens = join_all(client)
    before = state(client)
    assert_error(client.post(path, json={}), 401, "host_only")
    assert_error(client.post(path, json={}, headers=bearer(tokens["Ana"])), 403, "host_only")
    assert state(client) == before


def test_start_needs_three_players(client: Any, host_token: str) -> None:
    join_all(client, ["Ana", "Ben"])
    assert_error(client.post("/api/v1/host/start", json={}, headers=bearer(host_token)),
                 409, "too_few_players")


def test_start_with_an_entered_setup(client: Any, host_token: str) -> None:
    join_all(client)
    setup = {"rhino": 5, "order": ["Ben", "Ana", "Caro"], "dung": [14, 18]}
    bad = {**setup, "dung": [6]}
    before = state(client)
    assert_error(client.post("/api/v1/host/start", json={"setup": bad},
                             headers=bearer(host_token)), 400, "bad_setup")
    assert state(client) == before
    view = start(client, host_token, setup)
    assert view["phase"] == "picking" and view["round"] == 1
    assert view["setup"] == setup
    assert view["positions"] == {"Ben": 6, "Ana": 7, "Caro": 8, "Kali": 9}
    assert_error(client.post("/api/v1/host/start", json={}, headers=bearer(host_token)),
                 409, "already_started")


def test_remove_a_seat_before_start(client: Any, host_token: str) -> None:
    tokens = join_all(client, ["Ana", "Ben", "Caro", "Dan"])
    host = bearer(host_token)
    assert_error(client.post("/api/v1/host/remove", json={"name": "Zed"}, headers=host),
                 404, "no_such_seat")
    view = client.post("/api/v1/host/remove", json={"name": "ben"}, headers=host).json
    assert [s["name"] for s in view["seats"]] == ["Ana", "Caro", "Dan"]
    assert_error(client.get("/api/v1/me", headers=bearer(tokens["Ben"])), 401, "unknown_token")
    # Ben's colour is free again for the next to join.
    client.post("/api/v1/join", json={"name": "Eva"})
    assert state(client)["seats"][-1]["colour"] == "yellow"
    start(client, host_token)
    assert_error(client.post("/api/v1/host/remove", json={"name": "Dan"}, headers=host),
                 409, "already_started")


def test_bots_fill_seats_and_pick_at_once(client: Any, host_token: str) -> None:
    host = bearer(host_token)
    tokens = join_all(client, ["Ana"])
    assert_error(client.post("/api/v1/host/bots", json={"count": 0}, headers=host),
                 400, "bad_count")
    assert_error(client.post("/api/v1/host/bots", json={"count": 2, "level": "godlike"},
                             headers=host), 400, "bad_level")
    assert_error(client.post("/api/v1/host/bots", json={"count": 7}, headers=host),
                 409, "table_full")
    response = client.post("/api/v1/host/bots", json={"count": 2, "level": "easy"},
                           headers=host)
    assert response.status_code == 201 and len(response.json["names"]) == 2
    seats = state(client)["seats"]
    assert [s["bot"] for s in seats] == [False, True, True]
    assert seats[1]["bot_level"] == "easy"
    view = start(client, host_token)
    assert [s["picked"] for s in view["seats"]] == [False, True, True]
    rng = random.Random(3)
    for _ in range(12):
        play_round(client, tokens, rng)
    assert state(client)["phase"] == "finished"


def test_undo_takes_the_last_round_back(client: Any, host_token: str) -> None:
    tokens = join_all(client)
    start(client, host_token)
    host = bearer(host_token)
    assert_error(client.post("/api/v1/host/undo", headers=host), 409, "nothing_to_undo")
    after_start = state(client)
    cards = play_round(client, tokens, random.Random(5))
    ana = bearer(tokens["Ana"])
    client.post("/api/v1/pick", json={"round": 2, "card": 11 if cards["Ana"] != 11 else 10},
                headers=ana)
    view = client.post("/api/v1/host/undo", headers=host).json
    assert view["round"] == 1 and view["history"] == [] and view["last_round"] is None
    assert view["positions"] == after_start["positions"]
    assert all(not s["picked"] for s in view["seats"])
    assert client.get("/api/v1/me", headers=ana).json["me"]["hand"] == list(range(12))


def test_new_game_archives_the_old_one(client: Any, host_token: str) -> None:
    tokens = join_all(client)
    start(client, host_token)
    play_round(client, tokens, random.Random(2))
    old = state(client)
    host = bearer(host_token)
    view = client.post("/api/v1/host/new", json={"keep_seats": False}, headers=host).json
    assert view["phase"] == "lobby" and view["seats"] == []
    assert view["game_id"] != old["game_id"]
    games = client.get("/api/v1/games").json["games"]
    assert [g["id"] for g in games] == [old["game_id"], view["game_id"]]
    assert games[0]["rounds"] == 1 and games[0]["players"] == NAMES
    assert games[1]["rounds"] == 0  # the new lobby: no rounds row counted
    record = client.get(f"/api/v1/games/{old['game_id']}/record").json
    assert record["rounds"] == [{"cards": old["last_round"]["cards"],
                                 "kali": old["last_round"]["kali"]}]
    parse_record(record)
    assert_error(client.get(f"/api/v1/games/{view['game_id']}/record"), 409, "not_started")
    assert_error(client.get("/api/v1/games/999/record"), 404, "no_such_game")
    assert_error(client.get("/api/v1/me", headers=bearer(tokens["Ana"])), 401, "unknown_token")


def test_new_game_can_keep_the_seats(client: Any, host_token: str) -> None:
    tokens = join_all(client)
    start(client, host_token)
    view = client.post("/api/v1/host/new", json={"keep_seats": True},
                       headers=bearer(host_token)).json
    assert [s["name"] for s in view["seats"]] == NAMES
    assert client.get("/api/v1/me", headers=bearer(tokens["Ana"])).status_code == 200


def test_hosted_seat_is_played_from_the_host_page(client: Any, host_token: str) -> None:
    host = bearer(host_token)
    join_all(client, ["Ana", "Ben"])
    response = client.post("/api/v1/host/seats", json={"name": "Oma"}, headers=host)
    assert response.status_code == 201
    oma = response.json["token"]
    assert state(client)["seats"][2]["hosted"] is True
    start(client, host_token)
    ids = {seat["name"]: seat["id"] for seat in state(client)["seats"]}
    assert response.json["id"] == ids["Oma"]
    assert client.get(f"/api/v1/host/seats/{ids['Oma']}/me", headers=host
                      ).json["me"]["hand"] == list(range(12))
    assert_error(client.get(f"/api/v1/host/seats/{ids['Ana']}/me", headers=host), 403,
                 "not_hosted")
    assert_error(client.get("/api/v1/host/seats/Oma/me", headers=host), 404, "no_such_seat")
    assert client.post(f"/api/v1/host/seats/{ids['Oma']}/pick", json={"round": 1, "card": 4},
                       headers=host).status_code == 200
    assert client.get("/api/v1/me", headers=bearer(oma)).json["me"]["pick"] == 4


def test_settings_and_hints(client: Any, host_token: str) -> None:
    host = bearer(host_token)
    tokens = join_all(client)
    assert_error(client.get("/api/v1/hint", headers=bearer(tokens["Ana"])), 403, "hints_off")
    for bad in ({"hints": "yes"}, {"pacing": "fast"}, {"pause_ms": 5}, {"colour": "red"}):
        assert_error(client.post("/api/v1/host/settings", json=bad, headers=host),
                     400, "bad_setting")
    answer = client.post("/api/v1/host/settings", json={"hints": True, "pacing": "step"},
                         headers=host).json
    assert answer["hints"] is True and answer["pacing"] == "step"
    view = state(client)
    assert view["hints"] is True and view["lights"]["pacing"] == "step"
    assert_error(client.get("/api/v1/hint", headers=bearer(tokens["Ana"])), 409, "no_round")
    start(client, host_token)
    hint = client.get("/api/v1/hint", headers=bearer(tokens["Ana"])).json
    assert hint["card"] in range(12) and isinstance(hint["code"], str)


def test_new_game_keeps_seats_and_bots_by_default(client: Any, host_token: str) -> None:
    host = bearer(host_token)
    tokens = join_all(client, ["Ana", "Ben"])
    client.post("/api/v1/host/bots", json={"count": 1}, headers=host)
    start(client, host_token)
    view = client.post("/api/v1/host/new", headers=host).json
    assert [(s["name"], s["bot"]) for s in view["seats"]] == \
        [("Ana", False), ("Ben", False), (view["seats"][2]["name"], True)]
    assert client.get("/api/v1/me", headers=bearer(tokens["Ana"])).status_code == 200


def test_step_pacing_next_and_skip(client: Any, host_token: str) -> None:
    """In step pacing the round waits at k = 0 for "next"; picks open when it ends."""
    host = bearer(host_token)
    client.post("/api/v1/host/settings", json={"pacing": "step"}, headers=host)
    tokens = join_all(client)
    start(client, host_token)
    assert_error(client.post("/api/v1/host/next", headers=host), 409, "not_playing")
    for name in NAMES:
        client.post("/api/v1/pick", json={"round": 1, "card": NAMES.index(name)},
                    headers=bearer(tokens[name]))
    view = state(client)
    assert view["phase"] == "playing" and view["round"] == 1 and view["history"] == []
    assert view["playback"]["step"] == 0 and view["playback"]["current"] is None
    assert_error(client.post("/api/v1/pick", json={"round": 2, "card": 11},
                             headers=bearer(tokens["Ana"])), 409, "playing")
    shown = client.post("/api/v1/host/next", headers=host).json
    assert shown["step"] == 1 and shown["current"]["kind"] == "reveal"
    assert client.post("/api/v1/host/next", headers=host).json["step"] == 2
    assert client.post("/api/v1/host/lights/next", headers=host).status_code == 404
    ended = client.post("/api/v1/host/skip", headers=host).json
    assert ended["step"] == ended["steps"]
    view = state(client)
    assert view["phase"] == "picking" and view["round"] == 2 and len(view["history"]) == 1


def test_lights_controls(client: Any, host_token: str) -> None:
    """Without a lights process (the fixture's table) "retry" has nothing to retry
    (tests/live/test_lights_link.py has one connected)."""
    host = bearer(host_token)
    assert_error(client.post("/api/v1/host/lights/retry", headers=host), 409, "lights_failed")
