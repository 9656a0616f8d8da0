"""Replays of archived games and the booth's attract mode.

The table is driven with an injected clock (no threads, no sleeps): the idle timer and
every replayed step come when the clock says.  The API tests check who may replay,
the refusals (nothing changes), that a replay changes no statistic and that a phone
joining stops it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from kalimambo.engine.record import parse_record, resolve_record
from kalimambo.engine.timeline import round_steps
from kalimambo.firmware.stripview import read_strip
from kalimambo.web.core.refusals import Kind, Refusal
from kalimambo.web.http.app import create_app
from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.storage.store import DB_NAME, Store
from kalimambo.web.table.booth import DEFAULT_ATTRACT_AFTER_S
from kalimambo.web.table.highlights import highlight, most_eventful
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.replay import END_HOLD_S, ROUND_GAP_S
from kalimambo.web.table.storedgame import load_game
from kalimambo.web.table.table import Table
from kalimambo.web.table.tasks import InlineRunner
from tests.conftest import PIN
from tests.helpers import wait_for
from tests.storage.test_archive import archive_games, vector_games


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def store_today(data_dir: Path, yesterday: bool = False) -> list[int]:
    """The archive's vector games, finished today (or all yesterday)."""
    games = [(record, bots) for record, _, bots, _ in vector_games()]
    now = time.time() - (2 * 86400 if yesterday else 0)
    return archive_games(data_dir, games, [now - 60 * (len(games) - i)
                                           for i in range(len(games))])


def make_table(data_dir: Path, clock: Clock) -> Table:
    store = Store(data_dir / DB_NAME)
    return Table(store, 32, HostAuth(store, "1234", "key"), runner=InlineRunner(),
                 default_pacing="auto", default_pause_ms=500, clock=clock)


def run_until(table: Table, clock: Clock, done: Any, limit: int = 2000) -> list[Any]:
    """Move the clock to each due time and tick, until ``done(view)``; the changes seen
    (a tick may make two: a round's last step, then its end)."""
    seen: list[Any] = []
    table.listeners.append(seen.append)
    try:
        for _ in range(limit):
            if done(table.public_view()):
                return seen
            due = table.due()
            assert due is not None, "the table waits for nothing"
            clock.now = max(clock.now, due)
            table.tick()
    finally:
        table.listeners.remove(seen.append)
    raise AssertionError("never got there")


def as_dicts(events: Any) -> list[dict[str, Any]]:
    """A change's step events in their JSON form (typed events or dicts)."""
    return [e.to_dict() if hasattr(e, "to_dict") else dict(e) for e in events or ()]


