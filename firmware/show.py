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
    DUNG_COLOUR,
    EXPLORER_COLOURS,
    KALI_COLOUR,
    MAMBO_COLOUR,
    RGB,
    Scene,
    map_space,
    scale,
    scene_of,
)
from kalimambo.firmware.steps import (
    GLOW,
    Drawing,
    StripStep,
    round_end_step,
    setup_step,
    sweep,
    table_step,
)
from kalimambo.firmware.stripview import PieceMark, StripState, read_strip
from kalimambo.web.core.viewtypes import Happening, PublicView

ATTRACT_COLOURS: tuple[RGB, ...] = (*EXPLORER_COLOURS.values(), MAMBO_COLOUR, KALI_COLOUR)
START_AFRESH = frozenset({"step_skipped", "round_undone", "lobby_opened", "replay_started",
                          "replay_stopped"})
"""What the table says that makes whatever is playing out of date: draw the view."""
PLAYBACK = frozenset({"step_shown", "step_skipped", "playback_ended"})
"""What a playback tells: the table's own, or a replay's (``"replay": true``)."""


class Show:
    """The steady picture of the latest view, the one step of the table's that plays,
    the round's end sweeping over it, the pieces to move by hand, and the idle and
    celebration animations.

    One step at a time: a new step of the table's ends the one playing at once, so the
    strip is always on the table's step, however fast the host presses "Next"."""

    def __init__(self, spaces: int) -> None:
        self.spaces = spaces
        self.state = StripState()
        """What the table's last message said, read."""
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
    def update(self, view: PublicView | Mapping[str, Any], now: float, whole: bool = False,
               happened: Sequence[Happening | Mapping[str, Any]] = ()) -> None:
        """Take the table's latest view, read once (``read_strip``: during a replay the
        replay's board), and act on what the change did (``happened``, told beside the
        view): a step to animate for the table's time, played forward from the board
        before it (the one the strip showed); its round's end; a new game's set-up; a
        skip, an undo, a new lobby or a replay's start or end draws the view at once.  A
        ``whole`` view (the first after connecting) is drawn as it is.  Nothing here
        compares two views."""
        state = read_strip(view, happened)
        target = scene_of(state, self.spaces)
        length = state.track_length or self.spaces
        for told in () if whole else state.happened:
            if told.type in PLAYBACK and told.replay != state.replay:
                continue  # the other board's (a live table behind a replay)
            if told.type == "step_shown":
                # the step playing (or the set-up) ends here; the new one plays forward
                # from the board before it: the one the table showed last
                self.scene = self.target.copy()
                self._start(table_step(told.kind, state.shown(told.first, told.count),
                                       told.seconds, target.colours, length, self.spaces),
                            now)
                self.ending = None
            elif told.type == "playback_ended" and not told.skipped:
                self.ending = round_end_step(state.shown(told.first), told.seconds)
                self.ending_start = now
            elif told.type == "game_started" and target.figures:
                self.scene = target.copy()
                self._start(setup_step(target, state.order), now)
            elif told.type in START_AFRESH:
                self.step = self.ending = None
        if whole:
            self.step = self.ending = None
        if self.step is None:
            self.scene = target.copy()
        self.phase = state.phase
        self.state, self.target = state, target
        self.marks = placing_marks(state.placing, target, length, self.spaces)
        self.waiting = waiting_spaces(state, target) if self.phase == "picking" else ()
        self.moment = moment(state)
        colours = target.colours
        self.winner_colours = tuple(colours[w] for w in state.winners if w in colours)

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


def moment(state: StripState) -> str:
    """The step a view shows, as "game/round/step" ("game/-" with no playback)."""
    if state.playback is not None:
        return f"{state.game_id}/{state.playback.round}/{state.playback.step}"
    return f"{state.game_id}/-"


MARK_PERIOD_S = 0.8
"""A piece to move blinks once in this time: full for 60 % of it, dim for the rest."""
MARK_DIM = GLOW
"""A blinking mark's low: dim, never dark, so no piece ever seems to have gone."""
BREATH_PERIOD_S = 2.0
BREATH_LOW = 0.4
"""A figure whose player has yet to pick breathes between 40 % and full in 2 s."""


def waiting_spaces(state: StripState, scene: Scene) -> tuple[int, ...]:
    """The spaces of the figures whose seats say they have not picked (a view that does
    not say, an older table's, shows every figure steady)."""
    return tuple(scene.figures[seat.name] for seat in state.seats
                 if seat.picked is False and seat.name in scene.figures)


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


def placing_marks(placing: Sequence[PieceMark], scene: Scene, track_length: int,
                  spaces: int) -> tuple[tuple[int, RGB], ...]:
    """Each target space of the pieces to move by hand with its piece's colour."""
    return tuple((map_space(mark.to, track_length, spaces),
                  MAMBO_COLOUR if mark.piece == "mambo" else DUNG_COLOUR
                  if mark.piece == "heap" else KALI_COLOUR if mark.piece == "kali"
                  else scene.colour(str(mark.name))) for mark in placing)


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
