"""How eventful a finished game was: its most striking moment, weighed, and the most
eventful of several (attract mode shows it, with the moment as the reason)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kalimambo.engine.events import Dung, Penalty, RhinoRun
from kalimambo.web.core.viewtypes import ReplayReason
from kalimambo.web.table.storedgame import ReplayGame

WEIGHT_RHINO_SPACE = 1.0
WEIGHT_PENALTY_POINT = 2.0
WEIGHT_DUNG_HIT = 1.0
"""How eventful a game is: its most striking moment, weighed: one point per space of
Mambo's longest run, two per minus point of the biggest loss of one player in one
round, one per time an explorer stepped in dung over the game (a long run or a
heavy blow makes a better story than a game of many small splats)."""


@dataclass(frozen=True, slots=True)
class Highlight:
    """Why a game was picked: how striking, and the reason as the view shows it (a
    message code for the pages and its values)."""

    score: float
    reason: ReplayReason

    @property
    def code(self) -> str:
        return self.reason["code"]

    @property
    def params(self) -> Mapping[str, object]:
        return self.reason["params"]

    def to_view(self) -> ReplayReason:
        return self.reason


def highlight(game: ReplayGame) -> Highlight | None:
    """The game's most striking moment (see the weights above), or None for a quiet one."""
    found: list[Highlight] = []
    dung = 0
    for played in game.rounds:
        lost: dict[str, int] = {}
        for event in played.events:
            if isinstance(event, RhinoRun) and event.spaces > 0:
                found.append(Highlight(event.spaces * WEIGHT_RHINO_SPACE, {
                    "code": "rhino_run",
                    "params": {"spaces": event.spaces, "round": played.number}}))
            elif isinstance(event, Dung):
                dung += 1
            elif isinstance(event, Penalty):
                lost[event.player] = lost.get(event.player, 0) + event.points
        for name, points in lost.items():
            if points > 0:
                found.append(Highlight(points * WEIGHT_PENALTY_POINT, {
                    "code": "penalty",
                    "params": {"name": name, "points": points, "round": played.number}}))
    if dung:
        found.append(Highlight(dung * WEIGHT_DUNG_HIT, {"code": "dung",
                                                         "params": {"count": dung}}))
    # the strongest moment; of equals, the earliest (the first one found)
    return max(found, key=lambda h: h.score, default=None)


def most_eventful(games: list[ReplayGame]) -> tuple[ReplayGame, Highlight] | None:
    """The game with the strongest moment (of equals, the latest finished), and it."""
    best: tuple[ReplayGame, Highlight] | None = None
    for game in games:
        found = highlight(game)
        if found is None:
            continue
        if best is None or (found.score, game.finished or 0) >= (best[1].score,
                                                                 best[0].finished or 0):
            best = (game, found)
    return best
