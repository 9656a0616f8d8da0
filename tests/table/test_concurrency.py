"""Seven seats picking at the same instant resolve the round exactly once."""

from __future__ import annotations

import random
import threading
from typing import Any

from kalimambo.web.core.happenings import RoundResolved
from kalimambo.web.table.publisher import Change
from tests.helpers import end_playback

NAMES = ["Ana", "Ben", "Caro", "Dan", "Eva", "Finn", "Gina"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_seven_simultaneous_picks_resolve_each_round_once(app: Any, client: Any,
                                                          host_token: str) -> None:
    tokens = {n: client.post("/api/v1/join", json={"name": n}).json["token"] for n in NAMES}
    assert client.post("/api/v1/host/start", json={},
                       headers=bearer(host_token)).status_code == 200
    table = app.extensions["kalimambo"].table
    resolved: list[int] = []
    table.listeners.append(lambda change: resolved.extend(
        event.played.round for event in change.happened if isinstance(event, RoundResolved)))
    hands = {n: list(range(12)) for n in NAMES}
    rng = random.Random(11)
    for n in NAMES:
        rng.shuffle(hands[n])
    for round_no in range(1, 13):
        barrier = threading.Barrier(len(NAMES))
        answers: dict[str, Any] = {}

        def pick(name: str, round_no: int = round_no, barrier: Any = barrier,
                 answers: dict[str, Any] = answers) -> None:
            own = app.test_client()
            barrier.wait()
            response = own.post("/api/v1/pick",
                                json={"round": round_no, "card": hands[name][round_no - 1]},
                                headers=bearer(tokens[name]))
            answers[name] = (response.status_code, response.json)

        threads = [threading.Thread(target=pick, args=(n,)) for n in NAMES]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert all(status == 200 for status, _ in answers.values()), answers
        assert sum(body["resolved"] for _, body in answers.values()) == 1
        end_playback(table)
    assert resolved == list(range(1, 13))
    record = client.get("/api/v1/record").json
    assert [r["cards"] for r in record["rounds"]] == [
        {n: hands[n][i] for n in NAMES} for i in range(12)]
    assert client.get("/api/v1/state").json["phase"] == "finished"


def test_picks_racing_with_changes_keep_the_last_acknowledged(app: Any, client: Any,
                                                              host_token: str) -> None:
    """Many threads change picks at once; the round holds exactly the last answer each."""
    tokens = {n: client.post("/api/v1/join", json={"name": n}).json["token"]
              for n in NAMES[:4]}
    client.post("/api/v1/host/start", json={}, headers=bearer(host_token))
    changes: list[Change] = []
    app.extensions["kalimambo"].table.listeners.append(changes.append)
    barrier = threading.Barrier(3)
    last: dict[str, int] = {}
    guard = threading.Lock()

    def churn(name: str) -> None:
        own = app.test_client()
        barrier.wait()
        for card in random.Random(name).sample(range(12), 12):
            response = own.post("/api/v1/pick", json={"round": 1, "card": card},
                                headers=bearer(tokens[name]))
            assert response.status_code == 200
            with guard:
                last[name] = card

    threads = [threading.Thread(target=churn, args=(n,)) for n in NAMES[:3]]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(last) == 3
    for name in NAMES[:3]:
        assert client.get("/api/v1/me", headers=bearer(tokens[name])).json["me"]["pick"] == \
            last[name]
    client.post("/api/v1/pick", json={"round": 1, "card": 5}, headers=bearer(tokens["Dan"]))
    end_playback(client)
    cards = client.get("/api/v1/state").json["last_round"]["cards"]
    assert cards == {**last, "Dan": 5}
    versions = [c.version for c in changes]
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
