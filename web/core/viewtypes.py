"""The views, described once: every key of the public view, of a seat's ``/me`` and of
every object inside them, as TypedDicts.

The builders (``view``, ``happenings``, ``playback``, ``placing``) return these types,
the OpenAPI document's view schemas are made from them (``web/http/typeschema.py``),
and tests hold real views and ``common/api.js`` to them
(tests/http/test_view_description.py).  A key that is sometimes left out is
``NotRequired``; ``Annotated[T, Schema(...)]`` adds what a Python type cannot say (the
words a plain ``str`` may take, a pattern, a description).

No ``from __future__ import annotations`` here: the converter and the tests read these
types at run time, and on Python 3.11 a TypedDict whose annotations are strings counts
its ``NotRequired`` keys as required.
"""

from dataclasses import dataclass
from typing import Annotated, Literal, NotRequired, TypedDict

from kalimambo.engine.events import (
    EventDung,
    EventMove,
    EventPenalty,
    EventReveal,
    EventRhinoRun,
    EventRoundEnd,
    EventStay,
    RoundEvent,
)
from kalimambo.engine.pacing import PACINGS
from kalimambo.engine.rules import EXPLORER_COLOURS
from kalimambo.engine.setup import SetupJson

__all__ = ["EventDung", "EventMove", "EventPenalty", "EventReveal", "EventRhinoRun",
           "EventRoundEnd", "EventStay", "RoundEvent"]
"""The events' JSON forms are the engine's; the view's description takes them from it."""


@dataclass(frozen=True, slots=True)
class Schema:
    """JSON Schema words for ``Annotated[T, Schema(...)]``: what ``T`` alone cannot say."""

    description: str | None = None
    enum: tuple[str, ...] | None = None
    pattern: str | None = None

    def keywords(self) -> dict[str, object]:
        found: dict[str, object] = {}
        if self.description is not None:
            found["description"] = self.description
        if self.enum is not None:
            found["enum"] = list(self.enum)
        if self.pattern is not None:
            found["pattern"] = self.pattern
        return found


# -- the words a plain str may take (the builders keep them as str) -----------------------
PHASES = ("lobby", "picking", "playing", "finished")
PIECES = ("explorer", "kali", "mambo", "heap")
"""What a piece to place is (a seat may be called "Mambo": the kind, not the name, says
which)."""
PLACING_REASONS = ("undo", "skip", "restart", "setup")
PI_SUPPLY = ("unknown", "ok", "low", "sagged")

Pacing = Annotated[str, Schema(enum=PACINGS)]
Colour = Annotated[str, Schema(enum=EXPLORER_COLOURS)]
Names = list[str]
Scores = dict[str, int]
"""By player name: minus points, cards or spaces."""


# -- the board ----------------------------------------------------------------------------
class SeatView(TypedDict):
    """A seat as everyone sees it (a replay's board has its own, ids ``r0``...)."""

    id: Annotated[str, Schema(pattern="^[^/]+$",
                              description="stable for the seat's life; use it in URLs")]
    name: str
    colour: Colour
    bot: bool
    bot_level: str | None
    hosted: bool
    connected: bool
    picked: bool
    minus_points: int


class SetupView(SetupJson):
    """The set-up a game began with (RECORD.md): the engine's JSON form of it."""


# a round's events: the engine's JSON forms (engine/events.py), described there once


class RoundOutcome(TypedDict):
    """A resolved round: everyone's card, Kali's, and the minus points after it (a
    replay's board lists these, without the events)."""

    round: int
    cards: Scores
    kali: int
    minus_points: Scores


class HistoryEntry(RoundOutcome):
    """A resolved round whose playback has ended, with its events."""

    events: list[RoundEvent]


# -- the playback ---------------------------------------------------------------------------
class StepView(TypedDict):
    """The step shown last; skipped: the host skipped to it, displays draw it at once
    rather than animate it."""

    kind: str
    first: int
    skipped: bool


class PlaybackView(TypedDict):
    """The round being played back: step = steps shown so far (0..steps), shown = their
    events, current = the step shown last (its events are shown[first:]); the round's
    round_end event is added when the playback ends."""

    round: int
    step: int
    steps: int
    pacing: Pacing
    current: StepView | None
    shown: list[RoundEvent]


