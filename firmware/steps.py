"""One animation per step of the table's playback, drawn over the scene before it.

The table makes a round's steps (``kalimambo.engine.timeline``: a run of penalties
for one hit is one step) and says how long each lasts; a step here is one of them,
made from its events.  It is drawn over the scene before it (the board the table showed
before the step) and knows how it looks at a fraction ``u`` (0..1) of its time, and which
buzzer cue goes with it.
Drawing is plain list work on one colour per space, cheap enough for 60 frames per
second on a Pi Zero 2 W.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from kalimambo.engine.events import KALI, Dung, Event, Move, Penalty, RhinoRun, RoundEnd, Stay
from kalimambo.engine.rules import forward
from kalimambo.firmware.scene import (
    DARK,
    MAMBO_COLOUR,
    RGB,
    SPLAT_COLOUR,
    Scene,
    map_space,
    scale,
)

Drawing = tuple[list[RGB], list[RGB | None]]
TRAIL = (0.5, 0.25, 0.12)
WHITE: RGB = (255, 255, 255)
IMPACT: RGB = (255, 40, 40)
TRAVEL_SHARE = 0.6
"""The part of a move or a run spent travelling; the rest holds the result."""
GLOW = 0.12
"""A piece's dim glow: where it is to go, not yet placed, never dark (a dark space reads
as a piece gone)."""


@dataclass(slots=True)
class StripStep:
    """One step of a round as the strip draws it, ``seconds`` long (the table's time for it);
    the engine's ``timeline.Step`` is the same beat as events."""

    seconds: float = 1.0
    cue: str | None = None
    always_auto: bool = False

    def draw(self, scene: Scene, u: float) -> Drawing:
        """The picture at fraction ``u`` of the step, ``scene`` being the state before."""
        return scene.draw()


@dataclass(slots=True)
class RevealStep(StripStep):
    """Cards are turned over: a faint glow around the ring behind the figures."""

    def draw(self, scene: Scene, u: float) -> Drawing:
        top, under = scene.draw()
        if u < 0.5:
            glow = scale(WHITE, 0.12 * (1 - 2 * u) + 0.02)
            top = [glow if colour == DARK else colour for colour in top]
        return top, under


@dataclass(slots=True)
class StayStep(StripStep):
    """A figure's turn came and it stays: it blinks twice where it stands."""

    figure: str = ""
    space: int = 0

    def draw(self, scene: Scene, u: float) -> Drawing:
        top, under = scene.draw()
        if int(u * 4) % 2 == 0:
            top[self.space] = scale(scene.colour(self.figure), 0.15)
        return top, under


@dataclass(slots=True)
class MoveStep(StripStep):
    """A move: a short trail from the old space to the new, then the figure blinks
    on its new space so the players move the real one."""

    figure: str = ""
    from_space: int = 0
    to_space: int = 0

    def draw(self, scene: Scene, u: float) -> Drawing:
        length = scene.spaces
        moved = scene.copy()
        moved.figures.pop(self.figure, None)
        top, under = moved.draw()
        colour = scene.colour(self.figure)
        distance = forward(self.from_space, self.to_space, length)
        travelled = round(min(1.0, u / TRAVEL_SHARE) * distance)
        head = (self.from_space + travelled) % length
        occupied = set(moved.figures.values())
        for k, factor in enumerate(TRAIL, start=1):
            if k > travelled:
                break
            space = (head - k) % length
            if space not in occupied and space != moved.rhino:
                top[space] = scale(colour, factor)
        if u >= TRAVEL_SHARE and int((u - TRAVEL_SHARE) * 10) % 2 == 1:
            top[head] = scale(colour, 0.3)
        else:
            top[head] = colour
        return top, under


@dataclass(slots=True)
class DungStep(StripStep):
    """A figure landed on a heap: a splat spreading from the heap's space."""

    figure: str = ""
    space: int = 0

    def draw(self, scene: Scene, u: float) -> Drawing:
        top, under = scene.draw()
        length = scene.spaces
        if u < 0.15:
            top[self.space] = WHITE
            return top, under
        radius = 1 + int(u * 3)
        fade = 1.0 - 0.6 * u
        occupied = set(scene.figures.values())
        for offset in range(-radius, radius + 1):
            space = (self.space + offset) % length
            if offset and (space in occupied or space == scene.rhino):
                continue
            strength = fade * (1.0 - abs(offset) / (radius + 1))
            top[space] = scale(SPLAT_COLOUR, strength)
        if int(u * 6) % 2 == 1:
            top[self.space] = scene.colour(self.figure)
        return top, under


@dataclass(slots=True)
class RhinoStep(StripStep):
    """Mambo runs: a streak along every space he runs, then the rammed figure shakes."""

    from_space: int = 0
    to_space: int = 0
    rammed: str = ""

    def draw(self, scene: Scene, u: float) -> Drawing:
        length = scene.spaces
        moved = scene.copy()
        moved.rhino = None
        top, under = moved.draw()
        distance = forward(self.from_space, self.to_space, length)
        travelled = round(min(1.0, u / TRAVEL_SHARE) * distance)
        fade = 1.0 if u < TRAVEL_SHARE else 1.0 - (u - TRAVEL_SHARE) / (1 - TRAVEL_SHARE)
        streak = scale(MAMBO_COLOUR, 0.35 * fade)
        occupied = set(moved.figures.values())
        for k in range(travelled):
            space = (self.from_space + k) % length
            if space not in occupied:
                top[space] = streak
        head = (self.from_space + travelled) % length
        top[head] = MAMBO_COLOUR
        if u >= TRAVEL_SHARE and self.rammed in moved.figures:
            hit = moved.figures[self.rammed]
            if int((u - TRAVEL_SHARE) * 12) % 2 == 0:
                top[hit] = IMPACT
        return top, under


@dataclass(slots=True)
class PenaltyStep(StripStep):
    """Someone pays: the ring flashes twice in the payer's colour (for Kali's
    penalties, stripes in every payer's colour)."""

    payers: tuple[str, ...] = ()
    figure: str = ""
    colours: tuple[RGB, ...] = field(default_factory=tuple)

    def draw(self, scene: Scene, u: float) -> Drawing:
        top, under = scene.draw()
        if int(u * 4) % 2 == 1 or not self.colours:
            return top, under
        count = len(self.colours)
        top = [scale(self.colours[s % count], 0.6) for s in range(scene.spaces)]
        hit = scene.figures.get(self.figure)
        if hit is not None:
            top[hit] = self.colours[0]
        return top, under


@dataclass(slots=True)
class RoundEndStep(StripStep):
    """The round is over: one dim sweep round the ring."""

    def draw(self, scene: Scene, u: float) -> Drawing:
        top, under = scene.draw()
        sweep(top, u)
        return top, under


def sweep(top: list[RGB], u: float) -> None:
    """The round's end at fraction ``u``: a dim white head and tail running once round
    the ring over its dark spaces (so over a step still playing too)."""
    head = int(u * len(top))
    for k in range(4):
        space = head - k
        if 0 <= space < len(top) and top[space] == DARK:
            top[space] = scale(WHITE, 0.3 - 0.07 * k)


@dataclass(slots=True)
class SetupStep(StripStep):
    """Set-up: every piece glows dimly where it goes, then heaps, Mambo, each explorer
    and Kali light up one by one, showing where to place every piece."""

    pieces: tuple[tuple[str, int], ...] = ()

    def _scene(self, scene: Scene, count: int) -> Scene:
        """The scene of the first ``count`` pieces."""
        partial = Scene(scene.spaces, colours=scene.colours)
        dung: list[int] = []
        for kind, space in self.pieces[:count]:
            if kind == "dung":
                dung.append(space)
            elif kind == "rhino":
                partial.rhino = space
            else:
                partial.figures[kind] = space
        partial.dung = tuple(dung)
        return partial

    def draw(self, scene: Scene, u: float) -> Drawing:
        shown = min(len(self.pieces), int(u * (len(self.pieces) + 2)) + 1)
        every, under = self._scene(scene, len(self.pieces)).draw()
        top, _ = self._scene(scene, shown).draw()
        top = [colour if colour != DARK else scale(glow, GLOW)
               for colour, glow in zip(top, every, strict=True)]
        if shown < len(self.pieces) or u < 0.9:
            newest = self.pieces[shown - 1][1] if shown else None
            if newest is not None and int(u * 40) % 2 == 1:
                top[newest] = scale(top[newest], 0.3)
        return top, under


def setup_step(scene: Scene, order: Sequence[str]) -> SetupStep:
    """The set-up step for a scene: heaps, Mambo, explorers from behind, Kali."""
    pieces: list[tuple[str, int]] = [("dung", space) for space in scene.dung]
    if scene.rhino is not None:
        pieces.append(("rhino", scene.rhino))
    names = [name for name in order if name in scene.figures]
    names += sorted(name for name in scene.figures if name not in names and name != KALI)
    if KALI in scene.figures:
        names.append(KALI)
    pieces += [(name, scene.figures[name]) for name in names]
    return SetupStep(seconds=0.3 * len(pieces) + 1.0, pieces=tuple(pieces), always_auto=True)


def table_step(kind: str, events: Sequence[Event], seconds: float,
               colours: Mapping[str, RGB], track_length: int, spaces: int) -> StripStep | None:
    """The animation of one of the table's steps (its ``kind`` and its events, typed as
    the engine made them), ``seconds`` long, played forward from the scene before it;
    None for a kind this strip does not know (a newer table's)."""
    if not events:
        return None
    event = events[0]

    def at(value: int) -> int:
        return map_space(value, track_length, spaces)

    if kind == "reveal":
        return RevealStep(seconds)
    if isinstance(event, Stay):
        return StayStep(seconds, figure=event.figure, space=at(event.space))
    if isinstance(event, Move):
        return MoveStep(seconds, figure=event.figure, from_space=at(event.from_space),
                        to_space=at(event.to_space))
    if isinstance(event, Dung):
        return DungStep(seconds, cue="dung", figure=event.figure, space=at(event.space))
    if isinstance(event, RhinoRun):
        return RhinoStep(seconds, cue="rhino", from_space=at(event.from_space),
                         to_space=at(event.to_space), rammed=event.rammed)
    if isinstance(event, Penalty):  # the table's step is the whole run of one hit's
        payers = tuple(e.player for e in events if isinstance(e, Penalty))
        return PenaltyStep(seconds, payers=payers, figure=event.figure,
                           colours=tuple(colours.get(p, WHITE) for p in payers))
    return None


def round_end_step(events: Sequence[Event], seconds: float) -> StripStep | None:
    """The round's end (its closing ``round_end``), for the table's ``seconds``; the
    last round's is the game's end."""
    end = next((e for e in events if isinstance(e, RoundEnd)), None)
    if end is None:
        return None
    return RoundEndStep(seconds, always_auto=True,
                        cue="win" if end.game_over else "round_end")
