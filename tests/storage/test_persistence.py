"""Nothing lost: a real server killed with SIGKILL, restarted on the same data dir.

Each kill takes down the whole process group (gunicorn master and worker) at once,
like a pulled plug; the restarted table must be exactly where it was: seats and
tokens valid, acknowledged picks there, resolved rounds there, and the game plays on
to an end that equals its own record resolved.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.helpers import assert_view_matches_replay

NAMES = ["Ana", "Ben", "Caro", "Dan"]
SETUP = {"rhino": 3, "order": ["Dan", "Caro", "Ben", "Ana"], "dung": [12, 17, 22, 27]}


def test_kill_nine_at_several_points_loses_nothing(start_server: Callable[..., Any],
                                                   tmp_path: Path, http: Any) -> None:
    data = tmp_path / "data"
    server = start_server(data)

    def restart() -> Any:
        nonlocal server
        server.kill()
        server = start_server(data, port=server.port)
        return server

    tokens = {}
    for name in NAMES:
        status, body = http("POST", f"{server.url}/api/v1/join", {"name": name})
        assert status == 201
        tokens[name] = body["token"]
    _, lobby = http("GET", f"{server.url}/api/v1/state")
    _, host = http("POST", f"{server.url}/api/v1/host", {"pin": server.pin})
    host_token = host["token"]
    # step pacing: a playback waits at its first step until the host skips it
    http("POST", f"{server.url}/api/v1/host/settings", {"pacing": "step"}, token=host_token)

    # 1. Killed right after the joins: seats, colours, tokens and the host token survive.
    restart()
    _, view = http("GET", f"{server.url}/api/v1/state")
    assert view["seats"] == lobby["seats"]
    assert view["version"] > lobby["version"]
    for name, token in tokens.items():
        status, me = http("GET", f"{server.url}/api/v1/me", token=token)
        assert status == 200 and me["me"]["name"] == name
    status, _ = http("POST", f"{server.url}/api/v1/host/start", {"setup": SETUP},
                     token=host_token)
    assert status == 200

    rng = random.Random(4)
    hands = {n: rng.sample(range(12), 12) for n in NAMES}
    sent: list[dict[str, int]] = []
    for round_no in range(1, 13):
        cards = {n: hands[n][round_no - 1] for n in NAMES}
        sent.append(cards)
        for i, name in enumerate(NAMES):
            status, answer = http("POST", f"{server.url}/api/v1/pick",
                                  {"round": round_no, "card": cards[name]}, token=tokens[name])
            assert status == 200, answer
            if round_no % 3 == 1 and i == 1:
                # 2. Killed mid-picks: the two acknowledged picks are still there.
                restart()
                _, view = http("GET", f"{server.url}/api/v1/state")
                assert view["round"] == round_no
                assert [s["picked"] for s in view["seats"]] == [True, True, False, False]
                for done in NAMES[:2]:
                    _, me = http("GET", f"{server.url}/api/v1/me", token=tokens[done])
                    assert me["me"]["pick"] == cards[done]
        assert answer["resolved"] is True
        if round_no % 3 == 2:
            # 3. Killed right after a round resolved: the round is kept, and its
            # playback starts again from its first step.
            restart()
            _, view = http("GET", f"{server.url}/api/v1/state")
            assert view["phase"] == "playing" and view["playback"]["step"] == 0
            assert view["playback"]["round"] == round_no
        http("POST", f"{server.url}/api/v1/host/skip", {}, token=host_token)
        _, view = http("GET", f"{server.url}/api/v1/state")
        assert len(view["history"]) == round_no
        assert view["last_round"]["cards"] == cards
    _, record = http("GET", f"{server.url}/api/v1/record")
    assert [r["cards"] for r in record["rounds"]] == sent
    _, view = http("GET", f"{server.url}/api/v1/state")
    assert view["phase"] == "finished"
    assert_view_matches_replay(view, record)
    # 4. And after the end, still the same finished game.
    restart()
    _, again = http("GET", f"{server.url}/api/v1/state")
    assert without_volatile(again) == without_volatile(view)


def without_volatile(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items()
            if k not in ("version", "lights", "playback", "happened")}


def test_kill_during_a_stream_of_picks_keeps_every_acknowledged_one(
        start_server: Callable[..., Any], tmp_path: Path, http: Any) -> None:
    """Picks flow from a thread; the plug is pulled at an arbitrary moment."""
    data = tmp_path / "data"
    server = start_server(data)
    tokens = {n: http("POST", f"{server.url}/api/v1/join", {"name": n})[1]["token"]
              for n in NAMES}
    host = http("POST", f"{server.url}/api/v1/host", {"pin": server.pin})[1]["token"]
    assert http("POST", f"{server.url}/api/v1/host/start", {"setup": SETUP}, token=host)[0] == 200
    acked: list[tuple[int, str, int]] = []
    stop = threading.Event()

    def pick_on() -> None:
        for round_no in range(1, 13):
            for name in NAMES:
                card = (round_no * 5 + NAMES.index(name)) % 12
                try:
                    status, _ = http("POST", f"{server.url}/api/v1/pick",
                                     {"round": round_no, "card": card}, token=tokens[name],
                                     timeout=5)
                except OSError:
                    return
                if status != 200:
                    return
                acked.append((round_no, name, card))
                if stop.is_set():
                    return
            try:  # the host skips the round's playback
                http("POST", f"{server.url}/api/v1/host/skip", {}, token=host, timeout=5)
            except OSError:
                return

    thread = threading.Thread(target=pick_on)
    thread.start()
    # Kill once a good number of picks are acknowledged (no sleeps: wait on progress).
    deadline = threading.Event()
    while len(acked) < 17 and thread.is_alive():
        deadline.wait(0.001)
    server.kill()
    stop.set()
    thread.join(30)
    assert len(acked) >= 17
    server = start_server(data, port=server.port)
    http("POST", f"{server.url}/api/v1/host/skip", {}, token=host)  # 409 if none plays
    _, record = http("GET", f"{server.url}/api/v1/record")
    _, view = http("GET", f"{server.url}/api/v1/state")
    for round_no, name, card in acked:
        if round_no <= len(record["rounds"]):
            assert record["rounds"][round_no - 1]["cards"][name] == card
        else:
            assert round_no == view["round"]
            _, me = http("GET", f"{server.url}/api/v1/me", token=tokens[name])
            assert me["me"]["pick"] == card
    assert_view_matches_replay(view, record)
