"""The lights as the table uses them: frames through the pipeline, faults, the thread."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kalimambo.firmware.backends import SimBackend
from kalimambo.firmware.hardware import HardwareConfig, default_hardware
from kalimambo.firmware.lights import Lights, create_lights
from kalimambo.firmware.scene import (
    DUNG_COLOUR,
    EXPLORER_COLOURS,
    KALI_COLOUR,
    MAMBO_COLOUR,
    RGB,
)
from tests.helpers import wait_for

VIEW: dict[str, Any] = {"phase": "picking", "track_length": 32, "game_id": "g", "history": [{}],
        "seats": [{"name": "Ana", "colour": "red"}, {"name": "Ben", "colour": "blue"},
                  {"name": "Caro", "colour": "green"}],
        "rhino": 3, "positions": {"Ana": 4, "Ben": 5, "Caro": 6, "Kali": 7},
        "dung": [10, 20]}


class FlakyBackend(SimBackend):
    """A sim strip that can be told to fail on start or on the next frame."""

    fail_start = False
    fail_show = False

    def start(self) -> None:
        if FlakyBackend.fail_start:
            raise OSError("no strip on GPIO 18")

    def show(self, frame: Sequence[RGB]) -> None:
        if FlakyBackend.fail_show:
            raise OSError("cable pulled")
        super().show(frame)


def flaky(name: str, hardware: HardwareConfig) -> FlakyBackend:
    return FlakyBackend(hardware)




def manual(**options: Any) -> Lights:
    clock = options.pop("clock", lambda: 0.0)
    return create_lights(default_hardware(), "sim", clock=clock, run_thread=False, **options)


def test_steady_picture_reaches_the_strip() -> None:
    lights = manual()
    lights.update(VIEW)
    frame = lights.tick()
    assert frame == lights.frame()
    assert isinstance(lights.backend, SimBackend) and lights.backend.frame == frame
    lit = {i for i, led in enumerate(frame) if led != (0, 0, 0)}
    assert lit == {3, 4, 5, 6, 7, 10, 20}
    assert frame[4] == (127, 0, 0)  # red at half brightness (max_brightness 0.5)
    status = lights.status()
    power = status.pop("power")
    assert status == {"backend": "sim", "ok": True, "error": None, "playing": False}
    # the power watch (tests/firmware/test_power.py): a dim picture, far under 3 A
    assert power["supply_ma"] == 3000 and power["asked_ma"] == 100
    assert power["dimming"] is False


def test_the_frame_as_a_person_sees_it_keeps_the_figures_colours() -> None:
    """The board page draws ``seen``: Mambo turquoise, Kali a cold white, red red, and
    the yellow figure yellow, not the numbers gamma and the brightness cap send."""
    lights = manual()
    lights.update({**VIEW, "seats": [*VIEW["seats"][:2], {"name": "Caro", "colour": "yellow"}]})
    frame = lights.tick()
    seen = lights.seen()
    assert seen[3] == MAMBO_COLOUR and seen[7] == KALI_COLOUR
    assert seen[4] == EXPLORER_COLOURS["red"] and seen[6] == EXPLORER_COLOURS["yellow"]
    assert seen[10] == DUNG_COLOUR and seen[0] == (0, 0, 0)
    assert frame[3] != seen[3] and frame[6] != seen[6]  # what the LEDs are sent differs
    assert {i for i, led in enumerate(seen) if any(led)} == {
        i for i, led in enumerate(frame) if any(led)}


def test_a_strip_that_cannot_start_does_not_stop_the_table() -> None:
    FlakyBackend.fail_start, FlakyBackend.fail_show = True, False
    lights = manual(backend_factory=flaky)
    status = lights.status()
    assert not status["ok"] and status["error"] == "no strip on GPIO 18"
    lights.update(VIEW)
    assert lights.tick()[4] == (127, 0, 0)  # frames still computed for the pages
    FlakyBackend.fail_start = False
    assert lights.retry()["ok"]
    lights.tick()
    assert isinstance(lights.backend, FlakyBackend) and lights.backend.frame[4] == (127, 0, 0)


def test_a_strip_failing_mid_game_is_reported_and_retried() -> None:
    FlakyBackend.fail_start, FlakyBackend.fail_show = False, False
    lights = manual(backend_factory=flaky)
    lights.update(VIEW)
    lights.tick()
    FlakyBackend.fail_show = True
    lights.update({**VIEW, "positions": {**VIEW["positions"], "Ana": 8}})
    lights.tick()
    assert lights.status()["error"] == "cable pulled" and lights.backend is None
    assert lights.frame()[8] == (127, 0, 0)
    FlakyBackend.fail_show = False
    assert lights.retry()["ok"]
    lights.tick()
    assert isinstance(lights.backend, FlakyBackend) and lights.backend.frame[8] == (127, 0, 0)


def test_the_status_is_told_when_it_changes_and_only_then() -> None:
    """No timer asks the lights for their status: they say when it changed."""
    FlakyBackend.fail_start, FlakyBackend.fail_show = False, False
    lights = manual(backend_factory=flaky)
    told: list[dict[str, Any]] = []
    lights.on_status = lambda: told.append(lights.status())
    lights.update(VIEW)
    assert len(told) == 1 and told[0]["ok"]  # the first status seen
    for _ in range(5):
        lights.tick()
    lights.update(VIEW)
    assert len(told) == 1  # nothing changed: nothing told
    FlakyBackend.fail_show = True
    lights.update({**VIEW, "positions": {**VIEW["positions"], "Ana": 8}})
    lights.tick()
    assert len(told) == 2 and told[1]["error"] == "cable pulled"
    FlakyBackend.fail_show = False
    lights.retry()
    assert len(told) == 3 and told[2]["ok"]


def test_override_shows_a_raw_picture_for_the_builder_tools() -> None:
    lights = manual()
    lights.update(VIEW)
    lights.set_override([(255, 255, 255)] + [(0, 0, 0)] * 31)
    assert lights.tick()[:2] == [(127, 127, 127), (0, 0, 0)]
    lights.set_override(None)
    assert lights.tick()[4] == (127, 0, 0)


def test_cues_reach_the_buzzer_callback() -> None:
    now = [0.0]
    cues: list[str] = []
    lights = manual(clock=lambda: now[0], on_cue=cues.append)
    lights.update(VIEW)
    events = [{"type": "dung", "figure": "Ana", "space": 10},
              {"type": "round_end", "round": 2, "minus_points": {}, "game_over": True,
               "winners": ["Ana"]}]
    lights.update({**VIEW, "playback": {"shown": events}}, happened=[
        {"type": "step_shown", "round": 2, "step": 1, "steps": 1, "kind": "dung",
         "first": 0, "count": 1, "seconds": 1.0},
        {"type": "playback_ended", "round": 2, "first": 1, "seconds": 1.0,
         "skipped": False}])
    for _ in range(20):
        lights.tick()
        now[0] += 0.5
    assert cues == ["dung", "win"]


def test_the_thread_animates_and_closes() -> None:
    lights = create_lights(default_hardware(), "sim")
    try:
        lights.update({"phase": "lobby", "seats": []})  # attract: the picture moves
        first = lights.frame()
        assert wait_for(lambda: lights.frame() != first and any(map(any, lights.frame())))
        lights.update(VIEW)
        assert wait_for(lambda: lights.frame()[4] == (127, 0, 0))
    finally:
        lights.close()
    assert lights._thread is not None and not lights._thread.is_alive()
