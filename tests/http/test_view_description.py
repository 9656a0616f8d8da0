"""Real views hold nothing their one description (web/core/viewtypes.py) lacks.

A table is played through the API as its people would: a lobby filled and thinned,
a game in step pacing with steps, skips, an undo and placed pieces, to its end; a replay
of it; a new lobby.  Every view the table published (what the event stream sends and
GET /api/v1/state answers), every /me and every answer cut from a view is checked
strictly against its TypedDict (tests/view_check.py), and against the served OpenAPI
document made from the same types.  Attract mode runs on a table with an injected clock
and a real (simulated) strip's status, power included.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, get_args

import orjson
import pytest

from kalimambo.engine.events import Event
from kalimambo.firmware.hardware import default_hardware
from kalimambo.firmware.lights import create_lights
from kalimambo.web.core import viewtypes
from kalimambo.web.core.viewtypes import (
    ChangeMessage,
    Happening,
    PlaybackView,
    PrivateView,
    PublicView,
    ReplayReason,
    ReplayView,
    RoundEvent,
)
from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.http.openapi import document
from kalimambo.web.http.typeschema import fields as typed_fields
from kalimambo.web.storage.store import DB_NAME, Store
from kalimambo.web.table.highlights import highlight
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.storedgame import load_game
from kalimambo.web.table.table import Table
from kalimambo.web.table.tasks import InlineRunner
from tests.conftest import PIN
from tests.table.test_replay import Clock, run_until, store_today
from tests.view_check import Met, problems


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Seen:
    """Everything real the session produced, as JSON parsed back."""

    views: list[dict[str, Any]] = field(default_factory=list)
    """Every public view the table published, in order (the event stream's)."""
    changes: list[dict[str, Any]] = field(default_factory=list)
    """Beside each view, its change as a patch message carries it (``ChangeMessage``)."""
    private: list[dict[str, Any]] = field(default_factory=list)
    answers: list[tuple[Any, dict[str, Any]]] = field(default_factory=list)
    """(its type, an answer cut from a view): next, skip, replay."""
    reasons: list[dict[str, Any]] = field(default_factory=list)

    def listen(self, change: Any) -> None:
        self.views.append(orjson.loads(change.view_json))
        self.changes.append({"patch": orjson.loads(change.patch_json or b"[]"),
                             "happened": orjson.loads(change.happened_json)})


def label(view: dict[str, Any]) -> str:
    """The state a view shows: its phase, or the replay running over it."""
    replay = view.get("replay")
    if replay:
        return "attract" if replay.get("attract") else "replay"
    return str(view["phase"])


STATES = ("lobby", "picking", "playing", "finished", "replay", "attract")


class Session:
    """The API as the pages use it, each answer kept."""

    def __init__(self, client: Any, seen: Seen) -> None:
        self.client, self.seen = client, seen
        self.host = bearer(client.post("/api/v1/host", json={"pin": PIN}).json["token"])
        self.tokens: dict[str, str] = {}
        self.hosted: dict[str, str] = {}

    def call(self, method: str, path: str, body: Any = None, ok: int = 200) -> Any:
        answer = self.client.open(f"/api/v1{path}", method=method, json=body,
                                  headers=self.host)
        assert answer.status_code == ok, (path, answer.status_code, answer.json)
        return answer.json

    def state(self) -> dict[str, Any]:
        view: dict[str, Any] = self.client.get("/api/v1/state").json
        return view

    def look(self) -> None:
        """Every seat's /me now, the phones' and the hosted ones'."""
        for token in self.tokens.values():
            self.seat_view(self.client.get("/api/v1/me", headers=bearer(token)))
        for seat_id in self.hosted.values():
            self.seat_view(self.client.get(f"/api/v1/host/seats/{seat_id}/me",
                                           headers=self.host))

    def seat_view(self, answer: Any) -> None:
        assert answer.status_code == 200, answer.json
        self.seen.private.append(answer.json)

    def answer(self, typed: Any, method: str, path: str, body: Any = None) -> Any:
        found = self.call(method, path, body)
        self.seen.answers.append((typed, found))
        return found

    def pick_all(self) -> None:
        view = self.state()
        for name, token in self.tokens.items():
            hand = self.client.get("/api/v1/me", headers=bearer(token)).json["me"]["hand"]
            answer = self.client.post("/api/v1/pick", headers=bearer(token),
                                      json={"round": view["round"], "card": hand[0]})
            assert answer.status_code == 200, (name, answer.json)
            self.look()
        for seat_id in self.hosted.values():
            me = self.client.get(f"/api/v1/host/seats/{seat_id}/me", headers=self.host).json
            self.call("POST", f"/host/seats/{seat_id}/pick",
                      {"round": view["round"], "card": me["me"]["hand"][-1]})


def play(session: Session) -> None:
    """A lobby, a whole game and its replay, then a new lobby."""
    call = session.call
    session.look()
    for name in ("Ana", "Ben", "Eve"):
        session.tokens[name] = session.client.post("/api/v1/join",
                                                   json={"name": name}).json["token"]
    hosted = call("POST", "/host/seats", {"name": "Dan"}, ok=201)
    session.hosted["Dan"] = hosted["id"]
    call("POST", "/host/bots", {"count": 1, "level": "random"}, ok=201)
    call("POST", "/host/remove", {"name": "Eve"})
    del session.tokens["Eve"]
    call("POST", "/host/settings", {"pacing": "step"})
    session.look()
    call("POST", "/host/start")
    session.look()
    undone_mid, undone_after = False, False
    while session.state()["phase"] != "finished":
        session.pick_all()
        session.answer(PlaybackView, "POST", "/host/next")
        session.answer(PlaybackView, "POST", "/host/next")
        session.look()
        if session.state()["round"] == 2 and not undone_mid:  # taken back mid-playback
            undone_mid = True
            call("POST", "/host/undo")
            session.look()
            if session.state()["placing"] is not None:  # the steps shown moved a piece
                call("POST", "/host/placed")
            continue
        session.answer(PlaybackView, "POST", "/host/skip")
        session.look()
        if session.state()["round"] == 3 and not undone_after:
            # taken back once played through: the round's moves are pieces to place
            undone_after = True
            call("POST", "/host/undo")
            session.look()
            assert session.state()["placing"] is not None
            call("POST", "/host/placed")
    game_id = session.state()["game_id"]
    session.answer(ReplayView, "POST", "/host/replay", {"game_id": game_id})
    session.answer(PlaybackView, "POST", "/host/next")
    session.answer(PlaybackView, "POST", "/host/next")
    session.look()
    while (replay := session.state()["replay"]) is not None and not replay["done"]:
        session.answer(PlaybackView, "POST", "/host/skip")
    session.call("POST", "/host/replay/stop", ok=200 if replay else 409)
    call("POST", "/host/new", {"keep_seats": False})


def attract(data_dir: Path, seen: Seen) -> None:
    """The booth's attract mode, with a real simulated strip's status beside it."""
    store_today(data_dir)
    lights = create_lights(default_hardware(), "sim", run_thread=False)
    store = Store(data_dir / DB_NAME)
    clock = Clock()
    table = Table(store, 32, HostAuth(store, PIN, "key"), runner=InlineRunner(),
                  lights_status=lambda: {**lights.status(), "connected": True},
                  default_pacing="auto", default_pause_ms=500, clock=clock)
    table.listeners.append(seen.listen)
    seen.listen(table.current)
    run_until(table, clock, lambda v: v["replay"] and v["replay"]["board"]["round"] > 2)
    for row in store.games():  # why each game of the day would be picked
        game = load_game(store, row)
        reason = highlight(game) if game is not None else None
        if reason is not None:
            seen.reasons.append(orjson.loads(orjson.dumps(reason.to_view())))
    store.close()


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Seen]:
    from kalimambo.web.http.app import create_app

    found = Seen()
    data = Path(tmp_path_factory.mktemp("views")) / "data"
    app = create_app(AppConfig(testing=True, data_dir=data, host_pin=PIN, runner="inline",
                               join_url="http://192.0.2.10/"))
    table = app.extensions["kalimambo"].table
    with table.lock:
        table.listeners.append(found.listen)
        found.listen(table.current)
    try:
        play(Session(app.test_client(), found))
    finally:
        app.extensions["kalimambo"].close()
    attract(Path(tmp_path_factory.mktemp("attract")) / "data", found)
    yield found


