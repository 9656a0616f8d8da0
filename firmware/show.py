"""What the strip shows at a given moment: the state machine behind the lights.

It is pure (no threads, no clock of its own): the caller passes ``now`` in
seconds, so tests can ask for the picture at any instant.  The lights' thread
calls ``advance(now)`` (which gives the buzzer cues of steps that just began)
and then ``draw(now)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from kalimambo.engine.pacing import DEFAULT_PAUSE_MS, PAUSE_MS_MAX, PAUSE_MS_MIN
from kalimambo.firmware.scene import (
    DARK,
    EXPLORER_COLOURS,
    KALI_COLOUR,
    MAMBO_COLOUR,
    RGB,
    Scene,
    scale,
    scene_from_view,
    seat_colours,
)
from kalimambo.firmware.steps import Drawing, Step, rewind, setup_step, steps_from_events

MAX_QUEUED_STEPS = 200
ATTRACT_COLOURS: tuple[RGB, ...] = (*EXPLORER_COLOURS.values(), MAMBO_COLOUR, KALI_COLOUR)


def _skipped(view: Mapping[str, Any]) -> bool:
    """The view's playback is at a step the host skipped to: draw it, do not animate."""
    playback = view.get("playback")
    current = playback.get("current") if isinstance(playback, Mapping) else None
    return isinstance(current, Mapping) and current.get("skipped") is True


def _key(view: Mapping[str, Any]) -> tuple[Any, int]:
    history = view.get("history")
    rounds = len(history) if isinstance(history, list) else view.get("round", 0)
    return view.get("game_id"), rounds if isinstance(rounds, int) else 0


