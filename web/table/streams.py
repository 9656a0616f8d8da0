"""Which seats have a live event stream open: the view's ``connected`` for each seat.

A phone may hold two streams for a moment (a reload opens the new one before the old
one closes), so streams are counted, and a seat is connected while its count is above
zero.  Only a change of connected or not makes a new view.
"""

from __future__ import annotations

from collections.abc import Iterable


class StreamCounter:
    """Open event streams per seat name."""

    def __init__(self) -> None:
        self._open: dict[str, int] = {}

    def connected(self, name: str) -> bool:
        return self._open.get(name, 0) > 0

    def count(self, name: str, step: int) -> bool:
        """One stream more (``step`` +1) or fewer (-1); whether the seat's connected
        state changed (then the table sends a new view)."""
        before = self._open.get(name, 0)
        after = max(0, before + step)
        self._open[name] = after
        return (before > 0) != (after > 0)

    def keep_only(self, names: Iterable[str]) -> None:
        """A new game: streams of seats that left it no longer count."""
        kept = set(names)
        self._open = {name: n for name, n in self._open.items() if name in kept}
