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
from kalimambo.firmware.steps import (
    Drawing,
    Step,
    rewind,
    round_end_step,
    setup_step,
    table_step,
)

MAX_QUEUED_STEPS = 200
ATTRACT_COLOURS: tuple[RGB, ...] = (*EXPLORER_COLOURS.values(), MAMBO_COLOUR, KALI_COLOUR)
START_AFRESH = frozenset({"step_skipped", "round_undone", "lobby_opened", "replay_started",
                          "replay_stopped"})
"""What the table says that makes whatever is playing out of date: draw the view."""
PLAYBACK = frozenset({"step_shown", "step_skipped", "playback_ended"})
"""What a playback tells: the table's own, or a replay's (``"replay": true``)."""


def _shown(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    playback = view.get("playback")
    shown = playback.get("shown") if isinstance(playback, Mapping) else None
    return shown if isinstance(shown, list) else []


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


class Show:
    """The steady picture of the latest view, the queued steps the table told of, and
    the idle and celebration animations."""

    def __init__(self, spaces: int) -> None:
        self.spaces = spaces
        self.view: Mapping[str, Any] = {}
        self.phase = "lobby"
        self.target = Scene(spaces)
        self.scene = Scene(spaces)
        """The scene before the current step (equals ``target`` once all are done)."""
        self.steps: list[Step] = []
        """Queued steps, each as long as the table said."""
        self.step_start = 0.0
        self.winner_colours: tuple[RGB, ...] = ()
        self.cued: Step | None = None

    # -- input --------------------------------------------------------------------
    def update(self, view: Mapping[str, Any], now: float, whole: bool = False) -> None:
        """Take the table's latest view (during a replay, the replay's board over it) and
        act on its ``happened``: a step to animate for the table's time, its round's end,
        a new game's set-up; a skip, an undo, a new lobby or a replay's start or end
        draws the view at once.  A ``whole`` view (the first after connecting) is drawn
        as it is.  Nothing here compares two views."""
        target = scene_from_view(view, self.spaces)
        length = _int(view.get("track_length"), self.spaces) or self.spaces
        replaying = bool(view.get("replay"))
        happened = view.get("happened")
        if whole or not isinstance(happened, list):
            happened = []
            self.steps = []
        for told in happened:
            if not isinstance(told, Mapping):
                continue
            kind = told.get("type")
            if kind in PLAYBACK and bool(told.get("replay")) != replaying:
                continue  # the other board's (a live table behind a replay)
            seconds = float(told.get("seconds") or 0.0)
            if kind == "step_shown":
                first = _int(told.get("first"))
                events = _shown(view)[first:first + _int(told.get("count"))]
                step = table_step(str(told.get("kind")), events, seconds, target.colours,
                                  length, self.spaces)
                self._drop_flourishes(now)
                if not self.steps:
                    self.scene = rewind(target, events, length)
                    self.step_start = now
                self._queue(step)
            elif kind == "playback_ended" and not told.get("skipped"):
                self._queue(round_end_step(_shown(view)[_int(told.get("first")):], seconds))
            elif kind == "game_started" and target.figures:
                setup = view.get("setup")
                order = setup.get("order", []) if isinstance(setup, Mapping) else []
                self.steps, self.step_start, self.scene = [], now, target.copy()
                self._queue(setup_step(target, [str(n) for n in order]))
            elif kind in START_AFRESH:
                self.steps = []
        if not self.steps:
            self.scene = target.copy()
        self.phase = str(view.get("phase", "lobby"))
        self.view, self.target = view, target
        winners = view.get("winners") or []
        colours = seat_colours(view)
        self.winner_colours = tuple(colours[w] for w in winners if w in colours)

    def _drop_flourishes(self, now: float) -> None:
        """A step of the table's cursor has come: the set-up's intro and the last round's
        end sweep (steps of the strip's own, ``always_auto``) give way at once, playing
        or queued, so the strip never falls behind the board page by their length."""
        if not self.steps:
            return
        current = self.steps[0]
        self.steps = [queued for queued in self.steps if not queued.always_auto]
        if self.steps and self.steps[0] is not current:
            self.step_start = now

    def _queue(self, step: Step | None) -> None:
        if step is not None:
            self.steps.append(step)
            del self.steps[:-MAX_QUEUED_STEPS]

    # -- time ---------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return bool(self.steps)

    def advance(self, now: float) -> list[str]:
        """Move past finished steps; the cues of steps that began."""
        cues: list[str] = []
        while self.steps:
            step = self.steps[0]
            if now - self.step_start < step.seconds:
                break
            self.steps.pop(0)
            step.apply(self.scene)
            self.step_start += step.seconds
        if not self.steps:
            self.scene = self.target.copy()
        elif self.steps[0] is not self.cued:
            self.cued = self.steps[0]
            if self.cued.cue:
                cues.append(self.cued.cue)
        return cues

    def animated(self) -> bool:
        """Whether the picture changes with time (else the loop may sleep)."""
        return bool(self.steps) or self.phase in ("lobby", "finished")

    def draw(self, now: float) -> Drawing:
        """The picture at ``now``: the current step, or the phase's picture."""
        if self.steps:
            step = self.steps[0]
            elapsed = now - self.step_start
            u = min(1.0, max(0.0, elapsed / step.seconds)) if step.seconds > 0 else 1.0
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
