"""What the strip is sent of the table's view: only what it draws from (during a replay
the replay's board, in the live view's shape), so the lights' messages stay small."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

STRIP_KEYS = ("version", "phase", "game_id", "track_length", "rhino", "positions", "dung",
              "setup", "winners", "happened")
"""What the strip draws from (docs/LIGHTS-PROTOCOL.md), besides the seats' names and
colours and the playback's ``shown``.  Nothing else goes to the lights process: not the
history, the join address or the host's settings, so its messages stay small."""


def strip_marks(placing: dict[str, Any] | None) -> list[list[Any]] | None:
    """The view's ``placing`` as the strip needs it, short: ``[piece, name, to]`` each."""
    if not placing:
        return None
    return [[move["piece"], move.get("name"), move["to"]] for move in placing["moves"]]


def strip_view(view: Mapping[str, Any]) -> dict[str, Any]:
    """What the strip draws: the board (during a replay the replay's, in the live
    view's shape), the playback's cursor (the moment it shows), what happened, the
    pieces to move by hand (the table's own, never during a replay), and whether a
    replay is on."""
    running = view.get("replay")
    board = {**view, **running["board"]} if running else view
    playback = board.get("playback")
    return {**{key: board.get(key) for key in STRIP_KEYS},
            "seats": [{"name": seat["name"], "colour": seat["colour"],
                       "picked": bool(seat.get("picked"))}
                      for seat in board.get("seats") or []],
            "playback": {"round": playback["round"], "step": playback["step"],
                         "shown": playback["shown"]} if playback else None,
            "placing": None if running else strip_marks(view.get("placing")),
            "replay": bool(running)}