# -- picking the game -----------------------------------------------------------------
def test_the_most_eventful_game_and_why(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    ids = store_today(data_dir)
    store = Store(data_dir / DB_NAME)
    games = [load_game(store, row) for row in store.games() if row.id in ids]
    assert all(g is not None for g in games)
    loaded = [g for g in games if g is not None]
    # worked out again from the records: the longest run, the biggest loss, the dung
    best_scores = []
    for game in loaded:
        row = store.game(game.game_id)
        assert row is not None
        events = [e for played in game.rounds for e in played.public]
        runs = [e["spaces"] for e in events if e["type"] == "rhino_run"]
        dung = sum(1 for e in events if e["type"] == "dung")
        losses = [sum(e["points"] for e in played.public
                      if e["type"] == "penalty" and e["player"] == name)
                  for played in game.rounds for name in game.players]
        best_scores.append(max([*runs, 2 * max(losses), dung]))
        found = highlight(game)
        assert found is not None and found.score == max(best_scores[-1:])
        if found.code == "rhino_run":
            assert found.params["spaces"] == max(runs)
            assert 1 <= found.params["round"] <= 12
    picked = most_eventful(loaded)
    assert picked is not None
    assert picked[1].score == max(best_scores)
    store.close()


def test_replayed_rounds_are_the_records_rounds(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    ids = store_today(data_dir)
    store = Store(data_dir / DB_NAME)
    row = store.game(ids[0])
    assert row is not None
    game = load_game(store, row)
    assert game is not None
    from kalimambo.web.storage.archive import stored_record
    record = stored_record(store, row)
    assert record is not None
    snapshots = resolve_record(parse_record(record), with_events=True)["snapshots"]
    assert [r.public for r in game.rounds] == [s["events"] for s in snapshots]
    assert game.rounds[1].before.positions == snapshots[0]["positions"]
    store.close()


# -- the table with an injected clock ---------------------------------------------------
def test_attract_mode_starts_on_the_tables_clock_and_loops(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    store_today(data_dir)
    clock = Clock()
    table = make_table(data_dir, clock)
    assert table.public_view()["replay"] is None
    assert table.due() == clock.now + DEFAULT_ATTRACT_AFTER_S  # a timer, not polling
    clock.now += DEFAULT_ATTRACT_AFTER_S - 0.001
    assert not table.tick() and table.public_view()["replay"] is None
    clock.now += 0.001
    assert table.tick()
    view = table.public_view()
    replay_view = view["replay"]
    assert view["phase"] == "lobby" and replay_view["attract"] is True
    assert replay_view["reason"]["code"] in ("rhino_run", "penalty", "dung")
    # the start is a message of its own, at step 0; the reveal is due at once
    assert orjson.loads(table.current.happened_json) == [
        {"type": "replay_started", "game_id": replay_view["game_id"]}]
    assert replay_view["board"]["playback"]["step"] == 0 and table.due() == clock.now
    assert table.tick()
    view = table.public_view()
    replay_view = view["replay"]
    board = replay_view["board"]
    assert board["playback"]["round"] == 1 and board["playback"]["step"] == 1
    assert board["playback"]["pacing"] == "auto"
    # the strip draws the replay's board, read from the view in the live view's keys
    strip = read_strip(view)
    assert strip.board.positions == board["positions"] and strip.replay is True
    assert strip.playback is not None and (strip.playback.round, strip.playback.step) == (1, 1)
    assert [e.to_dict() if e else None for e in strip.playback.shown] == \
        board["playback"]["shown"]  # the replay's events, typed as the engine's
    assert strip.game_id == board["game_id"]  # the replay's moment
    assert strip.placing == ()  # the table's own pieces to place wait for the replay's end
    first = replay_view["game_id"]

    # every replayed step is a step of the round's own events, in order
    steps: dict[int, list[Any]] = {}
    seen = [table.current, *run_until(table, clock,
                                      lambda v: v["replay"] and v["replay"]["done"])]
    for change in seen:
        for told in orjson.loads(change.happened_json):
            if told["type"] == "step_shown":
                assert told.get("replay") is True
                playback = change.view["replay"]["board"]["playback"]
                shown = playback["shown"][told["first"]:told["first"] + told["count"]]
                steps.setdefault(told["round"], []).append(shown)
    store = table.store
    row = store.game(first)
    assert row is not None
    loaded = load_game(store, row)
    assert loaded is not None
    for played in loaded.rounds:
        expected = [[e.to_dict() for e in s.events if e.type != "round_end"]
                    for s in round_steps(played.events)]
        assert steps[played.number] == expected
    final = table.public_view()["replay"]["board"]
    assert final["phase"] == "finished" and final["winners"] == loaded.winners
    # the end holds, then attract mode picks again (the same game: a loop)
    ended = clock.now
    run_until(table, clock, lambda v: v["replay"] and not v["replay"]["done"])
    assert clock.now == pytest.approx(ended + END_HOLD_S)
    assert table.public_view()["replay"]["game_id"] == first


def test_a_join_stops_attract_mode_and_the_timer_starts_again(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    store_today(data_dir)
    clock = Clock()
    table = make_table(data_dir, clock)
    table.settings({"attract_after_s": 5})
    clock.now += 5
    assert table.tick() and table.public_view()["replay"] is not None
    version = table.public_view()["version"]
    table.join("Zoe")
    view = table.public_view()
    assert view["replay"] is None and view["phase"] == "lobby" and len(view["seats"]) == 1
    assert view["version"] == version + 1  # one change: the join, and the replay gone
    assert table.due() is None  # seats taken: no idle timer
    table.remove_seat("Zoe")
    assert table.due() == clock.now + 5


def test_attract_mode_off_and_no_game_today(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    store_today(data_dir, yesterday=True)
    clock = Clock()
    table = make_table(data_dir, clock)
    clock.now += DEFAULT_ATTRACT_AFTER_S
    assert not table.tick()  # nothing finished today: the idle animation stays
    assert table.public_view()["replay"] is None and table.due() is None
    answer = table.settings({"attract": False, "attract_after_s": 30})
    assert answer["attract"] is False and answer["attract_after_s"] == 30
    assert table.due() is None
    again = make_table(data_dir, clock)  # kept like the other host settings
    assert again.public_view()["booth"] == {"attract": False, "attract_after_s": 30,
                                            "sound": False}
    with pytest.raises(Refusal) as refused:
        again.settings({"attract_after_s": 0, "sound": True})
    assert refused.value.kind is Kind.BAD_INPUT
    assert again.public_view()["booth"]["sound"] is False  # nothing half-set


def test_a_host_replay_in_step_pacing_with_next_and_skip(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    ids = store_today(data_dir)
    clock = Clock()
    table = make_table(data_dir, clock)
    table.settings({"pacing": "step", "attract": False})
    answer = table.replay(ids[1])
    assert answer["attract"] is False and answer["reason"] is None
    playback = answer["board"]["playback"]
    assert (playback["round"], playback["step"]) == (1, 0) and table.due() is None
    moved = table.next_step()
    assert (moved["round"], moved["step"]) == (1, 1)
    ended = table.skip()
    assert ended["step"] == ended["steps"]
    assert table.due() is None  # step pacing: the next round waits for "next"
    moved = table.next_step()
    assert (moved["round"], moved["step"]) == (2, 1)
    for _ in range(11):
        table.skip()
    view = table.public_view()
    assert view["replay"]["done"] and view["replay"]["board"]["round"] == 12
    with pytest.raises(Refusal):
        table.next_step()
    assert table.due() == pytest.approx(clock.now + END_HOLD_S)
    clock.now += END_HOLD_S
    assert table.tick() and table.public_view()["replay"] is None
    assert ROUND_GAP_S < END_HOLD_S


# -- the API ------------------------------------------------------------------------------
@pytest.fixture
def booth(tmp_path: Path) -> Iterator[tuple[Any, list[int]]]:
    data_dir = tmp_path / "data"
    ids = store_today(data_dir)
    app = create_app(AppConfig(testing=True, data_dir=data_dir, host_pin=PIN, runner="inline"))
    yield app.test_client(), ids
    app.extensions["kalimambo"].close()


def login(client: Any) -> dict[str, str]:
    token = client.post("/api/v1/host", json={"pin": PIN}).json["token"]
    return {"Authorization": f"Bearer {token}"}


def test_replay_api_refusals_change_nothing(booth: tuple[Any, list[int]]) -> None:
    client, ids = booth
    host = login(client)
    client.post("/api/v1/host/settings", json={"pacing": "step"}, headers=host)
    before = client.get("/api/v1/state").json
    assert client.post("/api/v1/host/replay", json={"game_id": ids[0]}).status_code == 401
    assert client.post("/api/v1/host/replay", json={"game_id": ids[0]},
                       headers={"Authorization": "Bearer nope"}).status_code == 403
    for bad in ("3", True, None, -1, 1.5):
        answer = client.post("/api/v1/host/replay", json={"game_id": bad}, headers=host)
        assert answer.status_code == 400 and answer.json["error"]["code"] == "bad_game_id"
    for beyond in (2**63, 2**64 - 1):  # more than the store can hold: no such game
        answer = client.post("/api/v1/host/replay", json={"game_id": beyond}, headers=host)
        assert answer.status_code == 404
    missing = client.post("/api/v1/host/replay", json={"game_id": 9999}, headers=host)
    assert missing.status_code == 404
    assert missing.json["error"] == {"code": "no_such_game",
                                     "message": "There is no game 9999 to replay."}
    current = before["game_id"]  # the lobby's game has no round: nothing to replay
    empty = client.post("/api/v1/host/replay", json={"game_id": current}, headers=host)
    assert empty.status_code == 409
    assert client.post("/api/v1/host/replay/stop", headers=host).status_code == 409
    assert client.get("/api/v1/state").json == before
    # a game in progress: 409, and nothing changes
    for name in ("Ana", "Ben", "Caro"):
        client.post("/api/v1/join", json={"name": name})
    assert client.post("/api/v1/host/start", headers=host).status_code == 200
    playing = client.get("/api/v1/state").json
    busy = client.post("/api/v1/host/replay", json={"game_id": ids[0]}, headers=host)
    assert busy.status_code == 409 and busy.json["error"]["code"] == "game_in_progress"
    assert client.get("/api/v1/state").json == playing


def test_a_replay_changes_no_statistic_and_a_join_stops_it(
        booth: tuple[Any, list[int]]) -> None:
    client, ids = booth
    host = login(client)
    client.post("/api/v1/host/settings", json={"pacing": "step"}, headers=host)
    stats = client.get("/api/v1/stats").data
    csv = client.get("/api/v1/games.csv").data
    games = client.get("/api/v1/games").json
    answer = client.post("/api/v1/host/replay", json={"game_id": ids[2]}, headers=host)
    assert answer.status_code == 200 and answer.json["game_id"] == ids[2]
    view = client.get("/api/v1/state").json
    assert view["phase"] == "lobby" and view["replay"]["board"]["phase"] == "playing"
    while not client.get("/api/v1/state").json["replay"]["done"]:  # to the very end
        assert client.post("/api/v1/host/next", headers=host).status_code == 200
    end = client.get("/api/v1/state").json["replay"]["board"]
    record = client.get(f"/api/v1/games/{ids[2]}/record").json
    final = resolve_record(parse_record(record))
    assert end["positions"] == final["positions"] and end["winners"] == final["winners"]
    assert client.get("/api/v1/stats").data == stats
    assert client.get("/api/v1/games.csv").data == csv
    assert client.get("/api/v1/games").json == games
    # again, and a phone joining stops it at once
    client.post("/api/v1/host/replay", json={"game_id": ids[0]}, headers=host)
    joined = client.post("/api/v1/join", json={"name": "Zoe"})
    assert joined.status_code == 201
    view = client.get("/api/v1/state").json
    assert view["replay"] is None and view["phase"] == "lobby"
    # the host stops one
    client.post("/api/v1/host/replay", json={"game_id": ids[0]}, headers=host)
    stopped = client.post("/api/v1/host/replay/stop", headers=host)
    assert stopped.status_code == 200 and stopped.json["replay"] is None
    assert client.get("/api/v1/stats").data == stats


def test_watch_again_at_the_end_of_a_game(booth: tuple[Any, list[int]]) -> None:
    client, _ = booth
    host = login(client)
    client.post("/api/v1/host/settings", json={"pacing": "step"}, headers=host)
    client.post("/api/v1/host/bots", json={"count": 3, "level": "random"}, headers=host)
    assert client.post("/api/v1/host/start", headers=host).status_code == 200
    for _ in range(12):  # the computer players pick at once; each round is skipped
        assert client.post("/api/v1/host/skip", headers=host).status_code == 200
    finished = client.get("/api/v1/state").json
    answer = client.post("/api/v1/host/replay", json={"game_id": finished["game_id"]},
                         headers=host)
    assert answer.status_code == 200
    view = client.get("/api/v1/state").json
    assert view["phase"] == "finished" and view["replay"]["game_id"] == finished["game_id"]
    assert view["history"] == finished["history"]  # the game itself is untouched
    shown = [(s["name"], s["colour"], s["bot"], s["bot_level"])
             for s in view["replay"]["board"]["seats"]]
    assert shown == [(s["name"], s["colour"], s["bot"], s["bot_level"])
                     for s in finished["seats"]]


def test_every_reason_is_said_in_four_languages() -> None:
    import json

    from tests.helpers import ROOT

    for lang in ("en", "de", "fr", "it"):
        messages = json.loads((ROOT / "web" / "i18n" / f"{lang}.json").read_text())
        for code in ("rhino_run", "penalty", "dung"):
            assert f"replay.why.{code}" in messages, (lang, code)


def test_the_own_screen_moves_a_replay_only_in_step_pacing(
        booth: tuple[Any, list[int]]) -> None:
    """``/screen/next`` asks the replay's playback, not the table's (it has none then)."""
    client, ids = booth
    host = login(client)
    own = {"REMOTE_ADDR": "127.0.0.1"}

    def shown() -> Any:
        return client.get("/api/v1/state").json["replay"]["board"]["playback"]

    client.post("/api/v1/host/settings", json={"pacing": "step"}, headers=host)
    assert client.post("/api/v1/host/replay", json={"game_id": ids[2]},
                       headers=host).status_code == 200
    before = shown()["step"]
    answer = client.post("/api/v1/screen/next", environ_base=own)
    assert answer.status_code == 200 and answer.json["step"] == shown()["step"] == before + 1
    assert client.post("/api/v1/host/replay/stop", headers=host).status_code == 200
    # auto pacing with the longest pause: the own screen may not hurry it
    client.post("/api/v1/host/settings", json={"pacing": "auto", "pause_ms": 10000},
                headers=host)
    assert client.post("/api/v1/host/replay", json={"game_id": ids[2]},
                       headers=host).status_code == 200
    assert wait_for(lambda: shown()["step"] >= 1)  # the reveal at once, the next 10 s on
    before = shown()
    refused = client.post("/api/v1/screen/next", environ_base=own)
    assert refused.status_code == 409 and refused.json["error"]["code"] == "not_step"
    assert shown() == before
