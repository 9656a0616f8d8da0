"""How fast a round is played back: one place for the pacing modes and the pause.

The table's clock, the strip and the board file all take these from here.
"""

from __future__ import annotations

PACINGS = ("auto", "step")
"""``auto``: the table's clock advances the playback; ``step``: one step per "next"."""
DEFAULT_PACING = "auto"
PAUSE_MS_MIN = 100
PAUSE_MS_MAX = 10_000
DEFAULT_PAUSE_MS = 3000
"""How long a move step stays up in auto pacing (the pause per step of weight 1).

Three seconds: reading the step's line, finding the figure, lifting it and counting it
on by up to 12 spaces (worked out in the README, not yet timed at a real table).  A
second or less, as before, was only enough to watch.  Nothing squeezes a round: a
7-seat round with 20 steps takes a minute, about what moving 7 figures takes anyway."""