class Show:
    """The steady picture of the latest view, the queued event steps, and the idle
    and celebration animations."""

    def __init__(self, spaces: int, pause_ms: int = DEFAULT_PAUSE_MS) -> None:
        self.spaces = spaces
        self.pause_s = pause_ms / 1000
        self.view: Mapping[str, Any] = {}
        self.phase = "lobby"
        self.target = Scene(spaces)
        self.scene = Scene(spaces)
        """The scene before the current step (equals ``target`` once all are done)."""
        self.steps: list[tuple[Step, float]] = []
        """Queued steps with their durations in seconds."""
        self.step_start = 0.0
        self.key: tuple[Any, int] = (None, 0)
        self.intro_done: set[Any] = set()
        self.winner_colours: tuple[RGB, ...] = ()
        self.cued: Step | None = None

    # -- input --------------------------------------------------------------------
    def set_pause(self, pause_ms: int) -> None:
        """The table's pause per step of weight 1 (its cursor, in either pacing, decides
        when a step comes: the strip only times the animation of each)."""
        if not PAUSE_MS_MIN <= pause_ms <= PAUSE_MS_MAX:
            raise ValueError(f"pause_ms must be {PAUSE_MS_MIN} to {PAUSE_MS_MAX}")
        self.pause_s = pause_ms / 1000

    def update(self, view: Mapping[str, Any], events: Sequence[Mapping[str, Any]] | None,
               now: float) -> None:
        """Take the table's latest view; ``events`` (just resolved) are animated first."""
        target = scene_from_view(view, self.spaces)
        key = _key(view)
        phase = str(view.get("phase", "lobby"))
        if events:
            length = view.get("track_length")
            length = length if isinstance(length, int) and length > 0 else self.spaces
            steps = steps_from_events(events, target.colours, length, self.spaces)
            self._drop_flourishes(now)
            if not self.steps:
                self.scene = rewind(target, events, length)
                self.step_start = now
            self._queue(steps)
        elif (key != self.key and key != (self.key[0], self.key[1] + 1)) \
                or (phase != self.phase and phase == "lobby") or _skipped(view):
            # Undo, a new game, a restart, a skip: whatever was playing is out of date.
            # (One more round in the history is the playback ending, in its own
            # message right after its last step: that step goes on being animated.)
            self.steps = []
            self.scene = target.copy()
        if not self.steps:
            self.scene = target.copy()
        self.key, self.phase, self.view, self.target = key, phase, view, target
        winners = view.get("winners") or []
        colours = seat_colours(view)
        self.winner_colours = tuple(colours[w] for w in winners if w in colours)
        game_id = view.get("game_id", key)
        if (phase in ("picking", "resolving") and key[1] == 0 and not events
                and game_id not in self.intro_done and target.figures):
            self.intro_done.add(game_id)
            setup = view.get("setup")
            order = setup.get("order", []) if isinstance(setup, Mapping) else []
            if not self.steps:
                self.step_start = now
            self._queue([setup_step(target, [str(n) for n in order])])

    def _drop_flourishes(self, now: float) -> None:
        """A step of the table's cursor has come: the set-up's intro and the last round's
        end sweep (steps of the strip's own, ``always_auto``) give way at once, playing
        or queued, so the strip never falls behind the board page by their length."""
        if not self.steps:
            return
        current = self.steps[0]
        self.steps = [queued for queued in self.steps if not queued[0].always_auto]
        if self.steps and self.steps[0] is not current:
            self.step_start = now

    def _queue(self, steps: list[Step]) -> None:
        """Queue steps at the table's pace: weight x pause, as the table's cursor times
        them (``engine.timeline.step_seconds``), so the strip keeps up with it."""
        for step in steps:
            seconds = step.weight * (self.pause_s if not step.always_auto else 1.0)
            self.steps.append((step, seconds))
        del self.steps[:-MAX_QUEUED_STEPS]

    # -- time ---------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return bool(self.steps)

    def advance(self, now: float) -> list[str]:
        """Move past finished steps; the cues of steps that began."""
        cues: list[str] = []
        while self.steps:
            step, seconds = self.steps[0]
            if now - self.step_start < seconds:
                break
            self.steps.pop(0)
            step.apply(self.scene)
            self.step_start += seconds
        if not self.steps:
            self.scene = self.target.copy()
        elif self.steps[0][0] is not self.cued:
            self.cued = self.steps[0][0]
            if self.cued.cue:
                cues.append(self.cued.cue)
        return cues

    def animated(self) -> bool:
        """Whether the picture changes with time (else the loop may sleep)."""
        return bool(self.steps) or self.phase in ("lobby", "finished")

    def draw(self, now: float) -> Drawing:
        """The picture at ``now``: the current step, or the phase's picture."""
        if self.steps:
            step, seconds = self.steps[0]
            elapsed = now - self.step_start
            u = min(1.0, max(0.0, elapsed / seconds)) if seconds > 0 else 1.0
            return step.draw(self.scene, u)
        if self.phase == "lobby" or (not self.target.figures and self.phase != "finished"):
            return attract(self.spaces, now), []
        if self.phase == "finished":
            return celebration(self.target, self.winner_colours, now)
        return self.target.draw()


def attract(spaces: int, now: float) -> list[RGB]:
    """Idle in the lobby: every figure's colour chasing round the ring."""
    top = [DARK] * spaces
    count = len(ATTRACT_COLOURS)
    gap = spaces / count
    head = now * spaces / 8.0  # once round the ring in 8 s
    for i, colour in enumerate(ATTRACT_COLOURS):
        base = head + i * gap
        for k, factor in enumerate((1.0, 0.4, 0.15)):
            space = int(base - k) % spaces
            if top[space] == DARK:
                top[space] = scale(colour, factor)
    return top


def celebration(scene: Scene, colours: Sequence[RGB], now: float) -> Drawing:
    """The game is over: the winners' colours wheel round the ring, pulsing, with
    the winners' figures shining steadily."""
    if not colours:
        return scene.draw()
    level = 0.35 + 0.25 * math.sin(now * 2 * math.pi)
    offset = int(now * 10)
    count = len(colours)
    top = [scale(colours[((s + offset) // 2) % count], level) for s in range(scene.spaces)]
    for name, space in scene.figures.items():
        colour = scene.colour(name)
        if colour in colours:
            top[space] = colour
    return top, []
