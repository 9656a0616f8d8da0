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

from kalimambo.engine.values import is_int
from kalimambo.firmware.scene import (
    DARK,
    DUNG_COLOUR,
    EXPLORER_COLOURS,
    KALI_COLOUR,
    MAMBO_COLOUR,
    RGB,
    Scene,
    map_space,
    scale,
    scene_from_view,
    seat_colours,
)
from kalimambo.firmware.steps import (
    GLOW,
    Drawing,
    StripStep,
    rewind,
    round_end_step,
    setup_step,
    sweep,
    table_step,
)

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
    return value if is_int(value) else default


class Show:
    """The steady picture of the latest view, the one step of the table's that plays,
    the round's end sweeping over it, the pieces to move by hand, and the idle and
    celebration animations.

    One step at a time: a new step of the table's ends the one playing at once, so the
    strip is always on the table's step, however fast the host presses "Next"."""

    def __init__(self, spaces: int) -> None:
        self.spaces = spaces
        self.view: Mapping[str, Any] = {}
        self.phase = "lobby"
        self.target = Scene(spaces)
        self.scene = Scene(spaces)
        """The scene before the playing step (equals ``target`` when none plays)."""
        self.step: StripStep | None = None
        """The step playing: one of the table's, or the set-up's."""
        self.step_start = 0.0
        self.ending: StripStep | None = None
        """The round's end, swept over the last step as it plays."""
        self.ending_start = 0.0
        self.marks: tuple[tuple[int, RGB], ...] = ()
        """The pieces to move by hand (the view's ``placing``): each target space and
        the piece's colour, blinking while no step plays."""
        self.waiting: tuple[int, ...] = ()
        """While a round is picked: the spaces of the figures whose players have not
        picked yet, which breathe (never dark: a figure never seems gone)."""
        self.moment = ""
        """The table's step the strip shows: "game/round/step", or "game/-" with no
        playback (the board page's ``data-moment``; the tests compare the two)."""
        self.winner_colours: tuple[RGB, ...] = ()
        self.cued: set[int] = set()

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
            self.step = self.ending = None
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
                # the step playing (or the set-up) ends here; the scene before the new
                # step is the view's, taken back by the new step's events
                self.scene = rewind(target, events, length)
                self._start(table_step(str(told.get("kind")), events, seconds,
                                       target.colours, length, self.spaces), now)
                self.ending = None
            elif kind == "playback_ended" and not told.get("skipped"):
                self.ending = round_end_step(_shown(view)[_int(told.get("first")):],
                                             seconds)
                self.ending_start = now
            elif kind == "game_started" and target.figures:
                setup = view.get("setup")
                order = setup.get("order", []) if isinstance(setup, Mapping) else []
                self.scene = target.copy()
                self._start(setup_step(target, [str(n) for n in order]), now)
            elif kind in START_AFRESH:
                self.step = self.ending = None
        if self.step is None:
            self.scene = target.copy()
        self.phase = str(view.get("phase", "lobby"))
        self.view, self.target = view, target
        self.marks = placing_marks(view.get("placing"), target, length, self.spaces)
        self.waiting = waiting_spaces(view, target) if self.phase == "picking" else ()
        self.moment = moment(view)
        winners = view.get("winners") or []
        colours = seat_colours(view)
        self.winner_colours = tuple(colours[w] for w in winners if w in colours)

    def _start(self, step: StripStep | None, now: float) -> None:
        self.step, self.step_start = step, now

    # -- time ---------------------------------------------------------------------
    @property
    def playing(self) -> bool:
        return self.step is not None or self.ending is not None

    def advance(self, now: float) -> list[str]:
        """End the step and the sweep whose time is over; the cues of those that began."""
        cues: list[str] = []
        if self.step is not None and now - self.step_start >= self.step.seconds:
            self.step = None
            self.scene = self.target.copy()
        if self.ending is not None and now - self.ending_start >= self.ending.seconds:
            self.ending = None
        playing = [step for step in (self.step, self.ending) if step is not None]
        for step in playing:
            if id(step) not in self.cued and step.cue:
                cues.append(step.cue)
        self.cued = {id(step) for step in playing}
        return cues

    def animated(self) -> bool:
        """Whether the picture changes with time (else the loop may sleep)."""
        return (self.playing or bool(self.marks) or bool(self.waiting)
                or self.phase in ("lobby", "finished"))

    def draw(self, now: float) -> Drawing:
        """The picture at ``now``: the playing step (with the round's end sweeping over
        it), or the phase's picture, with the pieces to move by hand blinking."""
        if self.step is not None:
            top, under = self.step.draw(self.scene, _fraction(now - self.step_start,
                                                              self.step))
            if self.ending is not None:
                sweep(top, _fraction(now - self.ending_start, self.ending))
            return top, under
        if self.ending is not None:
            return self.ending.draw(self.target, _fraction(now - self.ending_start,
                                                           self.ending))
        if self.marks or self.waiting:
            top, under = self.target.draw()
            return blink(breathe(top, self.waiting, now), self.marks, now), under
        if self.phase == "lobby" or (not self.target.figures and self.phase != "finished"):
            return attract(self.spaces, now), []
        if self.phase == "finished":
            return celebration(self.target, self.winner_colours, now)
        return self.target.draw()


