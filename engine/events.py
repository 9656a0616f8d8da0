"""What happens in a round, as plain values.

The strip, the board page and the phones all draw from these events, so each one
carries everything needed to show it without looking at the state: spaces before
and after, who pays and why.  ``to_dict`` gives the JSON form (a ``"type"`` key
plus the fields), described here once as a TypedDict beside each event (``EventMove``
for ``Move``, ...: the view's description and the pages' JSDoc take them from here;
a test checks each has exactly its event's fields); ``event_from_dict`` reads it back.
The events travel typed through the table's playback; they become these dicts only
where JSON is written (the view, the store, the lights' socket).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypedDict

KALI = "Kali"
"""The name of Kali's figure (reserved: no player may take it)."""

StayReason = Literal["zero", "front", "tie"]
PenaltyCause = Literal["dung", "rammed"]


# -- the JSON forms (RECORD.md#events), in the order of their keys ------------------------
class EventReveal(TypedDict):
    type: Literal["reveal"]
    round: int
    cards: dict[str, int]
    kali: int


class EventStay(TypedDict):
    figure: str
    card: int
    space: int
    reason: StayReason
    beaten_by: str | None
    type: Literal["stay"]


class EventMove(TypedDict):
    figure: str
    card: int
    from_space: int
    to_space: int
    passed_rhino: bool
    type: Literal["move"]


class EventDung(TypedDict):
    figure: str
    space: int
    type: Literal["dung"]


class EventRhinoRun(TypedDict):
    from_space: int
    to_space: int
    spaces: int
    rammed: str
    type: Literal["rhino_run"]


class EventPenalty(TypedDict):
    player: str
    points: int
    cause: PenaltyCause
    figure: str
    total: int
    for_kali: bool
    type: Literal["penalty"]


class EventRoundEnd(TypedDict):
    type: Literal["round_end"]
    round: int
    minus_points: dict[str, int]
    game_over: bool
    winners: list[str]


RoundEvent = (EventReveal | EventStay | EventMove | EventDung | EventRhinoRun | EventPenalty
              | EventRoundEnd)
"""An event's JSON form."""


# -- the events -------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Reveal:
    """All cards are turned over: every player's and Kali's top card."""

    round: int
    cards: dict[str, int]
    kali: int
    type: Literal["reveal"] = "reveal"

    def to_dict(self) -> EventReveal:
        return {"type": self.type, "round": self.round, "cards": dict(self.cards),
                "kali": self.kali}


@dataclass(frozen=True, slots=True)
class Stay:
    """A figure's turn came and it did not move.

    ``reason`` is ``zero`` (it played a 0), ``front`` (it already leads the
    group) or ``tie`` (another figure with the same card stood further behind:
    ``beaten_by`` names it).
    """

    figure: str
    card: int
    space: int
    reason: StayReason
    beaten_by: str | None = None
    type: Literal["stay"] = "stay"

    def to_dict(self) -> EventStay:
        return {"figure": self.figure, "card": self.card, "space": self.space,
                "reason": self.reason, "beaten_by": self.beaten_by, "type": self.type}


@dataclass(frozen=True, slots=True)
class Move:
    """A figure moved to the front of the group.

    ``passed_rhino`` is true in the loop-full case (RULES.md 6), where the figure
    ran on past Mambo into the first free space.
    """

    figure: str
    card: int
    from_space: int
    to_space: int
    passed_rhino: bool = False
    type: Literal["move"] = "move"

    def to_dict(self) -> EventMove:
        return {"figure": self.figure, "card": self.card, "from_space": self.from_space,
                "to_space": self.to_space, "passed_rhino": self.passed_rhino,
                "type": self.type}


@dataclass(frozen=True, slots=True)
class Dung:
    """A move ended on a dung heap; the penalties follow as ``Penalty`` events."""

    figure: str
    space: int
    type: Literal["dung"] = "dung"

    def to_dict(self) -> EventDung:
        return {"figure": self.figure, "space": self.space, "type": self.type}


@dataclass(frozen=True, slots=True)
class RhinoRun:
    """Mambo ran ``spaces`` spaces and rammed the figure now last."""

    from_space: int
    to_space: int
    spaces: int
    rammed: str
    type: Literal["rhino_run"] = "rhino_run"

    def to_dict(self) -> EventRhinoRun:
        return {"from_space": self.from_space, "to_space": self.to_space,
                "spaces": self.spaces, "rammed": self.rammed, "type": self.type}


@dataclass(frozen=True, slots=True)
class Penalty:
    """A player scores minus points.

    ``figure`` is the figure that was hit; when it is Kali, the player pays for
    having played the lowest card of the round (``for_kali`` is then true).
    """

    player: str
    points: int
    cause: PenaltyCause
    figure: str
    total: int
    for_kali: bool = False
    type: Literal["penalty"] = "penalty"

    def to_dict(self) -> EventPenalty:
        return {"player": self.player, "points": self.points, "cause": self.cause,
                "figure": self.figure, "total": self.total, "for_kali": self.for_kali,
                "type": self.type}


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """The round is over: the minus points after it, and whether the game ended."""

    round: int
    minus_points: dict[str, int]
    game_over: bool
    winners: tuple[str, ...] = ()
    type: Literal["round_end"] = "round_end"

    def to_dict(self) -> EventRoundEnd:
        return {"type": self.type, "round": self.round,
                "minus_points": dict(self.minus_points), "game_over": self.game_over,
                "winners": list(self.winners)}


Event = Reveal | Stay | Move | Dung | RhinoRun | Penalty | RoundEnd

_EVENT_TYPES: dict[str, type[Event]] = {
    "reveal": Reveal, "stay": Stay, "move": Move, "dung": Dung,
    "rhino_run": RhinoRun, "penalty": Penalty, "round_end": RoundEnd,
}


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Read an event back from its ``to_dict`` form.

    >>> event_from_dict(Dung("Ana", 14).to_dict())
    Dung(figure='Ana', space=14, type='dung')
    """
    fields = dict(data)
    kind = _EVENT_TYPES[fields.pop("type")]
    if kind is RoundEnd:
        fields["winners"] = tuple(fields.get("winners", ()))
    return kind(**fields)
