"""Measuring the lights: frame compute time, and the CPU share of a 60 fps animation.

Shared by ``kalimambo leds bench`` and ``bench/leds.py``.  Targets (issue 4):
at most 0.5 ms per frame for 160 LEDs, and at most 5 % of one core at 60 fps.
Frames are timed during a real round of seven players (every kind of event),
on a board with 32 spaces and the given number of LEDs.
"""

from __future__ import annotations

import platform
import random
import statistics
import time
from typing import Any

from kalimambo.engine import Game, random_setup
from kalimambo.engine.pacing import DEFAULT_PAUSE_MS
from kalimambo.engine.rules import EXPLORER_COLOURS
from kalimambo.engine.setup import SAMPLE_NAMES
from kalimambo.engine.timeline import round_steps, step_seconds
from kalimambo.firmware.hardware import HardwareConfig, parse_hardware
from kalimambo.firmware.lights import Lights

PLAYERS = list(SAMPLE_NAMES)
LED_COUNTS = (32, 64, 160)


def bench_hardware(led_count: int, fps: int = 60) -> HardwareConfig:
    """32 spaces spread over ``led_count`` LEDs (1, 2 or 5 per space)."""
    return parse_hardware({"track": {"spaces": 32},
                           "strip": {"led_count": led_count, "backend": "sim"},
                           "layout": {"leds_per_space": max(1, led_count // 32)},
                           "animation": {"fps": fps}})


def _view(game: Game) -> dict[str, Any]:
    return {"phase": "finished" if game.finished else "picking", "game_id": "bench",
            "track_length": game.track_length, "round": game.current_round,
            "seats": [{"name": n, "colour": c}
                      for n, c in zip(PLAYERS, EXPLORER_COLOURS, strict=True)],
            "rhino": game.board.rhino, "positions": game.positions(),
            "dung": list(game.setup.dung), "history": [{}] * len(game.rounds),
            "winners": game.winners()}


def _round_lights(hardware: HardwareConfig, now: list[float]
                  ) -> tuple[Lights, list[tuple[float, dict[str, Any]]], float]:
    """Lights (sim, no thread) showing a seven-player game, the messages of one round's
    playback each with the time the table's clock sends it (auto pacing), and the
    round's length in seconds."""
    rng = random.Random(4)
    game = Game(PLAYERS, random_setup(PLAYERS, 32, rng), 32, seed=4)
    lights = Lights(hardware, "sim", clock=lambda: now[0], run_thread=False)
    lights.update(_view(game), whole=True)
    played = game.play_round({p: rng.choice(game.hand(p)) for p in PLAYERS})
    events = [e.to_dict() for e in played]
    steps = round_steps(played)
    messages, first, at = [], 0, 0.0
    for k, (step, seconds) in enumerate(
            zip(steps, step_seconds(steps, DEFAULT_PAUSE_MS), strict=True), start=1):
        count = sum(1 for e in step.events if e.type != "round_end")
        told = {"type": "step_shown", "round": 1, "step": k, "kind": step.kind,
                "first": first, "count": count, "seconds": seconds}
        messages.append((at, {**_view(game), "happened": [told],
                              "playback": {"round": 1, "step": k, "shown": events}}))
        first += len(step.events)
        at += seconds
    return lights, messages, at


def frame_times(led_count: int, frames: int = 3000) -> dict[str, float]:
    """Per-frame compute time (ms) across a whole round's animation and the attract."""
    hardware = bench_hardware(led_count)
    now = [0.0]
    lights, messages, round_s = _round_lights(hardware, now)
    step = round_s / frames
    times: list[float] = []
    for i in range(frames):
        now[0] = i * step
        while messages and messages[0][0] <= now[0]:
            lights.update(messages.pop(0)[1])
        started = time.perf_counter()
        lights.tick()
        times.append((time.perf_counter() - started) * 1000)
    lights.update({"phase": "lobby", "seats": []})  # the attract animation too
    for _ in range(frames // 3):
        now[0] += 1 / 60
        started = time.perf_counter()
        lights.tick()
        times.append((time.perf_counter() - started) * 1000)
    lights.close()
    times.sort()
    return {"mean_ms": round(statistics.fmean(times), 4),
            "p99_ms": round(times[int(len(times) * 0.99)], 4),
            "max_ms": round(times[-1], 4)}


def cpu_share(led_count: int = 160, fps: int = 60, seconds: float = 3.0) -> dict[str, float]:
    """Share of one core used by the lights' own thread animating at ``fps``
    (the attract animation, which never rests), measured over ``seconds``."""
    hardware = bench_hardware(led_count, fps)
    lights = Lights(hardware, "sim")
    try:
        lights.update({"phase": "lobby", "seats": []})
        time.sleep(0.2)
        ticks_before = lights.ticks
        cpu_before, wall_before = time.process_time(), time.perf_counter()
        time.sleep(seconds)
        cpu = time.process_time() - cpu_before
        wall = time.perf_counter() - wall_before
        ticks = lights.ticks - ticks_before
    finally:
        lights.close()
    return {"cpu_share_percent": round(100 * cpu / wall, 2),
            "frames_per_second": round(ticks / wall, 1), "seconds": round(wall, 2)}


def verdict(figures: dict[str, Any]) -> str:
    """The figures as sentences a builder can act on (``kalimambo leds bench``)."""
    compute = figures["frame_compute"]
    targets = figures["targets"]
    machine = figures["machine"]
    sizes = ", ".join(f"{n} LEDs {compute[str(n)]['mean_ms']:.2f} ms" for n in LED_COUNTS)
    biggest = compute[str(LED_COUNTS[-1])]
    frame_ok = biggest["mean_ms"] <= targets["frame_ms_160"]
    animation = figures["animation_60fps"][str(LED_COUNTS[-1])]
    share_ok = animation["cpu_share_percent"] <= targets["cpu_share_percent_60fps"]
    lines = [
        f"This machine ({machine['cpu']}, Python {machine['python']}) computes a frame in "
        f"{sizes} on average (99 % of {LED_COUNTS[-1]}-LED frames within "
        f"{biggest['p99_ms']:.2f} ms; the target is {targets['frame_ms_160']:g} ms): "
        + ("fast enough." if frame_ok else "slower than the target."),
        f"A {LED_COUNTS[-1]}-LED animation at 60 frames a second took "
        f"{animation['cpu_share_percent']:.1f} % of one CPU core and drew "
        f"{animation['frames_per_second']:.0f} frames a second (target: at most "
        f"{targets['cpu_share_percent_60fps']:g} %): "
        + ("room to spare for the table." if share_ok else "too much on this machine."),
    ]
    if frame_ok and share_ok:
        lines.append("The strip will keep up here, at the board file's animation.fps "
                     "(30 by default).")
    else:
        lines.append("Lower animation.fps in the board file (30 by default, 5 at least) "
                     "or use fewer LEDs; '--json' prints every figure.")
    return "\n".join(lines)


def run(frames: int = 3000, seconds: float = 3.0) -> dict[str, Any]:
    """Every figure, as one JSON-ready dict."""
    return {
        "frame_compute": {str(n): frame_times(n, frames) for n in LED_COUNTS},
        "animation_60fps": {"160": cpu_share(160, 60, seconds)},
        "targets": {"frame_ms_160": 0.5, "cpu_share_percent_60fps": 5.0},
        "machine": {"python": platform.python_version(), "cpu": platform.machine(),
                    "system": platform.platform(terse=True)},
    }
