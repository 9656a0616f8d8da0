"""Secrecy: while a round is open nobody but the picker can tell what was picked.

The strong form: two tables that differ only in one seat's pick must look exactly
the same (apart from ``version``) through the public view, every other seat's
``/me`` and the event stream.
"""

from __future__ import annotations

import copy
from typing import Any

import orjson

from kalimambo.firmware.wire import apply_patch as apply

NAMES = ["Ana", "Ben", "Caro"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def without_version(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k != "version"}


def join_and_start(client: Any, host_token: str) -> dict[str, str]:
    tokens = {n: client.post("/api/v1/join", json={"name": n}).json["token"] for n in NAMES}
    setup = {"rhino": 0, "order": NAMES, "dung": [10, 20]}
    response = client.post("/api/v1/host/start", json={"setup": setup},
                           headers=bearer(host_token))
    assert response.status_code == 200
    return tokens


class Stream:
    """Reads SSE messages from a test-client response: the whole view first, then
    patches applied to it (``kalimambo.web.core.viewdiff``), one view at a time."""

    def __init__(self, client: Any, token: str | None = None) -> None:
        url = "/api/v1/events?patches=1" + (f"&token={token}" if token else "")
        self.response = client.get(url, buffered=False)
        assert self.response.status_code == 200
        assert self.response.mimetype == "text/event-stream"
        self.chunks = iter(self.response.response)
        self.buffer = b""
        self.view: dict[str, Any] | None = None
        self.sizes: list[int] = []

    def next_view(self) -> dict[str, Any]:
        while b"\n\n" not in self.buffer:
            self.buffer += next(self.chunks)
        block, self.buffer = self.buffer.split(b"\n\n", 1)
        data = [line[6:] for line in block.split(b"\n") if line.startswith(b"data: ")]
        if not data:  # a heartbeat comment or the retry line alone
            return self.next_view()
        self.sizes.append(len(block))
        if b"event: patch" in block.split(b"\n"):
            assert self.view is not None
            apply(self.view, orjson.loads(data[0])["patch"])
        else:
            self.view = orjson.loads(data[0])
        assert self.view is not None
        return copy.deepcopy(self.view)

    def close(self) -> None:
        self.response.close()


def test_a_changed_pick_changes_nothing_anyone_else_sees(client: Any, host_token: str) -> None:
    tokens = join_and_start(client, host_token)
    ana, ben = bearer(tokens["Ana"]), bearer(tokens["Ben"])
    stream = Stream(client)
    stream.next_view()
    seen = []
    for card in (3, 9, 0, 11):
        assert client.post("/api/v1/pick", json={"round": 1, "card": card},
                           headers=ana).status_code == 200
        streamed = stream.next_view()
        public = client.get("/api/v1/state").json
        other = client.get("/api/v1/me", headers=ben).json
        assert client.get("/api/v1/me", headers=ana).json["me"]["pick"] == card
        assert streamed == public
        seen.append((without_version(public), without_version(other)))
    stream.close()
    assert all(item == seen[0] for item in seen), "a view depends on Ana's card"
    public, other = seen[0]
    assert [s["picked"] for s in public["seats"]] == [True, False, False]
    assert other["me"]["pick"] is None


def test_seat_entries_hold_only_whether(client: Any, host_token: str) -> None:
    tokens = join_and_start(client, host_token)
    client.post("/api/v1/pick", json={"round": 1, "card": 7}, headers=bearer(tokens["Ana"]))
    seat = client.get("/api/v1/state").json["seats"][0]
    assert set(seat) == {"id", "name", "colour", "bot", "bot_level", "hosted", "connected",
                         "picked", "minus_points"}
    assert client.get("/api/v1/record").json["rounds"] == []


def test_the_reveal_shows_every_card_and_kalis(client: Any, host_token: str) -> None:
    """The stream follows the playback step by step; the round's outcome (its history
    entry, the next round) appears only once the cursor reaches the last step, and
    the patched views are exactly the table's views."""
    client.post("/api/v1/host/settings", json={"pacing": "step"},
                headers=bearer(host_token))
    tokens = join_and_start(client, host_token)
    stream = Stream(client)
    stream.next_view()
    for name, card in zip(NAMES, (4, 8, 2), strict=True):
        client.post("/api/v1/pick", json={"round": 1, "card": card}, headers=bearer(tokens[name]))
    views = [stream.next_view() for _ in range(3)]
    table = client.application.extensions["kalimambo"].table
    assert views[-1] == table.public_view()
    assert views[-1]["phase"] == "playing" and views[-1]["playback"]["step"] == 0
    while views[-1]["phase"] == "playing":
        playback = views[-1]["playback"]
        assert views[-1]["history"] == [] and views[-1]["round"] == 1
        if playback["step"] == playback["steps"]:  # the last step has its own message;
            views.append(stream.next_view())       # the end follows by itself,
            end = views[-1]                          # with the round's closing event
            assert [e["type"] for e in end["playback"]["shown"][len(playback["shown"]):]] \
                == ["round_end"]
            assert end["playback"] == {**playback, "shown": end["playback"]["shown"]}
            assert end["phase"] == "picking"
            assert views[-1] == table.public_view()
            break
        assert not any(s["minus_points"] for s in views[-1]["seats"]) or playback["step"]
        client.post("/api/v1/host/next", headers=bearer(host_token))
        views.append(stream.next_view())
        assert views[-1]["playback"]["step"] == playback["step"] + 1
        if views[-1]["playback"]["step"] < playback["steps"]:  # else the end came already
            assert views[-1] == table.public_view()
    stream.close()
    reveal = views[-1]
    assert reveal["playback"]["step"] == reveal["playback"]["steps"]
    assert views[3]["playback"]["current"]["kind"] == "reveal"
    assert reveal["round"] == 2
    assert reveal["last_round"]["cards"] == {"Ana": 4, "Ben": 8, "Caro": 2}
    assert reveal["last_round"]["kali"] in range(12)
    assert reveal["last_round"]["events"][0] == {
        "type": "reveal", "round": 1, "cards": {"Ana": 4, "Ben": 8, "Caro": 2},
        "kali": reveal["last_round"]["kali"]}
    assert reveal["last_round"]["events"][-1]["type"] == "round_end"
    assert [v["version"] for v in views] == sorted({v["version"] for v in views})


def test_stream_with_a_token_marks_the_seat_connected(client: Any, host_token: str) -> None:
    tokens = join_and_start(client, host_token)
    watcher = Stream(client)
    first = watcher.next_view()
    assert [s["connected"] for s in first["seats"]] == [False, False, False]
    phone = Stream(client, tokens["Ben"])
    phone.next_view()
    assert [s["connected"] for s in watcher.next_view()["seats"]] == [False, True, False]
    phone.close()
    assert [s["connected"] for s in watcher.next_view()["seats"]] == [False, False, False]
    watcher.close()
    broadcaster = client.application.extensions["kalimambo"].broadcaster
    assert broadcaster.clients == 0
