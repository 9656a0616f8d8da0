"""Event-stream plumbing: every change reaches the streams (the lights: test_lights_link.py)."""

from __future__ import annotations

import json
from typing import Any


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_stream_sends_the_snapshot_at_once_then_heartbeats(client: Any) -> None:
    response = client.get("/api/v1/events", buffered=False)
    chunks = iter(response.response)
    first = next(chunks)
    assert b"data: " in first and b'"phase":"lobby"' in first
    assert response.headers["Cache-Control"] == "no-cache"
    assert next(chunks) == b": heartbeat\n\n"  # HEARTBEAT is 0.2 s in the fixture
    response.close()
    assert client.application.extensions["kalimambo"].broadcaster.clients == 0


def test_a_slow_stream_gets_the_whole_view_again(client: Any, host_token: str) -> None:
    """A client that fell behind is sent the newest whole view, not the patches it
    missed (which it could not apply any more)."""
    from kalimambo.web.live.stream import QUEUE_SIZE

    response = client.get("/api/v1/events?patches=1", buffered=False)
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
    assert 1 <= len(messages) <= QUEUE_SIZE
    assert messages[-1].startswith(b"id: %d\ndata: {" % newest)  # whole, not a patch
    assert b'"version":%d' % newest in messages[-1]


def whole_views(chunks: Any, count: int) -> list[dict[str, Any]]:
    """The next ``count`` messages of a stream, each read as the whole view it must be."""
    views = []
    while len(views) < count:
        chunk = next(chunks)
        if chunk.startswith(b":"):
            continue  # a heartbeat
        assert b"event:" not in chunk  # a plain message: what any SSE client listens to
        data = next(line for line in chunk.split(b"\n") if line.startswith(b"data: "))
        views.append(json.loads(data[6:]))
    return views


def test_a_plain_stream_sends_the_whole_public_view_at_every_change(
        client: Any, host_token: str) -> None:
    """Any SSE client (an EventSource's onmessage, a scoreboard of a club's own): the
    whole public view at once and after every change, as GET /state answers it then;
    the table's own pages ask for patches (?patches=1)."""
    response = client.get("/api/v1/events", buffered=False)
    chunks = iter(response.response)
    first, = whole_views(chunks, 1)
    assert first == client.get("/api/v1/state").json
    ana = client.post("/api/v1/join", json={"name": "Ana"}).json["token"]
    client.post("/api/v1/join", json={"name": "Ben"})
    joined = whole_views(chunks, 2)
    response.close()
    assert [[s["name"] for s in view["seats"]] for view in joined] == [["Ana"], ["Ana", "Ben"]]
    assert [view["version"] for view in joined] == [first["version"] + 1,
                                                    first["version"] + 2]
    assert joined[-1] == client.get("/api/v1/state").json
    # a seat's plain stream: its own view, whole, at every change; never another's hand
    seat = client.get(f"/api/v1/events?token={ana}", buffered=False)
    chunks = iter(seat.response)
    own, = whole_views(chunks, 1)
    client.post("/api/v1/join", json={"name": "Caro"})
    assert client.post("/api/v1/host/start", json={},
                       headers=bearer(host_token)).status_code == 200
    _, started = whole_views(chunks, 2)
    seat.close()
    assert own["me"]["name"] == "Ana" and started["phase"] == "picking"
    assert started["me"]["hand"] == list(range(12)) and "happened" not in started