PieceMoveView = TypedDict("PieceMoveView", {  # "from" is a Python keyword
    "piece": Annotated[str, Schema(enum=PIECES)],
    "name": NotRequired[str],
    "from": NotRequired[int],
    "to": int,
})


class PlacingView(TypedDict):
    """The wooden pieces to move by hand after the board jumped (an undo, a skip, a
    restart mid-round, a new game's set-up): name (explorers and Kali), from (left out:
    wherever it stands) and to; until the next reveal or the host's POST /host/placed."""

    reason: Annotated[str, Schema(enum=PLACING_REASONS)]
    round: int
    moves: list[PieceMoveView]


# -- the table's surroundings ---------------------------------------------------------------
class PowerView(TypedDict):
    """The lights' watch on power: pi, the Pi's own supply (unknown: no rpi_volt or
    get_throttled to read, off a Pi; low: under-voltage now; sagged: it was low since the
    lights started); pi_sags, how often; throttled, the Pi slowing itself (null: this
    kernel does not say); asked_ma, the most the strip's picture asked (up to 100 mA)
    against supply_ma; dimming, the limiter dims the picture to fit supply_ma."""

    pi: Annotated[str, Schema(enum=PI_SUPPLY)]
    pi_sags: int
    throttled: bool | None
    supply_ma: int
    asked_ma: int
    dimming: bool


class LightsStatus(TypedDict):
    """What the lights process says of the strip."""

    backend: str | None
    ok: bool
    error: str | None
    playing: bool
    connected: bool
    power: PowerView | None


class LightsView(LightsStatus):
    """The strip, and the table's pacing of it."""

    pacing: Pacing
    pause_ms: int


class StorageView(TypedDict):
    """ok false: the last change could not be saved (read-only, failing), or the disk is
    full and the game goes on in memory (``in_memory``) until there is room; the host
    page shows it."""

    ok: bool
    error: str | None
    in_memory: bool


class BoothView(TypedDict):
    """The booth's host settings: attract mode, its idle time, sound cues on the board
    page."""

    attract: bool
    attract_after_s: int
    sound: bool


class SettingsView(TypedDict):
    hints: bool
    pacing: Pacing
    pause_ms: int


# -- replays and attract mode ---------------------------------------------------------------
class RhinoRunParams(TypedDict):
    spaces: int
    round: int


class PenaltyParams(TypedDict):
    name: str
    points: int
    round: int


class DungParams(TypedDict):
    count: int


class ReasonRhinoRun(TypedDict):
    code: Literal["rhino_run"]
    params: RhinoRunParams


class ReasonPenalty(TypedDict):
    code: Literal["penalty"]
    params: PenaltyParams


class ReasonDung(TypedDict):
    code: Literal["dung"]
    params: DungParams


ReplayReason = ReasonRhinoRun | ReasonPenalty | ReasonDung
"""Why attract mode picked the game: its most striking moment."""


class BoardKeys(TypedDict):
    """Where the game stands, the keys the live view and a replay's board share (so the
    board page and the strip draw either alike)."""

    round: int
    track_length: int
    seats: list[SeatView]
    rhino: int | None
    positions: Scores
    dung: list[int]
    winners: Names


class ReplayBoard(BoardKeys):
    """A replayed game's board, in the live view's board keys (its history without the
    rounds' events)."""

    phase: Literal["playing", "finished"]
    game_id: Annotated[str, Schema(pattern="^replay-[0-9]+$")]
    setup: SetupView
    playback: PlaybackView
    history: list[RoundOutcome]
    last_round: RoundOutcome | None
    undone: None


class ReplayView(TypedDict):
    """A stored game being played back (the host's replay, or attract mode)."""

    game_id: int
    attract: bool
    reason: ReplayReason | None
    rounds: int
    done: bool
    board: ReplayBoard


# -- what happened (docs/API.md#what-happened) ----------------------------------------------
class HappenedSeatsChanged(TypedDict):
    type: Literal["seats_changed"]
    seats: Names


class HappenedGameStarted(TypedDict):
    type: Literal["game_started"]
    players: Names


