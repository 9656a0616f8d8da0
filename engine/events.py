"""What happens in a round, as plain values.

The strip, the board page and the phones all draw from these events, so each one
carries everything needed to show it without looking at the state: spaces before
and after, who pays and why.  ``to_dict`` gives the JSON form (a ``"type"`` key
plus the fields); ``event_from_dict`` reads it back.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

KALI = "Kali"
"""The name of Kali's figure (reserved: no player may take it)."""

StayReason = Literal["zero", "front", "tie"]
PenaltyCause = Literal["dung", "rammed"]


@dataclass(frozen=True, slots=True)
class _Fields:
    """An event whose JSON form is just its fields (``type`` among them)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Reveal:
    """All cards are turned over: every player's and Kali's top card."""

    round: int
    cards: dict[str, int]
    kali: int
    type: Literal["reveal"] = "reveal"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "round": self.round, "cards": dict(self.cards),
                "kali": self.kali}


@dataclass(frozen=True, slots=True)
class Stay(_Fields):
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


@dataclass(frozen=True, slots=True)
class Move(_Fields):
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


@dataclass(frozen=True, slots=True)
class Dung(_Fields):
    """A move ended on a dung heap; the penalties follow as ``Penalty`` events."""

    figure: str
    space: int
    type: Literal["dung"] = "dung"


@dataclass(frozen=True, slots=True)
class RhinoRun(_Fields):
    """Mambo ran ``spaces`` spaces and rammed the figure now last."""

    from_space: int
    to_space: int
    spaces: int
    rammed: str
    type: Literal["rhino_run"] = "rhino_run"


@dataclass(frozen=True, slots=True)
class Penalty(_Fields):
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


@dataclass(frozen=True, slots=True)
class RoundEnd:
    """The round is over: the minus points after it, and whether the game ended."""

    round: int
    minus_points: dict[str, int]
    game_over: bool
    winners: tuple[str, ...] = ()
    type: Literal["round_end"] = "round_end"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, "round": self.round,
                "minus_points": dict(self.minus_points), "game_over": self.game_over,
                "winners": list(self.winners)}


Event = Reveal | Stay | Move | Dung | RhinoRun | Penalty | RoundEnd

_EVENT_TYPES: dict[str, type[Event]] = {
    "reveal": Reveal, "stay": Stay, "move": Move, "dung": Dung,
    "rhino_run": RhinoRun, "penalty": Penalty, "round_end": RoundEnd,
}


def event_from_dict(data: dict[str, Any]) -> Event:
    """Read an event back from its ``to_dict`` form.

    >>> event_from_dict(Dung("Ana", 14).to_dict())
    Dung(figure='Ana', space=14, type='dung')
    """
    fields = dict(data)
    kind = _EVENT_TYPES[fields.pop("type")]
    if kind is RoundEnd:
        fields["winners"] = tuple(fields.get("winners", ()))
    return kind(**fields)