@dataclass
class Walked:
    """Each checked value's problems, by what it is, and every key held (one walk)."""

    problems: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    counts: dict[tuple[str, str], int] = field(default_factory=dict)
    met: Met = field(default_factory=set)

    def check(self, kind: str, state: str, value: Any, typed: Any) -> None:
        where = (kind, state)
        self.counts[where] = self.counts.get(where, 0) + 1
        self.problems.setdefault(where, []).extend(problems(value, typed, met=self.met))

    def assert_described(self, kind: str, state: str) -> None:
        assert self.counts.get((kind, state)), f"the session made no {kind} while {state}"
        found = self.problems[kind, state]
        assert not found, "\n".join(found[:20])


@pytest.fixture(scope="module")
def walked(seen: Seen) -> Walked:
    walk = Walked()
    for view, change in zip(seen.views, seen.changes, strict=True):
        walk.check("view", label(view), view, PublicView)
        walk.check("change", label(view), change, ChangeMessage)
    for view in seen.private:
        walk.check("me", label(view), view, PrivateView)
    for typed, answer in seen.answers:
        walk.check("answer", typed.__name__, answer, typed)
    for reason in seen.reasons:
        walk.check("reason", reason["code"], reason, ReplayReason)
    return walk


# -- every real view, by state ----------------------------------------------------------------
@pytest.mark.parametrize("state", STATES)
def test_every_published_view_is_described(walked: Walked, state: str) -> None:
    walked.assert_described("view", state)


@pytest.mark.parametrize("state", ["lobby", "picking", "playing", "finished", "replay"])
def test_every_seats_view_is_described(walked: Walked, state: str) -> None:
    walked.assert_described("me", state)


