"""The JSON edge of the table: the public view and a seat's private view.

The state machine keeps typed values; this is where they become the view that the
API answers, the event stream patches and the lights draw (docs/API.md), shaped as
``viewtypes`` describes it.  While a round is played back the view shows the board as
of the cursor and nothing after it; while a round is open it says only *whether* each
seat has picked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kalimambo.engine.rules import DUNG_POINTS
from kalimambo.engine.setup import Setup
from kalimambo.engine.values import is_int
from kalimambo.web.core.seats import Seat
from kalimambo.web.core.state import StateMachine
from kalimambo.web.core.viewtypes import (
    PI_SUPPLY,
    HistoryEntry,
    LightsStatus,
    LightsView,
    MeView,
    PowerView,
    PrivateView,
    PublicView,
    SetupView,
    StorageView,
    TableView,
)


def lights_summary(status: dict[str, Any]) -> LightsStatus:
    """What the public view says of the strip (the pacing is the table's setting);
    ``power`` is the lights' watch on the Pi's supply and the strip's current, or None
    (no lights process, or an older one).  ``status`` is the lights process's own
    report, read defensively: any JSON object."""
    return {"backend": status.get("backend"), "ok": bool(status.get("ok")),
            "error": status.get("error"), "playing": bool(status.get("playing", False)),
            "connected": bool(status.get("connected", False)),
            "power": _power(status.get("power"))}


def _power(power: object) -> PowerView | None:
    """The lights' ``power`` with its keys and types as API.md promises them, or None."""
    if not isinstance(power, dict):
        return None

    def count(key: str) -> int:
        value = power.get(key)
        return value if is_int(value) else 0

    throttled = power.get("throttled")
    pi = power.get("pi")
    return {"pi": pi if pi in PI_SUPPLY else "unknown", "pi_sags": count("pi_sags"),
            "throttled": throttled if isinstance(throttled, bool) else None,
            "supply_ma": count("supply_ma"), "asked_ma": count("asked_ma"),
            "dimming": power.get("dimming") is True}


def _setup(setup: Setup) -> SetupView:
    # the engine stands alone and writes its JSON as dict[str, Any]; SetupView is its shape
    return setup.to_dict()


@dataclass(frozen=True, slots=True)
class Surroundings:
    """What the view shows besides the state: the running table's and the world's."""

    version: int
    game_id: int
    join_url: str
    lights: dict[str, Any]
    """The lights process's report (``lights_summary`` reads it)."""
    storage: StorageView
    day_start: float
    connected: Callable[[str], bool]
    """Whether a seat (by name) has an event stream open."""


def public_view(state: StateMachine, around: Surroundings,
                last_step: bool = False) -> TableView:
    """The public view's part made from the state (the table adds the replay, the
    booth and what happened: ``PublicView``).

    ``last_step``: the playback has just ended; show it as its last step shows it
    (still ``playing``, at ``k = m``, the round's ``round_end`` not yet shown), so that
    the end comes as a message of its own."""
    game = state.game
    playback = state.playback
    playing = state.playing or (last_step and playback is not None)
    history: list[HistoryEntry]
    if playing and playback is not None:  # the board as of the cursor, nothing after
        board = playback.board()
        minus, rhino, positions = board.minus_points, board.rhino, board.positions
        history = [played.to_dict() for played in state.history[:-1]]
        round_no = playback.round
    else:
        minus = game.minus_points() if game else {}
        rhino = game.board.rhino if game else None
        positions = game.positions() if game else {}
        history = [played.to_dict() for played in state.history]
        round_no = (game.current_round if not game.finished else game.rounds_played) \
            if game else 0
    settings = state.settings
    lights: LightsView = {**lights_summary(around.lights), "pacing": settings.pacing,
                          "pause_ms": settings.pause_ms}
    return {
        "version": around.version,
        "phase": "playing" if playing else state.phase,
        "round": round_no,
        "track_length": state.track_length,
        "seats": [{"id": s.id, "name": s.name, "colour": s.colour, "bot": s.bot,
                   "bot_level": s.bot_level, "hosted": s.hosted,
                   "connected": s.bot or s.hosted or around.connected(s.name),
                   "picked": s.name in state.picks, "minus_points": minus.get(s.name, 0)}
                  for s in state.seats],
        "rhino": rhino,
        "positions": positions,
        "dung": list(game.setup.dung) if game else [],
        "dung_points": DUNG_POINTS,
        "setup": _setup(game.setup) if game else None,
        "playback": playback.to_view(last_step) if playback else None,
        "history": history,
        "last_round": history[-1] if history else None,
        "winners": game.winners() if game and game.finished and not playing else [],
        "undone": state.undone,
        # a skip's pieces to move come with the playback's end, as the round's end does
        "placing": state.placing.public() if state.placing and not last_step else None,
        "game_id": around.game_id,
        "join_url": around.join_url,
        "hints": settings.hints,
        "lights": lights,
        "storage": around.storage,
        "day_start": around.day_start,
    }


def own_view(state: StateMachine, seat: Seat) -> MeView:
    """A seat's own part of its view: its hand and pick (only ever sent to that seat)."""
    hand = state.game.hand(seat.name) if state.game else list(range(12))
    return {"id": seat.id, "name": seat.name, "colour": seat.colour, "hand": hand,
            "pick": state.picks.get(seat.name), "hosted": seat.hosted, "bot": seat.bot}


def private_view(state: StateMachine, public: PublicView, seat: Seat) -> PrivateView:
    """A seat's view: the public view plus its hand and pick."""
    return {**public, "me": own_view(state, seat)}
