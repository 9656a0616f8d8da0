"""How fast a round is played back: one place for the pacing modes and the pause.

The table's clock, the strip and the board file all take these from here.
"""

from __future__ import annotations

PACINGS = ("auto", "step")
"""``auto``: the table's clock advances the playback; ``step``: one step per "next"."""
DEFAULT_PACING = "auto"
PAUSE_MS_MIN = 100
PAUSE_MS_MAX = 10_000
DEFAULT_PAUSE_MS = 900
"""The pause per step of weight 1 in auto pacing."""
ROUND_BUDGET_S = 15.0
"""A whole round's auto playback is squeezed into this, however long the pause."""