class HappenedPickMade(TypedDict):
    type: Literal["pick_made"]
    round: int
    player: str


class HappenedRoundResolved(TypedDict):
    type: Literal["round_resolved"]
    round: int


class StepPlace(TypedDict):
    """Where a step is: its round and step, and ``replay`` (only ever true) for a
    replayed round's."""

    round: int
    step: int
    replay: NotRequired[Literal[True]]


class HappenedStepShown(StepPlace):
    type: Literal["step_shown"]
    kind: str
    first: int
    count: int
    seconds: float


class HappenedStepSkipped(StepPlace):
    type: Literal["step_skipped"]


class HappenedPlaybackEnded(TypedDict):
    type: Literal["playback_ended"]
    round: int
    first: int
    seconds: float
    skipped: bool
    replay: NotRequired[Literal[True]]


class HappenedRoundOpened(TypedDict):
    type: Literal["round_opened"]
    round: int


class HappenedGameOver(TypedDict):
    type: Literal["game_over"]
    winners: Names


class HappenedRoundUndone(TypedDict):
    type: Literal["round_undone"]
    round: int
    stopped_playback: bool


class HappenedLobbyOpened(TypedDict):
    type: Literal["lobby_opened"]
    kept_seats: bool
    stopped_playback: bool


class HappenedPiecesPlaced(TypedDict):
    type: Literal["pieces_placed"]


class HappenedSettingsChanged(SettingsView):
    type: Literal["settings_changed"]


class HappenedReplayStarted(TypedDict):
    type: Literal["replay_started"]
    game_id: int


class HappenedReplayStopped(TypedDict):
    type: Literal["replay_stopped"]


Happening = (HappenedSeatsChanged | HappenedGameStarted | HappenedPickMade
             | HappenedRoundResolved | HappenedStepShown | HappenedStepSkipped
             | HappenedPlaybackEnded | HappenedRoundOpened | HappenedGameOver
             | HappenedRoundUndone | HappenedLobbyOpened | HappenedPiecesPlaced
             | HappenedSettingsChanged | HappenedReplayStarted | HappenedReplayStopped)


# -- the views ------------------------------------------------------------------------------
class TableView(BoardKeys):
    """The public view's part made from the table's state (``view.public_view``)."""

    version: int
    phase: Annotated[str, Schema(enum=PHASES)]
    dung_points: Annotated[int, Schema(description="the minus points for landing on a "
                                                   "heap (RULES.md 7)")]
    setup: SetupView | None
    playback: PlaybackView | None
    history: list[HistoryEntry]
    last_round: HistoryEntry | None
    undone: int | None
    placing: PlacingView | None
    game_id: int
    join_url: str
    hints: bool
    lights: LightsView
    storage: StorageView
    day_start: Annotated[float, Schema(description="when the table's day began (Unix "
                                                   "seconds): local midnight, or the "
                                                   "host's new day if later")]


class PublicView(TableView):
    """What everyone may see: GET /api/v1/state, and every view the event stream sends
    (docs/API.md#the-public-view)."""

    replay: ReplayView | None
    booth: BoothView


PatchOperation = TypedDict("PatchOperation", {  # "from" is a Python keyword
    "op": Annotated[str, Schema(enum=("test", "add", "replace", "remove", "copy"))],
    "path": str,
    "from": NotRequired[str],
    "value": NotRequired[object],
})
"""One operation of the JSON Patch (RFC 6902) the table sends, of the kinds it uses."""


class ChangeMessage(TypedDict):
    """A change as the event stream's ``patch`` event and the lights' ``patch`` message
    carry it (docs/API.md#live-updates-server-sent-events): the JSON Patch from the view
    before, and beside it what the change did (never a key of the view: a whole view is
    drawn as it is)."""

    patch: list[PatchOperation]
    happened: list[Happening]


class MeView(TypedDict):
    """A seat's own: its hand (all twelve cards in the lobby) and this round's pick."""

    id: str
    name: str
    colour: Colour
    hand: list[int]
    pick: int | None
    hosted: bool
    bot: bool


class PrivateView(PublicView):
    """A seat's view (GET /api/v1/me): the public view plus its own."""

    me: MeView
