"""The table's end of the lights socket, against a hand-driven fake lights process on a
real Unix socket: what the table sends, what it does with status, frames and button
commands, and that it plays on when the lights process goes away or stops reading."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.http.app import create_app
from kalimambo.web.http.appconfig import AppConfig
from tests.helpers import wait_for
from tests.lights_peers import PROTOCOL, Peer, connect_lights

FRAME = [[9, 8, 7]] * 32


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def socket_path(tmp_path: Path) -> str:
    return str(tmp_path / "lights.sock")


@pytest.fixture
def table(tmp_path: Path, socket_path: str) -> Iterator[Any]:
    app = create_app(AppConfig(testing=True, data_dir=tmp_path / "data", host_pin="1234",
                               runner="inline", join_url="http://192.0.2.1/",
                               lights_socket=socket_path))
    yield app
    app.extensions["kalimambo"].close()


@pytest.fixture
def lights(socket_path: str, table: Any) -> Iterator[Peer]:
    peer = connect_lights(socket_path, FRAME)
    peer.expect("view")
    yield peer
    peer.close()


def state(client: Any) -> dict[str, Any]:
    result: dict[str, Any] = client.get("/api/v1/state").json
    return result


def status(peer: Peer, **fields: Any) -> None:
    peer.send({"type": "status", "backend": "sim", "ok": True, "error": None,
               "playing": False, **fields})


def start_three(client: Any) -> tuple[dict[str, str], list[str]]:
    host = bearer(client.post("/api/v1/host", json={"pin": "1234"}).json["token"])
    tokens = [client.post("/api/v1/join", json={"name": n}).json["token"]
              for n in ("Ana", "Ben", "Caro")]
    assert client.post("/api/v1/host/start", json={}, headers=host).status_code == 200
    return host, tokens


def test_a_new_lights_process_gets_hello_and_the_whole_current_view(
        table: Any, socket_path: str) -> None:
    client = table.test_client()
    client.post("/api/v1/join", json={"name": "Ana"})
    peer = connect_lights(socket_path)
    hello = peer.expect("hello")
    assert hello["protocol"] == PROTOCOL and hello["role"] == "table"
    view = peer.expect("view")
    assert [s["name"] for s in view["view"]["seats"]] == ["Ana"]
    assert wait_for(lambda: peer.view == state(client))  # its coming is told by patch
    types = [m["type"] for m in peer.messages]
    assert types.index("hello") < types.index("view")
    client.post("/api/v1/join", json={"name": "Ben"})
    now = state(client)
    patched = peer.expect_view(lambda view: view["version"] == now["version"])
    # then what changed: the event stream's own patch, the same view after it
    assert patched["type"] == "patch" and patched["now"] == now
    assert patched["happened"] == [{"type": "seats_changed", "seats": ["Ana", "Ben"]}]
    peer.close()


def test_every_step_reaches_the_lights_with_what_happened(table: Any, lights: Peer
                                                           ) -> None:
    """The lights draw step k when the table's cursor reaches it: each step's patch says
    so in ``happened``, where its events are in ``playback.shown`` and for how long the
    table shows it; the lights' view after each patch is the table's."""
    client = table.test_client()
    host, tokens = start_three(client)
    client.post("/api/v1/host/settings", json={"pacing": "step", "pause_ms": 300},
                headers=host)
    for card, token in enumerate(tokens):
        assert client.post("/api/v1/pick", json={"round": 1, "card": card},
                           headers=bearer(token)).status_code == 200
    view = state(client)
    assert view["playback"]["step"] == 0
    last = lights.expect_view(lambda now: now["version"] == view["version"])
    assert last["type"] == "patch" and last["now"] == view
    assert [e["type"] for e in last["happened"]] == ["pick_made", "round_resolved"]
    client.post("/api/v1/host/next", headers=host)
    view = state(client)
    shown = lights.expect_view(lambda now: now["version"] == view["version"])
    assert shown["now"] == view and view["playback"]["step"] == 1
    step, = shown["happened"]
    assert step == {"type": "step_shown", "round": 1, "step": 1, "kind": "reveal",
                    "first": 0, "count": 1, "seconds": 0.3}
    assert [e["type"] for e in view["playback"]["shown"]] == ["reveal"]
    sizes = [len(json.dumps({k: v for k, v in m.items() if k != "now"},  # (the peer's own)
                            separators=(",", ":"))) for m in lights.of("patch")]
    assert sizes and max(sizes) < 2048


def test_status_reaches_the_view_and_frames_the_leds_endpoint(table: Any,
                                                               lights: Peer) -> None:
    client = table.test_client()
    shown = state(client)["lights"]
    assert shown["connected"] is True and shown["ok"] is False  # no status yet
    status(lights)
    assert wait_for(lambda: state(client)["lights"]["ok"] is True)
    assert state(client)["lights"]["backend"] == "sim"
    status(lights, ok=False, error="strip unplugged")
    assert wait_for(lambda: state(client)["lights"]["error"] == "strip unplugged")
    # a lights process that sends no "seen" (an older one): the frame as sent, twice
    assert client.get("/api/v1/leds").json == {"leds": FRAME, "seen": FRAME}
    assert lights.of("watch"), "the table asks for frames only when someone wants them"


def test_the_power_watch_reaches_the_view(table: Any, lights: Peer) -> None:
    """The lights' ``power`` (firmware/power.py) is the view's ``lights.power``, with the
    keys and types API.md promises; a lights process that sends none: null."""
    client = table.test_client()
    status(lights)
    assert wait_for(lambda: state(client)["lights"]["ok"] is True)
    assert state(client)["lights"]["power"] is None
    power = {"pi": "low", "pi_sags": 1, "throttled": None, "supply_ma": 300,
             "asked_ma": 2000, "dimming": True}
    status(lights, power={**power, "surprise": "dropped"})
    assert wait_for(lambda: state(client)["lights"]["power"] == power)
    status(lights, power={"pi": "melting", "asked_ma": "lots", "dimming": 1})
    assert wait_for(lambda: state(client)["lights"]["power"] == {
        "pi": "unknown", "pi_sags": 0, "throttled": None, "supply_ma": 0, "asked_ma": 0,
        "dimming": False})


def test_button_commands_play_on_the_table(table: Any, lights: Peer) -> None:
    client = table.test_client()
    _host, tokens = start_three(client)
    client.post("/api/v1/host/settings", json={"pacing": "step"}, headers=_host)
    for card, token in zip((11, 7, 3), tokens, strict=True):
        client.post("/api/v1/pick", json={"round": 1, "card": card}, headers=bearer(token))
    assert state(client)["phase"] == "playing"
    lights.send({"type": "command", "name": "next"})
    assert wait_for(lambda: state(client)["playback"]["step"] == 1)
    lights.send({"type": "command", "name": "undo"})  # undo works mid-playback
    assert wait_for(lambda: state(client)["phase"] == "picking")
    assert state(client)["history"] == [] and state(client)["undone"] == 1
    assert state(client)["round"] == 1
    game_id = state(client)["game_id"]
    lights.send({"type": "command", "name": "new_game"})
    assert wait_for(lambda: state(client)["phase"] == "lobby")
    assert state(client)["game_id"] != game_id
    assert len(state(client)["seats"]) == 3  # the seats stay
    lights.send({"type": "command", "name": "self_destruct"})  # unknown: ignored
    lights.send({"type": "command", "name": "undo"})  # nothing to undo: refused, logged
    assert lights.expect_view(lambda now: now["phase"] == "lobby")
    assert state(client)["phase"] == "lobby"


def test_host_retry_goes_to_the_lights(table: Any, lights: Peer) -> None:
    client = table.test_client()
    host = bearer(client.post("/api/v1/host", json={"pin": "1234"}).json["token"])

    def answer_retry(peer: Peer, message: dict[str, Any]) -> None:
        if message["type"] == "retry":
            status(peer, backend="ws281x", ok=True)

    lights.on_message = answer_retry
    answer = client.post("/api/v1/host/lights/retry", json={}, headers=host)
    assert answer.status_code == 200, answer.json
    assert answer.json["ok"] is True and answer.json["backend"] == "ws281x"


def test_the_table_plays_on_when_the_lights_process_goes(table: Any, lights: Peer,
                                                         socket_path: str) -> None:
    client = table.test_client()
    status(lights)
    assert wait_for(lambda: state(client)["lights"]["ok"] is True)
    lights.close()
    assert wait_for(lambda: state(client)["lights"]["connected"] is False)
    shown = state(client)["lights"]
    assert shown["ok"] is False and "not connected" in shown["error"]
    assert client.get("/api/v1/leds").json["leds"] == [[0, 0, 0]] * 32
    host, tokens = start_three(client)
    for card, token in enumerate(tokens):
        assert client.post("/api/v1/pick", json={"round": 1, "card": card},
                           headers=bearer(token)).status_code == 200
    answer = client.post("/api/v1/host/skip", json={}, headers=host)
    assert answer.status_code == 200 and answer.json["step"] == answer.json["steps"]
    answer = client.post("/api/v1/host/lights/retry", json={}, headers=host)
    assert answer.status_code == 409 and "not running" in answer.json["error"]["message"]

    again = connect_lights(socket_path, FRAME)  # back: it gets the game as it is now
    view = again.expect("view")["view"]
    assert view["phase"] == "picking" and view["positions"] == state(client)["positions"]
    # (its coming is told in a patch of its own, which may come before or after this read)
    assert wait_for(lambda: again.view == state(client))
    status(again)
    assert wait_for(lambda: state(client)["lights"]["ok"] is True)
    again.close()


def test_a_lights_process_that_stops_reading_is_dropped_not_waited_for(
        table: Any, socket_path: str) -> None:
    client = table.test_client()
    host = bearer(client.post("/api/v1/host", json={"pin": "1234"}).json["token"])
    stuck = connect_lights(socket_path)
    stuck.expect("view")
    stuck.sock.setsockopt(1, 8, 4096)  # SO_RCVBUF: a small buffer fills sooner
    stuck.on_message = lambda peer, message: peer.closed.wait()  # never reads again

    pause = 100
    while state(client)["lights"]["connected"]:
        pause = pause + 1 if pause < 10_000 else 100
        assert client.post("/api/v1/host/settings", json={"pause_ms": pause},
                           headers=host).status_code == 200
    # Dropped for falling behind, or (on a very busy machine, before the queue fills)
    # for its silence: either way the table went on without waiting for it.
    error = state(client)["lights"]["error"]
    assert "behind" in error or "not connected" in error, error
    stuck.close()


def test_a_lights_process_of_another_protocol_is_told_and_dropped(
        table: Any, socket_path: str) -> None:
    peer = connect_lights(socket_path, protocol=99)
    error = peer.expect("error")
    assert "protocol 99" in error["message"]
    assert peer.closed.wait(10)
    assert not peer.of("view")


def test_without_a_lights_socket_the_view_says_lights_off(client: Any) -> None:
    lights = client.get("/api/v1/state").json["lights"]
    assert lights["backend"] == "off" and lights["ok"] is False
    assert "--lights off" in lights["error"]
    assert json.loads(client.get("/api/v1/leds").data)["leds"] == [[0, 0, 0]] * 32


def test_a_socket_that_cannot_be_made_leaves_the_table_serving(tmp_path: Path) -> None:
    app = create_app(AppConfig(testing=True, data_dir=tmp_path / "data", host_pin="1234",
                               lights_socket=str(tmp_path / "missing" / "lights.sock")))
    lights = app.test_client().get("/api/v1/state").json["lights"]
    assert lights["ok"] is False and "cannot listen" in lights["error"]
    app.extensions["kalimambo"].close()
