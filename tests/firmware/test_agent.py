"""The lights process's end of the socket (``kalimambo.firmware.agent``), against a hand-driven fake
table on a real Unix socket, with gpiozero's MockFactory as the pins: it draws what the
table sends, reports the strip, sends frames while watched, turns button presses into
table commands, and connects again when the table comes back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from kalimambo.engine import Game, Setup
from kalimambo.firmware.agent import LightsAgent
from kalimambo.firmware.hardware import HardwareConfig, parse_hardware
from kalimambo.web.core.viewdiff import diff
from tests.helpers import wait_for
from tests.lights_peers import PROTOCOL, FakeTable, Peer
from tests.playback_views import play_round, split

PLAYERS = ["Ana", "Ben", "Caro"]


def hardware() -> HardwareConfig:
    return parse_hardware({"buttons": {"next": 17, "undo": 27, "undo_hold_s": 0.15,
                                       "new_game_hold_s": 0.5},
                           "buzzer": {"pin": 22}})


def game_view() -> dict[str, Any]:
    """A view of a game at round 1 (as the table sends it)."""
    return view_of(new_game())


def new_game() -> Game:
    return Game(PLAYERS, Setup(0, tuple(PLAYERS), (10, 20)), 32, seed=1)


def view_of(game: Game) -> dict[str, Any]:
    return {"version": 1, "phase": "picking", "round": game.current_round,
            "track_length": 32, "game_id": 1, "positions": game.positions(),
            "rhino": game.board.rhino, "dung": list(game.setup.dung), "seats": [],
            "winners": [], "history": [{"round": r + 1} for r in range(len(game.rounds))]}


def round_patches(pause_ms: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A view before round 1, then the table's patch messages for playing it back (each
    the JSON Patch and, beside it, what its change did)."""
    game = new_game()
    before = view_of(game)
    messages = play_round(game, {"Ana": 7, "Ben": 11, "Caro": 3}, view_of, pause_ms)
    patches, last = [], before
    for version, message in enumerate(messages, start=2):
        view, happened = split({**message, "version": version})
        patches.append({"type": "patch", "ops": diff(last, view), "happened": happened})
        last = view
    return before, patches


@pytest.fixture
def pins() -> Iterator[MockFactory]:
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


@pytest.fixture
def path(tmp_path: Path) -> str:
    return str(tmp_path / "lights.sock")


@pytest.fixture
def table(path: str) -> Iterator[FakeTable]:
    fake = FakeTable(path)
    yield fake
    fake.close()


@pytest.fixture
def agent(path: str, pins: MockFactory, table: FakeTable) -> Iterator[LightsAgent]:
    running = LightsAgent(hardware(), "sim", path, pin_factory=pins).start()
    yield running
    running.close()


def test_hello_then_status_then_draws_what_the_table_sends(agent: LightsAgent,
                                                           table: FakeTable) -> None:
    peer = table.accept()
    hello = peer.of("hello")[0]
    assert hello["protocol"] == PROTOCOL and hello["role"] == "lights"
    assert hello["backend"] == "sim" and hello["led_count"] == 32 and hello["notes"] == []
    assert agent.controls is not None and len(agent.controls.buttons) == 2
    assert agent.controls.buzzer is not None
    status = peer.expect("status")
    assert status["ok"] is True and status["backend"] == "sim"

    view, patches = round_patches(pause_ms=100)
    peer.send({"type": "view", "view": view})
    for patch in patches[:3]:
        peer.send(patch)
    assert wait_for(lambda: agent.lights.show.step is not None)
    playing = agent.lights.show.step
    assert playing is not None and playing.seconds == pytest.approx(0.1)  # the table's
    peer.expect("status", lambda m: m["playing"] is True)
    peer.send({"type": "mystery", "x": 1})  # a newer table's message: ignored
    for patch in patches[3:]:
        peer.send(patch)
    assert wait_for(lambda: not agent.lights.show.playing)  # played out at the pause
    assert wait_for(lambda: peer.of("status")[-1]["playing"] is False)
    assert peer.of("want_view") == []


