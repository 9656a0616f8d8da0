"""The store and the table's restore, in-process: reopen the data dir, find it all."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from kalimambo.web.http.app import create_app
from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.storage.store import Store
from tests.helpers import end_playback

NAMES = ["Ana", "Ben", "Caro"]


def make(data: Path, **extra: Any) -> Any:
    return create_app(AppConfig(data_dir=data, host_pin="1234", runner="inline",
                                join_url="http://192.0.2.10:8000/", **extra))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def stable(view: dict[str, Any]) -> dict[str, Any]:
    """The view without what a restart may change (the version, the strip, the notice
    of a round just undone, what the last change did)."""
    return {k: v for k, v in view.items()
            if k not in ("version", "lights", "undone", "happened")}


def test_store_uses_wal_and_full_sync(tmp_path: Path) -> None:
    store = Store(tmp_path / "x.sqlite3")
    db = store._db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    store.close()


def test_reopening_restores_everything(tmp_path: Path) -> None:
    data = tmp_path / "data"
    app = make(data)
    client = app.test_client()
    tokens = {n: client.post("/api/v1/join", json={"name": n}).json["token"] for n in NAMES}
    client.post("/api/v1/host/bots", json={"count": 1, "level": "random"},
                headers=bearer(host := client.post("/api/v1/host", json={"pin": "1234"})
                               .json["token"]))
    client.post("/api/v1/host/settings", json={"hints": True, "pacing": "step",
                                               "pause_ms": 500}, headers=bearer(host))
    client.post("/api/v1/host/start", json={}, headers=bearer(host))
    rng = random.Random(9)
    for round_no in range(1, 5):
        for token in tokens.values():
            hand = client.get("/api/v1/me", headers=bearer(token)).json["me"]["hand"]
            client.post("/api/v1/pick", json={"round": round_no, "card": rng.choice(hand)},
                        headers=bearer(token))
        end_playback(client)
    client.post("/api/v1/host/undo", headers=bearer(host))
    client.post("/api/v1/pick", json={"round": 4, "card": 11 if 11 in client.get(
        "/api/v1/me", headers=bearer(tokens["Ana"])).json["me"]["hand"] else 10},
        headers=bearer(tokens["Ana"]))
    before = client.get("/api/v1/state").json
    me_before = client.get("/api/v1/me", headers=bearer(tokens["Ana"])).json["me"]
    record = client.get("/api/v1/record").json
    app.extensions["kalimambo"].close()

    again = make(data)
    client = again.test_client()
    after = client.get("/api/v1/state").json
    assert stable(after) == stable(before)
    assert after["version"] > before["version"]
    assert after["lights"]["pacing"] == "step" and after["lights"]["pause_ms"] == 500
    assert client.get("/api/v1/me", headers=bearer(tokens["Ana"])).json["me"] == me_before
    assert client.get("/api/v1/record").json == record
    assert client.get("/api/v1/host", headers=bearer(host)).status_code == 200
    again.extensions["kalimambo"].close()


def test_generated_host_key_is_made_once_and_kept(tmp_path: Path) -> None:
    data = tmp_path / "data"
    away = {"REMOTE_ADDR": "192.168.1.20"}
    first = create_app(AppConfig(data_dir=data, runner="inline"))
    key = first.extensions["kalimambo"].table.host.key
    assert first.extensions["kalimambo"].pin is None
    first.extensions["kalimambo"].close()
    assert len(key) >= 24
    second = create_app(AppConfig(data_dir=data, runner="inline"))
    assert second.extensions["kalimambo"].table.host.key == key
    client = second.test_client()
    assert client.post("/api/v1/host", json={"key": key}, environ_base=away).status_code == 200
    assert client.post("/api/v1/host", json={"pin": key}, environ_base=away).status_code == 200
    assert client.post("/api/v1/host", json={"pin": "0000"},
                       environ_base=away).status_code == 403
    second.extensions["kalimambo"].close()


def test_tokens_are_stored_hashed(tmp_path: Path) -> None:
    data = tmp_path / "data"
    app = make(data)
    token = app.test_client().post("/api/v1/join", json={"name": "Ana"}).json["token"]
    app.extensions["kalimambo"].close()
    raw = b"".join(p.read_bytes() for p in data.iterdir() if p.is_file())
    assert token.encode() not in raw
