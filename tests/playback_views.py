"""The messages the table sends while it plays a round back, made by the table's own
playback cursor: one per step (the board at the cursor, the step in ``happened``),
then the end.  For the strip's tests, which must work from what the table says
alone.  A message here is the view with what its change did under ``"happened"``: the
table sends that beside the view (``split`` parts them again)."""

from __future__ import annotations

from typing import Any

from kalimambo.engine import Game
from kalimambo.web.core.playback import Playback, playback_ended, step_shown
from kalimambo.web.core.state import board_of

View = dict[str, Any]


def split(message: View) -> tuple[View, list[dict[str, Any]]]:
    """A message's view, and what its change did (told beside the view)."""
    view = dict(message)
    return view, list(view.pop("happened", []))


def whole(view: View) -> View:
    """A view with nothing in ``happened`` (a refresh)."""
    return {**view, "happened": []}


def told(view: View, *happened: dict[str, Any]) -> View:
    return {**view, "happened": list(happened)}


def play_round(game: Game, cards: dict[str, int], view_of: Any, pause_ms: int = 1000,
               skip_from: int | None = None) -> list[View]:
    """Play ``cards`` in ``game`` and give the table's messages for its playback, as
    ``view_of(game)`` shapes a view: each step shown (or, from step ``skip_from`` on,
    skipped), then the playback's end with the round in the history."""
    before = board_of(game)
    played = game.play_round(cards)
    playback = Playback.begin(game.rounds_played, played,
                              [event.to_dict() for event in played], before, "step",
                              pause_ms, 0.0)
    after = view_of(game)
    messages = []
    while not playback.done:
        if skip_from is not None and playback.step >= skip_from:
            playback.jump()
        else:
            playback.next(0.0)
        board = playback.board()
        messages.append(told({**after, "phase": "playing", "rhino": board.rhino,
                              "positions": board.positions, "history": after["history"][:-1],
                              "playback": playback.to_view(last_step=playback.done)},
                             step_shown(playback).public()))
    messages.append(told({**after, "playback": playback.to_view()},
                         playback_ended(playback).public()))
    return messages
