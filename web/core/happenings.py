"""What happens at the table, as typed values that travel inside the process.

The state machine (``kalimambo.web.core.state``) returns these; the table passes
them to its listeners on each ``Change``.  Engine events stay ``kalimambo.engine.events``
objects here; they become dicts only where JSON is written (the public view, the
event stream, the lights wire).

Each has a public form (``public()``), made once per change into the ``happened`` list
that travels beside the change's patch (never in the view): the one account of what
happened that the board page, the phones and the strip act on (docs/CONTRACTS.md).
None of them works out a step, a skip, an undo or the end by comparing two views.  A
public form never says more than the view does: a pick says who, never what; a step
says where its events are in the view's ``playback.shown``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kalimambo.engine.events import Event
from kalimambo.engine.game import Game
from kalimambo.web.core.viewtypes import (
    HappenedGameOver,
    HappenedGameStarted,
    HappenedLobbyOpened,
    HappenedPickMade,
    HappenedPiecesPlaced,
    HappenedPlaybackEnded,
    HappenedReplayStarted,
    HappenedReplayStopped,
    HappenedRoundOpened,
    HappenedRoundResolved,
    HappenedRoundUndone,
    HappenedSeatsChanged,
    HappenedSettingsChanged,
    HappenedStepShown,
    HappenedStepSkipped,
    Happening,
    HistoryEntry,
    RoundEvent,
    SettingsView,
    StepPlace,
)


@dataclass(frozen=True, slots=True)
class Settings:
    """The host's settings: hints on or off, and how the playback is paced."""

    hints: bool
    pacing: str
    pause_ms: int

    def to_dict(self) -> SettingsView:
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
    _json: HistoryEntry = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        events = [event.to_dict() for event in self.events]
        entry: HistoryEntry = {"round": self.round, "cards": dict(self.cards),
                               "kali": self.kali, "events": events,
                               "minus_points": dict(self.minus_points)}
        object.__setattr__(self, "_json", entry)

    @classmethod
    def of(cls, game: Game, events: list[Event]) -> RoundPlayed:
        """The round ``game`` has just played, which gave ``events``."""
        played = game.rounds[-1]
        return cls(game.rounds_played, dict(zip(game.players, played.cards, strict=True)),
                   played.kali, tuple(events), game.minus_points())

    @property
    def public_events(self) -> list[RoundEvent]:
        """The events' JSON forms: the history entry's own list (the playback shows this
        very list, so the stream copies it rather than sending it again)."""
        return self._json["events"]

    def to_dict(self) -> HistoryEntry:
        """The history entry of the public view (docs/CONTRACTS.md), made once: every
        view holds this very dict, and the playback's ``shown`` this very ``events``
        list, so the stream's patch sends them once (``kalimambo.web.core.viewdiff``).
        Do not change it."""
        return self._json


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    """Someone sat down or left the lobby: the names in table order."""

    seats: tuple[str, ...]

    def public(self) -> HappenedSeatsChanged:
        return {"type": "seats_changed", "seats": list(self.seats)}


@dataclass(frozen=True, slots=True)
class GameStarted:
    players: tuple[str, ...]

    def public(self) -> HappenedGameStarted:
        return {"type": "game_started", "players": list(self.players)}


@dataclass(frozen=True, slots=True)
class PickMade:
    """A seat picked (or changed) its card; which card stays a secret."""

    round: int
    player: str

    def public(self) -> HappenedPickMade:
        return {"type": "pick_made", "round": self.round, "player": self.player}


@dataclass(frozen=True, slots=True)
class RoundResolved:
    """The last pick played the round (already saved); its playback begins."""

    played: RoundPlayed

    def public(self) -> HappenedRoundResolved:
        """Only the round's number: its cards and events come step by step."""
        return {"type": "round_resolved", "round": self.played.round}


