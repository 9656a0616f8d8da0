"""A round's steps: the beats that the strip, the board page and the phones show together.

Made once, here, from the round's engine events, typed as the engine made them (a
stored game's are read back with ``event_from_dict``).  A step is the reveal; one
figure's move or stay; a figure landing on dung; a rhino run; or a run of penalties for
the same hit.  The round's closing
``round_end`` event rides on the last step.  ``board_at`` gives the board as of a
cursor ``k`` (``k`` steps shown), so no display has to know what a step does.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from kalimambo.engine.events import Event, Move, Penalty, RhinoRun

WEIGHTS = {"reveal": 1.0, "stay": 0.6, "move": 1.0, "dung": 1.0, "rhino_run": 1.0,
           "penalty": 1.0}
"""How long each kind of step lasts, as a share of the pause (auto pacing).  Every step
that changes the real board (a move, a dung hit, Mambo's run, a group of penalties) and
the reveal get the whole pause; a figure that stays, with nothing to move, a little
over half of it, still long enough to read its line."""

END_SECONDS = 1.0
"""How long a round's end is shown (its ``round_end``: a sweep on the strip, a line on
the board), in any pacing and at any pause.  It comes with the playback's end, after
the last step, so a long one would hold back the next round's reveal."""

@dataclass(frozen=True, slots=True)
class Step:
    """One beat of a round: its kind (the type of its first event) and its events."""

    kind: str
    events: tuple[Event, ...]

    @property
    def weight(self) -> float:
        return WEIGHTS.get(self.kind, 0.5)


def _same_hit(a: Event, b: Penalty) -> bool:
    """Whether penalty ``b`` pays for the same hit as ``a`` (a penalty too)."""
    return isinstance(a, Penalty) and a.figure == b.figure and a.cause == b.cause


def round_steps(events: Sequence[Event]) -> list[Step]:
    """The steps of one round, in order (at least one: the reveal)."""
    steps: list[list[Event]] = []
    for event in events:
        joins = steps and (event.type == "round_end" or (
            isinstance(event, Penalty) and isinstance(steps[-1][0], Penalty)
            and _same_hit(steps[-1][-1], event)))
        if joins:
            steps[-1].append(event)
        else:
            steps.append([event])
    return [Step(group[0].type, tuple(group)) for group in steps]


def step_seconds(steps: Sequence[Step], pause_ms: int) -> list[float]:
    """How long each step lasts in auto pacing: weight x pause.  Never shortened to fit
    a round into some budget: the people moving the figures set the pace."""
    pause = pause_ms / 1000
    return [step.weight * pause for step in steps]


@dataclass(frozen=True, slots=True)
class BoardState:
    """Where everything stands: Mambo, every figure, everyone's minus points."""

    rhino: int | None
    positions: dict[str, int]
    minus_points: dict[str, int]


def board_at(before: BoardState, steps: Sequence[Step], k: int) -> BoardState:
    """The board after the first ``k`` steps, from the board before the round."""
    rhino = before.rhino
    positions = dict(before.positions)
    minus = dict(before.minus_points)
    for step in steps[:k]:
        for event in step.events:
            if isinstance(event, Move):
                positions[event.figure] = event.to_space
            elif isinstance(event, RhinoRun):
                rhino = event.to_space
            elif isinstance(event, Penalty):
                minus[event.player] = event.total
    return BoardState(rhino, positions, minus)
