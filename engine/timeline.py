"""A round's steps: the beats that the strip, the board page and the phones show together.

Made once, here, from the round's engine events (as dicts, the form the history and
the record keep).  A step is the reveal; one figure's move or stay; a figure landing
on dung; a rhino run; or a run of penalties for the same hit.  The round's closing
``round_end`` event rides on the last step.  ``board_at`` gives the board as of a
cursor ``k`` (``k`` steps shown), so no display has to know what a step does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

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

EventDict = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Step:
    """One beat of a round: its kind (the type of its first event) and its events."""

    kind: str
    events: tuple[EventDict, ...]

    @property
    def weight(self) -> float:
        return WEIGHTS.get(self.kind, 0.5)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "events": [dict(e) for e in self.events]}


def _same_hit(a: EventDict, b: EventDict) -> bool:
    return (b.get("type") == "penalty" and a.get("figure") == b.get("figure")
            and a.get("cause") == b.get("cause"))


def round_steps(events: Sequence[EventDict]) -> list[Step]:
    """The steps of one round, in order (at least one: the reveal)."""
    steps: list[list[EventDict]] = []
    for event in events:
        kind = event.get("type")
        joins = steps and (kind == "round_end" or (
            kind == "penalty" and steps[-1][0].get("type") == "penalty"
            and _same_hit(steps[-1][-1], event)))
        if joins:
            steps[-1].append(event)
        else:
            steps.append([event])
    return [Step(str(group[0].get("type")), tuple(group)) for group in steps]


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
            kind = event.get("type")
            if kind == "move":
                positions[str(event["figure"])] = int(event["to_space"])
            elif kind == "rhino_run":
                rhino = int(event["to_space"])
            elif kind == "penalty":
                minus[str(event["player"])] = int(event["total"])
    return BoardState(rhino, positions, minus)
