"""What happens at the table, as typed values that travel inside the process.

The state machine (``kalimambo.web.core.state``) returns these; the service passes
them to its listeners on each ``Change``.  Engine events stay ``kalimambo.engine.events``
objects here; they become dicts only where JSON is written (the public view, the
event stream, the lights wire).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kalimambo.engine.events import Event
from kalimambo.engine.game import Game


@dataclass(frozen=True, slots=True)
class Settings:
    """The host's settings: hints on or off, and how the playback is paced."""

    hints: bool
    pacing: str
    pause_ms: int

    def to_dict(self) -> dict[str, Any]:
        return {"hints": self.hints, "pacing": self.pacing, "pause_ms": self.pause_ms}


@dataclass(frozen=True, slots=True)
class RoundPlayed:
    """One resolved round: everyone's card (seat order), Kali's, what happened, and
    the minus points after it."""

    round: int
    cards: dict[str, int]
    kali: int
    events: tuple[Event, ...]
    minus_points: dict[str, int]
    _json: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_json", {
            "round": self.round, "cards": dict(self.cards), "kali": self.kali,
            "events": [event.to_dict() for event in self.events],
            "minus_points": dict(self.minus_points)})

    @classmethod
    def of(cls, game: Game, events: list[Event]) -> RoundPlayed:
        """The round ``game`` has just played, which gave ``events``."""
        played = game.rounds[-1]
        return cls(game.rounds_played, dict(zip(game.players, played.cards, strict=True)),
                   played.kali, tuple(events), game.minus_points())

    def to_dict(self) -> dict[str, Any]:
        """The history entry of the public view (docs/CONTRACTS.md), made once: every
        view holds this very dict, and the playback's ``shown`` this very ``events``
        list, so the stream's patch sends them once (``kalimambo.web.core.viewdiff``).
        Do not change it."""
        return self._json


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    """Someone sat down or left the lobby: the names in table order."""

    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class GameStarted:
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PickMade:
    """A seat picked (or changed) its card; which card stays a secret."""

    round: int
    player: str


@dataclass(frozen=True, slots=True)
class RoundResolved:
    """The last pick played the round (already saved); its playback begins."""

    played: RoundPlayed


@dataclass(frozen=True, slots=True)
class StepShown:
    """The playback's cursor moved to ``step`` of ``steps``: ``events`` are that
    step's, for the strip and the board to animate (``skipped``: to draw at once)."""

    round: int
    step: int
    steps: int
    kind: str
    events: tuple[Event, ...]
    skipped: bool = False


@dataclass(frozen=True, slots=True)
class PlaybackEnded:
    round: int


@dataclass(frozen=True, slots=True)
class RoundOpened:
    """Round ``round`` is open for picking (computer players are asked now)."""

    round: int


@dataclass(frozen=True, slots=True)
class GameFinished:
    """The last round's playback ended."""

    winners: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundUndone:
    round: int
    stopped_playback: bool


@dataclass(frozen=True, slots=True)
class LobbyOpened:
    """A new game: a lobby with the old seats (``kept_seats``) or an empty one."""

    kept_seats: bool
    stopped_playback: bool


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    settings: Settings


TableEvent = (SeatsChanged | GameStarted | PickMade | RoundResolved | StepShown
              | PlaybackEnded | RoundOpened | GameFinished | RoundUndone | LobbyOpened
              | SettingsChanged)
