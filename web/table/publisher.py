"""The table's views as its listeners get them: numbered, made into JSON once, with the
JSON Patch from the view before and, beside it, what happened.

The table builds each view (``kalimambo.web.core.view``), with its version and what
happened; the publisher keeps the latest (``current``: what a new stream or an answer
starts from) and hands the change to every listener (the event streams, the lights
link, the clock). Each seat's own part (its hand and pick) travels beside the public view,
for that seat's stream only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import orjson

from kalimambo.web.core.happenings import TableEvent, public_events
from kalimambo.web.core.viewdiff import diff
from kalimambo.web.core.viewtypes import MeView, PublicView

VERSION_EPOCH = 1_000_000
"""``version`` is restarts x 10^6 + changes since: it keeps growing across restarts."""


@dataclass(frozen=True, slots=True)
class Change:
    """What listeners get after every change."""

    version: int
    view: PublicView
    """The public view (every listener's to read, none's to change)."""
    view_json: bytes
    patch_json: bytes | None
    """The JSON Patch from the view before (None for the first view)."""
    happened: tuple[TableEvent, ...] = ()
    """What the command did, in order (empty for a refresh): beside the view, never in it
    (a whole view is drawn as it is; a patch's change is told with it)."""
    happened_json: bytes = b"[]"
    """Their public forms (docs/API.md#what-happened) as JSON, made once for every
    listener."""
    own: Mapping[str, MeView] = field(default_factory=dict)
    """Each seat's own part of its view at this version (``me``), by seat id: only that
    seat's stream carries it."""


Listener = Callable[[Change], None]


class Publisher:
    """Numbers the views, keeps the latest and tells the listeners (under the table's
    lock: one change at a time, in order)."""

    def __init__(self, restarts: int) -> None:
        self.version = restarts * VERSION_EPOCH
        self.listeners: list[Listener] = []
        self._current: Change | None = None

    def next_version(self) -> int:
        """The version of the view about to be built."""
        self.version += 1
        return self.version

    def publish(self, view: PublicView, happened: tuple[TableEvent, ...],
                own: Mapping[str, MeView]) -> Change:
        """``view`` (built with ``next_version()``) becomes the current one, ``happened``
        what the change did; ``own``: each seat's own part beside it."""
        before = self._current
        patch = orjson.dumps(diff(before.view, view)) if before is not None else None
        change = self._current = Change(self.version, view, orjson.dumps(view), patch,
                                        happened, orjson.dumps(public_events(happened)),
                                        own)
        for listener in list(self.listeners):
            listener(change)
        return change

    @property
    def current(self) -> Change:
        assert self._current is not None, "the table publishes its first view at start"
        return self._current
