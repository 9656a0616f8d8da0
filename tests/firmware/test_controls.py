"""Buttons (press, hold, long hold) and buzzer cues, on gpiozero's mock pins."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from kalimambo.engine import Game, Setup
from kalimambo.firmware.controls import CUES, Controls
from kalimambo.firmware.hardware import parse_hardware
from kalimambo.firmware.lights import create_lights
from tests.helpers import wait_for
from tests.playback_views import play_round

PLAYERS = ["Ana", "Ben", "Caro"]




class RecordingPWMPin(MockPWMPin):  # type: ignore[misc]
    """A mock PWM pin that also remembers every frequency it was set to."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.frequencies: list[float | None] = []

    def _set_frequency(self, value: float | None) -> None:
        super()._set_frequency(value)
        self.frequencies.append(value)


@pytest.fixture
def mock_pins() -> Iterator[MockFactory]:
    before = Device.pin_factory
    Device.pin_factory = MockFactory()
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = before  # as gpiozero's own tests do: the next test gets its own


@pytest.fixture
def mock_pwm_pins() -> Iterator[MockFactory]:
    before = Device.pin_factory
    Device.pin_factory = MockFactory(pin_class=RecordingPWMPin)
    yield Device.pin_factory
    Device.pin_factory.reset()
    Device.pin_factory = before  # as gpiozero's own tests do: the next test gets its own


class Table:
    """The smallest table: a game, the lights, and the three actions."""

    def __init__(self) -> None:
        self.lights = create_lights(parse_hardware({}), "sim", run_thread=False)
        self.games = 0
        self.nexts = 0
        self.new_game()

    def next_step(self) -> None:
        self.nexts += 1

    def new_game(self) -> None:
        self.game = Game(PLAYERS, Setup(0, tuple(PLAYERS), (10, 20)), 32, seed=self.games)
        self.games += 1

    def play(self) -> None:
        for message in play_round(self.game, {"Ana": 7, "Ben": 11, "Caro": 3},
                                  lambda game: {"phase": "picking",
                                                "positions": game.positions(),
                                                "history": [{}] * len(game.rounds)}):
            self.lights.update(message)

    def undo(self) -> None:
        self.game.undo()


def hardware(**buttons: Any) -> Any:
    return parse_hardware({"buttons": {"undo_hold_s": 0.15, "new_game_hold_s": 0.4, **buttons}})


def press(pin: Any) -> None:
    pin.drive_low()
    pin.drive_high()


def test_next_press_advances_hold_undoes_long_hold_restarts(mock_pins: MockFactory) -> None:
    table = Table()
    table.play()
    controls = Controls(hardware(next=17, undo=27), table.next_step, table.undo,
                        table.new_game)
    next_pin, undo_pin = mock_pins.pin(17), mock_pins.pin(27)
    press(next_pin)
    assert wait_for(lambda: table.nexts == 1)

    press(undo_pin)  # a short press of undo does nothing
    undo_pin.drive_low()
    assert wait_for(lambda: controls.buttons[1].held)
    undo_pin.drive_high()
    assert wait_for(lambda: table.game.rounds_played == 0)

    table.play()
    first_game = table.game
    undo_pin.drive_low()
    assert wait_for(lambda: table.game is not first_game)  # fires while still held
    undo_pin.drive_high()
    assert table.games == 2 and table.game.rounds_played == 0
    controls.close()


def test_a_lone_next_button_also_undoes_and_restarts(mock_pins: MockFactory) -> None:
    table = Table()
    table.play()
    controls = Controls(hardware(next=17), table.next_step, table.undo, table.new_game)
    pin = mock_pins.pin(17)
    pin.drive_low()
    assert wait_for(lambda: controls.buttons[0].held)
    pin.drive_high()
    assert wait_for(lambda: table.game.rounds_played == 0)
    pin.drive_low()
    assert wait_for(lambda: table.games == 2)
    pin.drive_high()
    controls.close()


def test_no_pins_no_hardware(mock_pins: MockFactory) -> None:
    controls = Controls(parse_hardware({}), None, None, None)
    assert controls.buttons == [] and controls.buzzer is None
    controls.cue("rhino", wait=True)  # silently nothing
    with pytest.raises(ValueError, match="unknown cue"):
        controls.cue("moo")


def test_a_pin_that_cannot_open_is_skipped(mock_pins: MockFactory) -> None:
    mock_pins.pin(17)  # taken by something else: gpiozero refuses a second Button
    other = Controls(hardware(next=17), None, None, None)
    controls = Controls(hardware(next=17), None, None, None)
    assert controls.buttons == [] and "buttons.next (GPIO 17)" in controls.errors[0]
    other.close()


@pytest.mark.parametrize("name", sorted(CUES))
def test_plain_buzzer_cues_as_pin_states(mock_pins: MockFactory, name: str) -> None:
    controls = Controls(parse_hardware({"buzzer": {"pin": 22, "tonal": False}}), None, None,
                        None, cue_speed=0.01)
    pin = mock_pins.pin(22)
    pin.clear_states()
    controls.cue(name, wait=True)
    # The pin starts low, each note switches it on, each rest and the end off
    # (the mock records changes only, so back-to-back notes make one "on").
    wanted = [False, *(tone is not None for tone, _ in CUES[name]), False]
    edges = [s for i, s in enumerate(wanted) if i == 0 or s != wanted[i - 1]]
    assert [s.state for s in pin.states] == edges
    controls.close()


def test_tonal_buzzer_plays_the_cue_notes(mock_pwm_pins: MockFactory) -> None:
    controls = Controls(parse_hardware({"buzzer": {"pin": 22}}), None, None, None,
                        cue_speed=0.01)
    pin = mock_pwm_pins.pin(22)
    pin.frequencies.clear()
    pin.clear_states()
    controls.cue("win", wait=True)
    played = [f for f in pin.frequencies if f]
    assert [round(f) for f in played] == [523, 659, 784, 1047]
    assert pin.states[-1].state == 0  # silent at the end
    controls.cue("rhino")  # in the background
    assert wait_for(lambda: [round(f) for f in pin.frequencies if f][-1] == 117)
    controls.close()
