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
from kalimambo.firmware.board import BoardConfig, parse_board
from kalimambo.firmware.lights import Lights

PLAYERS = list(SAMPLE_NAMES)
LED_COUNTS = (32, 64, 160)


def bench_board(led_count: int, fps: int = 60) -> BoardConfig:
    """32 spaces spread over ``led_count`` LEDs (1, 2 or 5 per space)."""
    return parse_board({"track": {"spaces": 32},
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


def _busy_lights(board: BoardConfig, now: list[float]) -> Lights:
    """Lights (sim, no thread) in the middle of animating a seven-player round."""
    rng = random.Random(4)
    game = Game(PLAYERS, random_setup(PLAYERS, 32, rng), 32, seed=4)
    lights = Lights(board, "sim", clock=lambda: now[0], run_thread=False)
    lights.update(_view(game))
    lights.show.steps.clear()
    events = [e.to_dict() for e in
              game.play_round({p: rng.choice(game.hand(p)) for p in PLAYERS})]
    steps = round_steps(events)
    told, first = [], 0
    for step, seconds in zip(steps, step_seconds(steps, DEFAULT_PAUSE_MS), strict=True):
        count = sum(1 for e in step.events if e["type"] != "round_end")
        told.append({"type": "step_shown", "kind": step.kind, "first": first,
                     "count": count, "seconds": seconds})
        first += len(step.events)
    lights.update({**_view(game), "playback": {"shown": events}, "happened": told})
    return lights


def frame_times(led_count: int, frames: int = 3000) -> dict[str, float]:
    """Per-frame compute time (ms) across a whole round's animation and the attract."""
    board = bench_board(led_count)
    now = [0.0]
    lights = _busy_lights(board, now)
    round_s = sum(step.seconds for step in lights.show.steps)
    step = round_s / frames
    times: list[float] = []
    for i in range(frames):
        now[0] = i * step
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
    board = bench_board(led_count, fps)
    lights = Lights(board, "sim")
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


def run(frames: int = 3000, seconds: float = 3.0) -> dict[str, Any]:
    """Every figure, as one JSON-ready dict."""
    return {
        "frame_compute": {str(n): frame_times(n, frames) for n in LED_COUNTS},
        "animation_60fps": {"160": cpu_share(160, 60, seconds)},
        "targets": {"frame_ms_160": 0.5, "cpu_share_percent_60fps": 5.0},
        "machine": {"python": platform.python_version(), "cpu": platform.machine(),
                    "system": platform.platform(terse=True)},
    }
