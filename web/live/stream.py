"""Live updates: Server-Sent Events, one bounded queue per client.

A plain stream sends the whole view at every change, as any SSE client expects.  A
stream opened with ``patches`` (the table's own pages) gets the whole view when it
opens, then only what changed: each change's JSON Patch
(``kalimambo.web.core.viewdiff``) with what the change did beside it, made once for
every stream.  A seat's stream
(opened with its token) carries that seat's own view: the public view plus ``me``, its
hand and pick, and each patch the public one plus what changed in ``me``, so a phone
never asks ``GET /me`` after a push.  A client whose queue fills up (it fell behind) is
sent the whole current view again instead of the patches it missed.  A client is
subscribed under the table's lock together with reading the current view, so it can
never miss a change between its first view and its queue; patches up to that first
view's version are skipped.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator

import orjson

from kalimambo.web.core.viewdiff import Op, diff
from kalimambo.web.core.viewtypes import MeView
from kalimambo.web.table.publisher import Change

QUEUE_SIZE = 64
"""Messages a stream may have waiting before it is sent the whole view instead: room
for a skip's burst (one message per step left: a round has at most about 30 steps)
with a reader that is a little behind.  The queue holds references to bytes encoded
once for every stream, so its size costs next to nothing."""
RESYNC = None
"""Put in a client's queue when it fell behind: send it the whole view again."""

Item = tuple[Change, bytes] | None
"""A change and its public patch event (encoded once for every stream), or RESYNC."""
Start = Callable[["queue.Queue[Item]"], tuple[Change, str | None]]
"""Subscribes a stream's queue; the current change and the seat whose stream it is."""


def view_event(change: Change, own: MeView | None = None) -> bytes:
    """The whole view as one SSE event: the version as id, one line of JSON; with
    ``own``, a seat's (the public view's JSON with ``me`` added, not encoded again)."""
    view = change.view_json
    if own is not None:
        view = view[:-1] + b',"me":' + orjson.dumps(own) + b"}"
    return b"id: %d\ndata: %s\n\n" % (change.version, view)


def patch_event(change: Change, own_ops: list[Op] | None = None) -> bytes:
    """What changed, as an SSE ``patch`` event, one line: ``{"patch": [JSON Patch],
    "happened": [...]}``, what the change did beside the patch; ``own_ops``: what changed
    in a seat's ``me``, after the public operations."""
    if change.patch_json is None:
        return view_event(change)
    patch = change.patch_json
    if own_ops:
        patch = patch[:-1] + b"," + orjson.dumps(own_ops)[1:]
    return b'event: patch\nid: %d\ndata: {"patch":%s,"happened":%s}\n\n' % (
        change.version, patch, change.happened_json)


def own_changes(before: MeView | None, after: MeView | None) -> list[Op]:
    """The operations turning a seat's ``me`` from ``before`` into ``after`` (None: the
    seat is gone, as after a new game; its phone then knows it has no seat here)."""
    if before == after:
        return []
    old = {} if before is None else {"me": before}
    new = {} if after is None else {"me": after}
    return diff(old, new)[1:]  # the public patch's ``test /version`` comes first


class Broadcaster:
    """Fans each change out to every open stream."""

    def __init__(self, heartbeat: float = 15.0) -> None:
        self.heartbeat = heartbeat
        self._clients: set[queue.Queue[Item]] = set()
        self._guard = threading.Lock()

    @property
    def clients(self) -> int:
        return len(self._clients)

    def publish(self, change: Change) -> None:
        item = (change, patch_event(change))
        with self._guard:
            clients = list(self._clients)
        for q in clients:
            try:
                q.put_nowait(item)
            except queue.Full:  # behind: forget the patches, send the whole view
                with contextlib.suppress(queue.Empty):
                    while True:
                        q.get_nowait()
                with contextlib.suppress(queue.Full):
                    q.put_nowait(RESYNC)

    def subscribe(self, q: queue.Queue[Item]) -> None:
        with self._guard:
            self._clients.add(q)

    def unsubscribe(self, q: queue.Queue[Item]) -> None:
        with self._guard:
            self._clients.discard(q)

    def stream(self, start: Start, current: Callable[[], Change],
               on_close: Callable[[], None] = lambda: None, patches: bool = True
               ) -> Iterator[bytes]:
        """The body of one stream: the whole view at once, then at every change its
        patch (``patches``) or the whole view again, and heartbeats.

        ``start`` subscribes the queue and returns the current change and the seat whose
        stream this is, if any (the caller does both under the table's lock).  Nothing
        is subscribed before the body is first read, so a stream never started leaks
        nothing; the server closes the generator when the client has gone (at the
        latest on the next heartbeat's failed write), and ``finally`` drops the queue.
        ``current`` gives the newest change, for a client that fell behind.
        """
        q: queue.Queue[Item] = queue.Queue(QUEUE_SIZE)
        first, seat = start(q)
        own = first.own.get(seat) if seat else None
        shown = first.version
        try:
            yield b"retry: 2000\n" + view_event(first, own)
            while True:
                try:
                    item = q.get(timeout=self.heartbeat)
                except queue.Empty:
                    yield b": heartbeat\n\n"
                    continue
                if item is RESYNC:
                    newest = current()
                    shown = newest.version
                    own = newest.own.get(seat) if seat else None
                    yield view_event(newest, own)
                    continue
                change, public = item
                if change.version <= shown:
                    continue
                shown = change.version
                if not patches:
                    own = change.own.get(seat) if seat else None
                    yield view_event(change, own)
                    continue
                if seat is None:
                    yield public
                    continue
                mine = change.own.get(seat)
                ops = own_changes(own, mine)
                own = mine
                yield patch_event(change, ops) if ops else public
        finally:
            self.unsubscribe(q)
            on_close()