def test_a_patch_that_does_not_fit_asks_for_the_whole_view(agent: LightsAgent,
                                                          table: FakeTable) -> None:
    """A message lost (or a table restarted): the patch's version test fails, nothing
    of it is applied, and the lights ask for the whole view again."""
    peer = table.accept()
    peer.expect("status")
    view, patches = round_patches(pause_ms=100)
    peer.send({"type": "view", "view": view})
    peer.send(patches[1])  # the first one never came
    peer.expect("want_view")
    assert not agent.lights.show.playing
    peer.send(patches[2])  # still nothing to patch: asks again
    assert wait_for(lambda: len(peer.of("want_view")) == 2)


def test_frames_only_while_the_table_watches(agent: LightsAgent, table: FakeTable) -> None:
    peer = table.accept()
    peer.expect("status")
    assert peer.of("frame") == []
    view = game_view()
    peer.send({"type": "view", "view": view})
    peer.send({"type": "watch", "seconds": 5})
    pieces = {*view["positions"].values(), view["rhino"]}

    def lit(message: dict[str, Any]) -> set[int]:
        raw = bytes.fromhex(message["leds"])
        assert len(raw) == 3 * 32
        return {i for i in range(32) if any(raw[3 * i:3 * i + 3])}

    peer.expect("frame", lambda m: pieces <= lit(m))  # once any intro has played


def test_buttons_become_table_commands(agent: LightsAgent, table: FakeTable,
                                       pins: MockFactory) -> None:
    peer = table.accept()
    next_pin, undo_pin = pins.pin(17), pins.pin(27)
    next_pin.drive_low()
    next_pin.drive_high()
    peer.expect("command", lambda m: m["name"] == "next")
    assert agent.controls is not None
    undo_pin.drive_low()  # hold past undo_hold_s, release before the long hold
    assert wait_for(lambda: agent.controls is not None and agent.controls.buttons[1].held)
    undo_pin.drive_high()
    peer.expect("command", lambda m: m["name"] == "undo")
    undo_pin.drive_low()  # hold for the long hold: a new game
    peer.expect("command", lambda m: m["name"] == "new_game")
    undo_pin.drive_high()
    assert [m["name"] for m in peer.of("command")] == ["next", "undo", "new_game"]


def test_the_table_goes_and_comes_back(agent: LightsAgent, table: FakeTable,
                                       pins: MockFactory) -> None:
    first = table.accept()
    first.expect("status")
    first.close()
    second = table.accept()  # the agent connects again by itself
    assert agent.connections == 2
    second.expect("status")  # the status again, for the new table
    view = game_view()
    second.send({"type": "view", "view": view})
    assert wait_for(lambda: agent.lights.show.state.round == 1)
    pins.pin(17).drive_low()
    pins.pin(17).drive_high()
    second.expect("command", lambda m: m["name"] == "next")


def test_waits_for_a_table_that_is_not_there_yet(path: str, pins: MockFactory) -> None:
    agent = LightsAgent(hardware(), "sim", path, pin_factory=pins).start()
    try:
        assert not agent.command("next")  # no table: the press is dropped, said so
        table = FakeTable(path)
        try:
            peer: Peer = table.accept()
            peer.expect("status")
            assert agent.wait_connected(10)
            assert agent.command("undo")
            peer.expect("command", lambda m: m["name"] == "undo")
        finally:
            table.close()
    finally:
        agent.close()


def test_retry_reports_the_strip_again(agent: LightsAgent, table: FakeTable) -> None:
    peer = table.accept()
    peer.expect("status")
    count = len(peer.of("status"))
    peer.send({"type": "retry"})
    assert wait_for(lambda: len(peer.of("status")) > count)


def test_a_broken_strip_shows_in_the_status(agent: LightsAgent, table: FakeTable) -> None:
    peer = table.accept()
    peer.expect("status", lambda m: m["ok"] is True)
    backend = agent.lights.backend
    assert backend is not None

    def broken(frame: Any) -> None:
        raise OSError("strip unplugged")

    backend.show = broken  # type: ignore[method-assign]
    view = game_view()
    peer.send({"type": "view", "view": view})
    status = peer.expect("status", lambda m: m["ok"] is False)
    assert "unplugged" in status["error"]