@dataclass(frozen=True, slots=True)
class StepShown:
    """The playback's cursor moved to ``step`` of ``steps``: that step's events, for the
    strip and the board to animate for ``seconds`` (``skipped``: to draw at once), are
    ``playback.shown[first:first + count]`` in the view.  A round's closing
    ``round_end`` is not among them: it comes with the end.  ``replay``: a replayed
    round's step (its playback is ``replay.board.playback``)."""

    round: int
    step: int
    steps: int
    kind: str
    first: int
    count: int
    seconds: float
    skipped: bool = False
    replay: bool = False

    def public(self) -> HappenedStepShown | HappenedStepSkipped:
        """Kept short (every step's message carries it): ``steps`` is in the playback,
        ``replay`` is said only when true."""
        where: StepPlace = {"round": self.round, "step": self.step}
        if self.replay:
            where["replay"] = True
        if self.skipped:
            return {"type": "step_skipped", **where}
        return {"type": "step_shown", **where, "kind": self.kind, "first": self.first,
                "count": self.count, "seconds": self.seconds}


@dataclass(frozen=True, slots=True)
class PlaybackEnded:
    """The round's playback is over: its closing events (``round_end``) are
    ``playback.shown[first:]``, shown for ``seconds`` unless the round was skipped."""

    round: int
    first: int = 0
    seconds: float = 0.0
    skipped: bool = False
    replay: bool = False

    def public(self) -> HappenedPlaybackEnded:
        ended: HappenedPlaybackEnded = {"type": "playback_ended", "round": self.round,
                                        "first": self.first, "seconds": self.seconds,
                                        "skipped": self.skipped}
        if self.replay:
            ended["replay"] = True
        return ended


@dataclass(frozen=True, slots=True)
class RoundOpened:
    """Round ``round`` is open for picking (computer players are asked now)."""

    round: int

    def public(self) -> HappenedRoundOpened:
        return {"type": "round_opened", "round": self.round}


@dataclass(frozen=True, slots=True)
class GameFinished:
    """The last round's playback ended."""

    winners: tuple[str, ...]

    def public(self) -> HappenedGameOver:
        return {"type": "game_over", "winners": list(self.winners)}


@dataclass(frozen=True, slots=True)
class RoundUndone:
    round: int
    stopped_playback: bool

    def public(self) -> HappenedRoundUndone:
        return {"type": "round_undone", "round": self.round,
                "stopped_playback": self.stopped_playback}


@dataclass(frozen=True, slots=True)
class LobbyOpened:
    """A new game: a lobby with the old seats (``kept_seats``) or an empty one."""

    kept_seats: bool
    stopped_playback: bool

    def public(self) -> HappenedLobbyOpened:
        return {"type": "lobby_opened", "kept_seats": self.kept_seats,
                "stopped_playback": self.stopped_playback}


@dataclass(frozen=True, slots=True)
class PiecesPlaced:
    """The host said the wooden pieces stand where the displays say (the view's
    ``placing`` is gone)."""

    def public(self) -> HappenedPiecesPlaced:
        return {"type": "pieces_placed"}


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    settings: Settings

    def public(self) -> HappenedSettingsChanged:
        return {"type": "settings_changed", **self.settings.to_dict()}


@dataclass(frozen=True, slots=True)
class ReplayStarted:
    """A replay began (the host's, or attract mode's): the board shows its board."""

    game_id: int
    attract: bool

    def public(self) -> HappenedReplayStarted:
        return {"type": "replay_started", "game_id": self.game_id}


@dataclass(frozen=True, slots=True)
class ReplayStopped:
    """The replay is over (played out, stopped, or the table moved): the table's own
    board again."""

    def public(self) -> HappenedReplayStopped:
        return {"type": "replay_stopped"}


TableEvent = (SeatsChanged | GameStarted | PickMade | RoundResolved | StepShown
              | PlaybackEnded | RoundOpened | GameFinished | RoundUndone | LobbyOpened
              | PiecesPlaced | SettingsChanged | ReplayStarted | ReplayStopped)


def public_events(happened: tuple[TableEvent, ...]) -> list[Happening]:
    """A change's ``happened``, sent beside its patch: what it did, in order."""
    return [event.public() for event in happened]
