"""The board's buttons drive the real table: next steps the strip, hold undoes, long hold
restarts (gpiozero's MockFactory as the pins)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from kalimambo.firmware.board import parse_board
from kalimambo.web.app import create_app
from tests.helpers import wait_for


@pytest.fixture
def pins() -> Iterator[MockFactory]:
    factory = MockFactory()
    yield factory
    factory.reset()


@pytest.fixture
def table_app(tmp_path: Path, pins: MockFactory) -> Iterator[Any]:
    board = parse_board({"buttons": {"next": 17, "undo": 27, "undo_hold_s": 0.15,
                                     "new_game_hold_s": 0.5},
                         "animation": {"pacing": "step"}})
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "HOST_PIN": "1234",
                      "STRIP": "sim", "RUNNER": "inline", "BOARD": board,
                      "PIN_FACTORY": pins, "JOIN_URL": "http://192.0.2.10:8000/"})
    yield app
    app.extensions["kalimambo"].close()


def play_one_round(client: Any) -> None:
    tokens = [client.post("/api/v1/join", json={"name": n}).get_json()["token"]
              for n in ("Ana", "Ben", "Caro")]
    host = client.post("/api/v1/host", json={"pin": "1234"}).get_json()["token"]
    assert client.post("/api/v1/host/start", json={},
                       headers={"Authorization": f"Bearer {host}"}).status_code == 200
    for token, card in zip(tokens, (11, 7, 3), strict=True):
        answer = client.post("/api/v1/pick", json={"round": 1, "card": card},
                             headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200, answer.get_json()


def test_buttons_step_undo_and_restart_the_table(table_app: Any, pins: MockFactory) -> None:
    client = table_app.test_client()
    service = table_app.extensions["kalimambo"]
    assert service.controls is not None and len(service.controls.buttons) == 2
    play_one_round(client)
    assert client.get("/api/v1/state").get_json()["round"] == 2

    lights = service.lights
    steps = len(lights.show.steps)
    assert steps > 0  # step pacing: the round waits for "next"
    next_pin, undo_pin = pins.pin(17), pins.pin(27)
    next_pin.drive_low()
    next_pin.drive_high()
    assert wait_for(lambda: len(lights.show.steps) < steps)

    undo_pin.drive_low()  # hold past undo_hold_s, release before the long hold
    assert wait_for(lambda: service.controls.buttons[1].held)
    undo_pin.drive_high()
    assert wait_for(lambda: client.get("/api/v1/state").get_json()["round"] == 1)
    state = client.get("/api/v1/state").get_json()
    assert state["history"] == [] and state["phase"] == "picking"

    game_id = state["game_id"]
    undo_pin.drive_low()  # a long hold opens a new lobby, the old game archived
    assert wait_for(lambda: client.get("/api/v1/state").get_json()["phase"] == "lobby")
    undo_pin.drive_high()
    state = client.get("/api/v1/state").get_json()
    assert state["game_id"] != game_id and state["seats"] == []


def test_no_buttons_in_the_board_file_no_gpio(tmp_path: Path) -> None:
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "HOST_PIN": "1234",
                      "STRIP": "sim", "RUNNER": "inline"})
    assert app.extensions["kalimambo"].controls is None
    app.extensions["kalimambo"].close()


def test_computer_players_pick_again_after_a_restart_mid_round(tmp_path: Path) -> None:
    """Power lost after the round opened but before a bot's pick was saved: on restart
    the bot picks, so the game does not stall."""
    import sqlite3

    config = {"TESTING": True, "DATA_DIR": str(tmp_path), "HOST_PIN": "1234",
              "STRIP": "sim", "RUNNER": "inline", "JOIN_URL": "http://192.0.2.10:8000/"}
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
    assert answer.status_code == 200
    assert client.get("/api/v1/state").get_json()["round"] == 2
    app.extensions["kalimambo"].close()


def test_the_view_follows_the_strip_between_changes(table_app: Any, pins: MockFactory) -> None:
    """A "next" press on the board's button, or a strip dying mid-game, reaches the
    public view (and so the host and board pages) without any other change."""
    client = table_app.test_client()
    service = table_app.extensions["kalimambo"]
    play_one_round(client)
    version = client.get("/api/v1/state").get_json()["version"]
    pins.pin(17).drive_low()
    pins.pin(17).drive_high()
    assert wait_for(lambda: client.get("/api/v1/state").get_json()["lights"]
                    ["next_presses"] == 1)
    assert client.get("/api/v1/state").get_json()["version"] > version

    def broken(frame: Any) -> None:
        raise OSError("strip unplugged")

    backend = service.lights.backend
    assert backend is not None
    backend.show = broken
    assert wait_for(lambda: client.get("/api/v1/state").get_json()["lights"]["ok"] is False)
    assert "unplugged" in client.get("/api/v1/state").get_json()["lights"]["error"]
