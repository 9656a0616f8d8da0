"""Lights and event-stream plumbing: every change reaches the strip and the streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kalimambo.web.app import create_app


class RecordingLights:
    """A stand-in strip that remembers what the table told it."""

    def __init__(self) -> None:
        self.updates: list[tuple[dict[str, Any], list[dict[str, Any]] | None]] = []
        self.pacing: tuple[str, int] | None = None
        self.steps = 0
        self.retries = 0

    def update(self, view: dict[str, Any], new_events: list[dict[str, Any]] | None = None
               ) -> None:
        self.updates.append((view, new_events))

    def next_step(self) -> None:
        self.steps += 1

    def set_pacing(self, mode: str, pause_ms: int) -> None:
        self.pacing = (mode, pause_ms)

    def frame(self) -> list[tuple[int, int, int]]:
        return [(len(self.updates) % 256, 1, 2)] * 4

    def status(self) -> dict[str, Any]:
        return {"backend": "test", "ok": self.retries > 0, "error": None if self.retries
                else "unplugged", "playing": False}

    def retry(self) -> None:
        self.retries += 1

    def close(self) -> None:
        pass


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_every_change_reaches_the_lights_with_the_rounds_events(tmp_path: Path) -> None:
    lights = RecordingLights()
    app = create_app({"DATA_DIR": str(tmp_path), "HOST_PIN": "1234", "RUNNER": "inline",
                      "JOIN_URL": "http://192.0.2.1/", "LIGHTS": lights})
    client = app.test_client()
    host = bearer(client.post("/api/v1/host", json={"pin": "1234"}).json["token"])
    view = client.get("/api/v1/state").json
    assert view["lights"]["backend"] == "test" and view["lights"]["error"] == "unplugged"
    tokens = [client.post("/api/v1/join", json={"name": n}).json["token"]
              for n in ("Ana", "Ben", "Caro")]
    client.post("/api/v1/host/start", json={}, headers=host)
    for i, token in enumerate(tokens):
        client.post("/api/v1/pick", json={"round": 1, "card": i}, headers=bearer(token))
    last_view, events = lights.updates[-1]
    assert events is not None and events[0]["type"] == "reveal"
    assert last_view == client.get("/api/v1/state").json
    assert all(e is None for _, e in lights.updates[:-1])
    assert client.get("/api/v1/leds").json == {"leds": [[len(lights.updates) % 256, 1, 2]] * 4}
    client.post("/api/v1/host/settings", json={"pacing": "step", "pause_ms": 300},
                headers=host)
    assert lights.pacing == ("step", 300)
    client.post("/api/v1/host/lights/next", headers=host)
    assert lights.steps == 1
    answer = client.post("/api/v1/host/lights/retry", headers=host).json
    assert lights.retries == 1 and answer["ok"] is True and answer["error"] is None
    assert client.get("/api/v1/state").json["lights"]["ok"] is True
    app.extensions["kalimambo"].close()


def test_stream_sends_the_snapshot_at_once_then_heartbeats(client: Any) -> None:
    response = client.get("/api/v1/events", buffered=False)
    chunks = iter(response.response)
    first = next(chunks)
    assert b"data: " in first and b'"phase":"lobby"' in first
    assert response.headers["Cache-Control"] == "no-cache"
    assert next(chunks) == b": heartbeat\n\n"  # HEARTBEAT is 0.2 s in the fixture
    response.close()
    assert client.application.extensions["kalimambo"].broadcaster.clients == 0


def test_a_slow_stream_keeps_only_the_newest_views(client: Any, host_token: str) -> None:
    from kalimambo.web.events import QUEUE_SIZE

    response = client.get("/api/v1/events", buffered=False)
    chunks = iter(response.response)
    next(chunks)
    for pause in range(200, 200 + 3 * QUEUE_SIZE):
        client.post("/api/v1/host/settings", json={"pause_ms": pause},
                    headers=bearer(host_token))
    newest = client.get("/api/v1/state").json["version"]
    messages = []
    while (chunk := next(chunks)) != b": heartbeat\n\n":
        messages.append(chunk)
    response.close()
    assert len(messages) == QUEUE_SIZE
    assert messages[-1].startswith(b"id: %d\n" % newest)
