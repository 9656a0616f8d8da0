"""The table's checked commands: each a frozen value that the table saves to the
store and the state machine (``kalimambo.web.core.state``) then applies.

A plan is made by ``StateMachine.plan_*`` only when the command is allowed; it carries
everything both the store and the machine need, so the two cannot disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kalimambo.engine.game import Game
from kalimambo.engine.pacing import PACINGS, PAUSE_MS_MAX, PAUSE_MS_MIN
from kalimambo.engine.rules import ROUNDS
from kalimambo.engine.setup import Setup
from kalimambo.engine.values import is_int
from kalimambo.web.core.happenings import Settings
from kalimambo.web.core.refusals import bad_input
from kalimambo.web.core.seats import Seat


@dataclass(frozen=True, slots=True)
class _Plan:
    at: int
    """The state's revision it was checked against: applying it later is a bug."""


@dataclass(frozen=True, slots=True)
class AddSeats(_Plan):
    """New seats at the end of the lobby (a person, or computer players)."""

    seats: tuple[Seat, ...]
    first: int
    """The position of the first new seat."""


@dataclass(frozen=True, slots=True)
class SetSeats(_Plan):
    """The lobby's seats after one left, in table order."""

    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class StartGame(_Plan):
    game: Game
    setup: Setup


@dataclass(frozen=True, slots=True)
class PickCard(_Plan):
    """A pick (or a changed pick) that leaves the round open."""

    round: int
    player: str
    card: int


@dataclass(frozen=True, slots=True)
class ResolveRound(_Plan):
    """The last pick: the round is played with these cards (seat order) and Kali's."""

    round: int
    player: str
    card: int
    cards: dict[str, int]
    kali: int

    @property
    def finishes(self) -> bool:
        return self.round >= ROUNDS


@dataclass(frozen=True, slots=True)
class UndoRound(_Plan):
    round: int
    stops_playback: bool


@dataclass(frozen=True, slots=True)
class OpenLobby(_Plan):
    """A new game: these seats stay (all, or none)."""

    seats: tuple[Seat, ...]
    stops_playback: bool


@dataclass(frozen=True, slots=True)
class ChangeSettings(_Plan):
    settings: Settings


Plan = (AddSeats | SetSeats | StartGame | PickCard | ResolveRound | UndoRound | OpenLobby
        | ChangeSettings)



def check_settings(data: Mapping[str, Any], current: Settings) -> Settings:
    """The settings after ``data`` (a partial change); unknown keys are refused."""
    unknown = sorted(set(data) - {"hints", "pacing", "pause_ms"})
    if unknown:
        raise bad_input("bad_setting", f"There is no setting {unknown[0]!r}.")
    hints = data.get("hints", current.hints)
    pacing = data.get("pacing", current.pacing)
    pause = data.get("pause_ms", current.pause_ms)
    if not isinstance(hints, bool):
        raise bad_input("bad_setting", "hints is true or false.")
    if pacing not in PACINGS:
        raise bad_input("bad_setting", "pacing is 'auto' or 'step'.")
    if not is_int(pause) or not PAUSE_MS_MIN <= pause <= PAUSE_MS_MAX:
        raise bad_input("bad_setting", "pause_ms is a whole number of milliseconds "
                                         f"from {PAUSE_MS_MIN} to {PAUSE_MS_MAX}.")
    return Settings(hints, str(pacing), pause)
