"""The table's day: local midnight or the host's "new day", kept across restarts, and
the statistics since it (what the board page's leaderboard shows)."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.http.app import create_app
from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.table.day import local_midnight
from tests.conftest import PIN
from tests.helpers import end_playback
from tests.storage.test_archive import causes_by_replay


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def play_bot_game(client: Any, host: str) -> None:
    """Three computer players play a whole game (they pick inline), then a new lobby."""
    assert client.post("/api/v1/host/bots", json={"count": 3, "level": "random"},
                       headers=auth(host)).status_code == 201
    assert client.post("/api/v1/host/start", json={}, headers=auth(host)).status_code == 200
    for _ in range(12):  # bots pick inline; each round's playback is skipped
        end_playback(client)
    assert client.get("/api/v1/state").get_json()["phase"] == "finished"
    assert client.post("/api/v1/host/new", json={}, headers=auth(host)).status_code == 200


def games_since(client: Any, since: float) -> int:
    answer = client.get(f"/api/v1/stats?since={since!r}")
    assert answer.status_code == 200
    games: int = answer.get_json()["games"]
    return games


@pytest.mark.parametrize("now", [time.time(), 1_764_547_200.0, 1_764_633_599.5,
                                 1_711_846_800.0])  # the last: a spring DST change in Europe
def test_local_midnight_is_the_start_of_the_local_day(now: float) -> None:
    midnight = local_midnight(now)
    assert midnight <= now < midnight + 25 * 3600
    local = datetime.fromtimestamp(midnight)
    assert (local.hour, local.minute, local.second) == (0, 0, 0)
    assert local.date() == datetime.fromtimestamp(now).date()


def test_the_view_tells_the_day_start(client: Any) -> None:
    view = client.get("/api/v1/state").get_json()
    assert view["day_start"] == local_midnight(time.time())


def test_new_day_is_for_the_host_only(client: Any) -> None:
    before = client.get("/api/v1/state").get_json()
    seat = client.post("/api/v1/join", json={"name": "Ana"}).get_json()["token"]
    refused = [client.post("/api/v1/host/new-day"),
               client.post("/api/v1/host/new-day", headers=auth(seat)),
               client.post("/api/v1/host/new-day", headers=auth("not-a-token"))]
    assert [answer.status_code for answer in refused] == [401, 403, 403]
    assert all(answer.get_json()["error"]["code"] == "host_only" for answer in refused)
    assert client.get("/api/v1/state").get_json()["day_start"] == before["day_start"]


def test_new_day_moves_the_start_and_the_stats_follow(client: Any, host_token: str) -> None:
    play_bot_game(client, host_token)
    first = client.get("/api/v1/state").get_json()["day_start"]
    assert games_since(client, first) == 1
    answer = client.post("/api/v1/host/new-day", headers=auth(host_token))
    assert answer.status_code == 200
    start = answer.get_json()["day_start"]
    assert start > first
    assert client.get("/api/v1/state").get_json()["day_start"] == start
    assert games_since(client, start) == 0
    assert games_since(client, first) == 1
    play_bot_game(client, host_token)
    assert games_since(client, start) == 1
    assert games_since(client, first) == 2


def test_a_bad_body_is_refused_and_changes_nothing(client: Any, host_token: str) -> None:
    before = client.get("/api/v1/state").get_json()["day_start"]
    answer = client.post("/api/v1/host/new-day", data=b"[1]",
                         headers={**auth(host_token), "Content-Type": "application/json"})
    assert answer.status_code == 400
    assert client.get("/api/v1/state").get_json()["day_start"] == before


def test_a_restart_keeps_the_new_day(tmp_path: Path) -> None:
    config = AppConfig(testing=True, data_dir=tmp_path / "data", host_pin=PIN, runner="inline")
    app = create_app(config)
    client = app.test_client()
    host = client.post("/api/v1/host", json={"pin": PIN}).get_json()["token"]
    start = client.post("/api/v1/host/new-day", headers=auth(host)).get_json()["day_start"]
    app.extensions["kalimambo"].close()
    again = create_app(config)
    try:
        assert again.test_client().get("/api/v1/state").get_json()["day_start"] == start
    finally:
        again.extensions["kalimambo"].close()


def test_stats_follow_a_last_round_taken_back_and_played_again(client: Any,
                                                               host_token: str) -> None:
    """A finished game undone and finished otherwise counts as it ended the second time."""
    tokens = {name: client.post("/api/v1/join", json={"name": name}).get_json()["token"]
              for name in ("Ana", "Ben", "Caro")}
    setup = {"rhino": 0, "order": ["Ana", "Ben", "Caro"], "dung": [14, 18, 22]}
    assert client.post("/api/v1/host/start", json={"setup": setup},
                       headers=auth(host_token)).status_code == 200
    order = {"Ana": list(range(12)), "Ben": list(range(11, -1, -1)),
             "Caro": [5, 6, 4, 7, 3, 8, 2, 9, 1, 10, 0, 11]}

    def play(rounds: range, cards: dict[str, list[int]]) -> None:
        for number in rounds:
            for name, token in tokens.items():
                answer = client.post("/api/v1/pick", headers=auth(token),
                                     json={"round": number, "card": cards[name][number - 1]})
                assert answer.status_code == 200, answer.get_json()
            end_playback(client)

    def recomputed() -> dict[str, dict[str, int]]:
        record = client.get("/api/v1/record").get_json()
        return causes_by_replay(record)

    def shown() -> dict[str, dict[str, int]]:
        players = client.get("/api/v1/stats").get_json()["players"]
        return {p["name"]: {k: p[k] for k in ("rammed", "dung", "for_kali")}
                for p in players}

    play(range(1, 13), order)
    first = shown()
    assert first == recomputed()
    for _ in range(2):
        assert client.post("/api/v1/host/undo", headers=auth(host_token)).status_code == 200
    assert client.get("/api/v1/stats").get_json()["games"] == 0
    swapped = {name: cards[:10] + cards[10:][::-1] for name, cards in order.items()}
    play(range(11, 13), swapped)
    assert shown() == recomputed()
    assert shown() != first, "the replayed ending should change somebody's figures"
