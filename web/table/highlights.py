"""How eventful a finished game was: its most striking moment, weighed, and the most
eventful of several (attract mode shows it, with the moment as the reason)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    """Why a game was picked: a message code for the pages and its values."""

    score: float
    code: str
    params: dict[str, Any]

    def to_view(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params)}


def highlight(game: ReplayGame) -> Highlight | None:
    """The game's most striking moment (see the weights above), or None for a quiet one."""
    found: list[Highlight] = []
    dung = 0
    for played in game.rounds:
        lost: dict[str, int] = {}
        for event in played.events:
            kind = event.get("type")
            if kind == "rhino_run" and int(event.get("spaces", 0)) > 0:
                spaces = int(event["spaces"])
                found.append(Highlight(spaces * WEIGHT_RHINO_SPACE, "rhino_run",
                                       {"spaces": spaces, "round": played.number}))
            elif kind == "dung":
                dung += 1
            elif kind == "penalty":
                name = str(event["player"])
                lost[name] = lost.get(name, 0) + int(event["points"])
        for name, points in lost.items():
            if points > 0:
                found.append(Highlight(points * WEIGHT_PENALTY_POINT, "penalty",
                                       {"name": name, "points": points,
                                        "round": played.number}))
    if dung:
        found.append(Highlight(dung * WEIGHT_DUNG_HIT, "dung", {"count": dung}))
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
