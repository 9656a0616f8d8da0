"""The table after a restart mid-round.  (The board's buttons reach the table as commands
over the lights socket: tests/firmware/test_agent.py and tests/live/test_lights_link.py.)"""

from __future__ import annotations

from pathlib import Path

from kalimambo.web.http.app import create_app
from kalimambo.web.http.appconfig import AppConfig
from tests.helpers import end_playback


def test_computer_players_pick_again_after_a_restart_mid_round(tmp_path: Path) -> None:
    """Power lost after the round opened but before a bot's pick was saved: on restart
    the bot picks, so the game does not stall."""
    import sqlite3

    config = AppConfig(testing=True, data_dir=tmp_path, host_pin="1234", runner="inline",
                       join_url="http://192.0.2.10:8000/")
    app = create_app(config)
    client = app.test_client()
    token = client.post("/api/v1/join", json={"name": "Ana"}).get_json()["token"]
    host = {"Authorization": "Bearer " + client.post(
        "/api/v1/host", json={"pin": "1234"}).get_json()["token"]}
    assert client.post("/api/v1/host/bots", json={"count": 2, "level": "random"},
                       headers=host).status_code in (200, 201)
    assert client.post("/api/v1/host/start", json={}, headers=host).status_code == 200
    seats = client.get("/api/v1/state").get_json()["seats"]
    assert [s["picked"] for s in seats if s["bot"]] == [True, True]
    app.extensions["kalimambo"].close()

    with sqlite3.connect(tmp_path / "kalimambo.sqlite3") as db:
        assert db.execute("DELETE FROM picks").rowcount == 2

    app = create_app(config)
    client = app.test_client()
    seats = client.get("/api/v1/state").get_json()["seats"]
    assert [s["picked"] for s in seats if s["bot"]] == [True, True]
    answer = client.post("/api/v1/pick", json={"round": 1, "card": 5},
                         headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200 and answer.get_json()["resolved"] is True
    end_playback(client)
    assert client.get("/api/v1/state").get_json()["round"] == 2
    app.extensions["kalimambo"].close()
