"""Event-stream plumbing: every change reaches the streams (the lights: test_lights_link.py)."""

from __future__ import annotations

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
    assert 1 <= len(messages) <= QUEUE_SIZE
    assert messages[-1].startswith(b"id: %d\ndata: {" % newest)  # whole, not a patch
    assert b'"version":%d' % newest in messages[-1]