@pytest.mark.parametrize("typed", [PlaybackView.__name__, ReplayView.__name__])
def test_every_answer_cut_from_a_view_is_described(walked: Walked, typed: str) -> None:
    """What next, skip and the host's replay answer: the view's playback or replay."""
    walked.assert_described("answer", typed)


def test_every_reason_attract_mode_gives_is_described(walked: Walked) -> None:
    codes = {code for kind, code in walked.counts if kind == "reason"}
    assert codes
    for code in codes:
        walked.assert_described("reason", code)


# -- the served document, made from the description, takes them ------------------------------
def varied(seen: Seen) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """The views (and their changes) that first show a state or a kind of happening:
    between them every state and happening (the strict walk above takes every view; this
    one is slower)."""
    chosen, shown = [], set()
    for view, change in zip(seen.views, seen.changes, strict=True):
        new = {label(view), *(h["type"] for h in change["happened"])} - shown
        if new:
            chosen.append((view, change))
            shown |= new
    return chosen


def test_the_openapi_document_accepts_real_views(seen: Seen) -> None:
    jsonschema_rs = pytest.importorskip("jsonschema_rs")
    doc = document()

    def validator(typed: Any) -> Any:
        return jsonschema_rs.validator_for(
            {**doc, "$ref": f"#/components/schemas/{typed.__name__}"})

    chosen = varied(seen)
    private = list({label(view): view for view in reversed(seen.private)}.values())
    checks = ([(PublicView, view) for view, _ in chosen]
              + [(ChangeMessage, change) for _, change in chosen]
              + [(PrivateView, view) for view in private] + seen.answers)
    validators = {typed: validator(typed) for typed, _ in checks}
    wrong = [str(error) for typed, value in checks if not validators[typed].is_valid(value)
             for error in validators[typed].iter_errors(value)]
    assert not wrong, "\n".join(wrong[:5])


# -- and the description names nothing the views never hold -----------------------------------
def test_every_happening_and_event_the_description_names_occurred(seen: Seen) -> None:
    def kinds(union: Any) -> set[str]:
        return {get_args(typed_fields(member)["type"][0])[0] for member in get_args(union)}

    happened = {h["type"] for change in seen.changes for h in change["happened"]}
    events = {e["type"] for view in seen.views for entry in view["history"]
              for e in entry["events"]}
    assert kinds(Happening) - happened == set()
    assert kinds(RoundEvent) - events == set()


def test_every_key_of_every_object_met_occurred(walked: Walked) -> None:
    """A key described but never held is drift the other way (a key a builder dropped)."""
    met = walked.met
    names = {name for name, _ in met}
    never = [f"{name}.{key}" for name in sorted(names)
             for key in typed_fields(getattr(viewtypes, name)) if (name, key) not in met]
    assert never == []
    assert {"PowerView", "PieceMoveView", "ReplayBoard", "HistoryEntry"} <= names


def test_the_engines_events_are_described() -> None:
    """The round events are the engine's (RECORD.md): each of its event types has the
    fields its TypedDict declares."""
    described = {get_args(typed_fields(member)["type"][0])[0]: set(typed_fields(member))
                 for member in get_args(RoundEvent)}
    engine = {next(f.default for f in fields(cls) if f.name == "type"):
              {f.name for f in fields(cls)} for cls in get_args(Event)}
    assert engine == described


# -- the check can fail ------------------------------------------------------------------------
def test_the_check_finds_an_undeclared_key_deep_in_a_real_view(seen: Seen) -> None:
    view = copy.deepcopy(next(v for v in seen.views if label(v) == "replay"))
    assert problems(view, PublicView) == []
    view["replay"]["board"]["seats"][0]["nickname"] = "Annie"
    assert problems(view, PublicView) == [
        "$.replay.board.seats[0].nickname: not declared in SeatView"]


def test_the_check_finds_a_wrong_type_and_a_missing_key(seen: Seen) -> None:
    view = copy.deepcopy(next(v for v in seen.views if label(v) == "playing"))
    view["seats"][1]["minus_points"] = "4"
    del view["booth"]["sound"]
    found = problems(view, PublicView)
    assert "$.seats[1].minus_points: '4' is not int" in found
    assert "$.booth.sound: missing (required in BoothView)" in found
    change = copy.deepcopy(next(c for c in seen.changes if c["happened"]))
    change["happened"].append({"type": "step_shown", "round": 1})
    told = problems(change, ChangeMessage)
    assert any(p.startswith(f"$.happened[{len(change['happened']) - 1}]") for p in told)


def test_the_check_finds_a_key_a_builder_adds(client: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The view builder itself made to add a key: the view the API answers shows it."""
    from kalimambo.web.table import table as table_module

    built = table_module.public_view

    def with_a_mood(*args: Any, **kwargs: Any) -> Any:
        return {**built(*args, **kwargs), "mood": "sunny"}

    monkeypatch.setattr(table_module, "public_view", with_a_mood)
    client.post("/api/v1/join", json={"name": "Ana"})
    view = client.get("/api/v1/state").json
    assert view["mood"] == "sunny"
    assert problems(view, PublicView) == ["$.mood: not declared in PublicView"]
