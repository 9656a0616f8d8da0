"""The table and the lights together (the real agent on a real socket, in one process):
after the host starts a game, GET /api/v1/leds on the simulated strip shows every figure,
Mambo and every heap, explorers in distinct colours."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.engine.setup import SAMPLE_NAMES as NAMES
from kalimambo.firmware.agent import LightsAgent
from kalimambo.firmware.hardware import default_hardware
from kalimambo.web.http.app import create_app
from kalimambo.web.http.appconfig import AppConfig
from tests.helpers import wait_for


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def leds_when(client: Any, condition: Any, timeout: float = 30.0) -> list[tuple[int, ...]]:
    """Poll the strip until ``condition(frame)`` holds (the lights run on a thread)."""
    deadline = time.monotonic() + timeout
    while True:
        frame = [tuple(led) for led in client.get("/api/v1/leds").json["leds"]]
        if condition(frame) or time.monotonic() > deadline:
            return frame
        time.sleep(0.02)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    path = str(tmp_path / "lights.sock")
    app = create_app(AppConfig(testing=True, data_dir=tmp_path / "data", host_pin="1234",
                               runner="inline", lights_socket=path,
                               join_url="http://192.0.2.10:8000/"))
    agent = LightsAgent(default_hardware(), "sim", path).start()
    client = app.test_client()
    assert wait_for(lambda: client.get("/api/v1/state").json["lights"]["ok"], timeout=10)
    yield client
    agent.close()
    app.extensions["kalimambo"].close()


@pytest.mark.parametrize("players", [3, 7])
@pytest.mark.slow
def test_after_start_the_strip_shows_every_piece(client: Any, players: int) -> None:
    host_token = client.post("/api/v1/host", json={"pin": "1234"}).json["token"]
    for name in NAMES[:players]:
        assert client.post("/api/v1/join", json={"name": name}).status_code == 201
    response = client.post("/api/v1/host/start", json={}, headers=bearer(host_token))
    assert response.status_code == 200, response.json
    view = client.get("/api/v1/state").json
    # The set-up intro plays first (on the strip's own clock), and every piece blinks
    # where it goes until the host's Done; then the steady picture.
    assert view["placing"]["reason"] == "setup"
    assert client.post("/api/v1/host/placed", json={},
                       headers=bearer(host_token)).status_code == 200
    positions: dict[str, int] = view["positions"]
    pieces = {*positions.values(), view["rhino"], *view["dung"]}
    assert len(view["dung"]) == 6 and view["track_length"] == 32

    def settled(frame: list[tuple[int, ...]]) -> bool:
        """Every piece lit and nothing else, and no piece a mere glow (the intro's and
        the marks' dim low): the steady picture, the figures still to pick breathing."""
        return ({i for i, led in enumerate(frame) if any(led)} == pieces
                and min(max(frame[space]) for space in pieces) >= 8)

    frame = leds_when(client, settled)
    assert len(frame) == 32
    lit = {i for i, led in enumerate(frame) if any(led)}
    assert lit == pieces  # every figure, Mambo and every heap; nothing else
    explorers = [frame[positions[name]] for name in NAMES[:players]]
    assert len(set(explorers)) == players  # distinct colours
    others = {frame[positions["Kali"]], frame[view["rhino"]], *(frame[d] for d in view["dung"]
                                                                 if d not in positions.values())}
    assert not others & set(explorers)  # Kali, Mambo, heaps unlike any explorer
    assert view["lights"]["ok"] and view["lights"]["backend"] == "sim"