def _fraction(elapsed: float, step: StripStep) -> float:
    return min(1.0, max(0.0, elapsed / step.seconds)) if step.seconds > 0 else 1.0


def moment(view: Mapping[str, Any]) -> str:
    """The step a view shows, as "game/round/step" ("game/-" with no playback)."""
    playback = view.get("playback")
    game = view.get("game_id")
    if isinstance(playback, Mapping) and "round" in playback:
        return f"{game}/{playback.get('round')}/{playback.get('step')}"
    return f"{game}/-"


MARK_PERIOD_S = 0.8
"""A piece to move blinks once in this time: full for 60 % of it, dim for the rest."""
MARK_DIM = GLOW
"""A blinking mark's low: dim, never dark, so no piece ever seems to have gone."""
BREATH_PERIOD_S = 2.0
BREATH_LOW = 0.4
"""A figure whose player has yet to pick breathes between 40 % and full in 2 s."""


def waiting_spaces(view: Mapping[str, Any], scene: Scene) -> tuple[int, ...]:
    """The spaces of the figures whose seats say they have not picked (a view that does
    not say, an older table's, shows every figure steady)."""
    seats = view.get("seats") or []
    names = [seat.get("name") for seat in seats
             if isinstance(seat, Mapping) and seat.get("picked") is False]
    return tuple(scene.figures[name] for name in names if name in scene.figures)


def breathe(top: list[RGB], spaces: Sequence[int], now: float) -> list[RGB]:
    """``top`` with each of ``spaces`` breathing: its colour between 40 % and full."""
    if not spaces:
        return top
    wave = 0.5 - 0.5 * math.cos(2 * math.pi * now / BREATH_PERIOD_S)
    factor = BREATH_LOW + (1 - BREATH_LOW) * wave
    top = list(top)
    for space in spaces:
        top[space] = scale(top[space], factor)
    return top


def placing_marks(placing: Any, scene: Scene, track_length: int, spaces: int
                  ) -> tuple[tuple[int, RGB], ...]:
    """Each target space of the strip view's ``placing`` (``[piece, name, to]`` each)
    with its piece's colour."""
    marks: list[tuple[int, RGB]] = []
    for move in placing if isinstance(placing, list) else []:
        if not isinstance(move, list) or len(move) != 3 or not _is_space(move[2]):
            continue
        piece, name, to = move
        colour = (MAMBO_COLOUR if piece == "mambo" else DUNG_COLOUR if piece == "heap"
                  else KALI_COLOUR if piece == "kali" else scene.colour(str(name)))
        marks.append((map_space(to, track_length, spaces), colour))
    return tuple(marks)


def _is_space(value: Any) -> bool:
    return is_int(value) and value >= 0


def blink(top: list[RGB], marks: Sequence[tuple[int, RGB]], now: float) -> list[RGB]:
    """``top`` with each mark's space in its colour for 60 % of a blink, dim after."""
    if not marks:
        return top
    lit = (now % MARK_PERIOD_S) < 0.6 * MARK_PERIOD_S
    top = list(top)
    for space, colour in marks:
        # lit: as the scene has it there (a figure still to pick breathes on)
        shown = top[space] if top[space] != DARK else colour
        top[space] = shown if lit else scale(colour, MARK_DIM)
    return top


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
