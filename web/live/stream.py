"""Live updates: Server-Sent Events, one bounded queue per client.

A stream gets the whole public view when it opens, then only what changed: each
change's JSON Patch (``kalimambo.web.core.viewdiff``), made once for every stream.  A
client whose queue fills up (it fell behind) is sent the whole current view again
instead of the patches it missed.  A client is subscribed under the table's lock
together with reading the current view, so it can never miss a change between its
first view and its queue; patches up to that first view's version are skipped.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator

from kalimambo.web.table.publisher import Change

QUEUE_SIZE = 64
"""Messages a stream may have waiting before it is sent the whole view instead: room
for a skip's burst (one message per step left: a round has at most about 30 steps)
with a reader that is a little behind.  The queue holds references to bytes encoded
once for every stream, so its size costs next to nothing."""
RESYNC = (-1, b"")
"""Put in a client's queue when it fell behind: send it the whole view again."""

Item = tuple[int, bytes]


def view_event(change: Change) -> bytes:
    """The whole view as one SSE event: the version as id, one line of JSON."""
    return b"id: %d\ndata: %s\n\n" % (change.version, change.view_json)


def patch_event(change: Change) -> bytes:
    """What changed, as an SSE ``patch`` event (a JSON Patch, one line)."""
    if change.patch_json is None:
        return view_event(change)
    return b"event: patch\nid: %d\ndata: %s\n\n" % (change.version, change.patch_json)


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
        item = (change.version, patch_event(change))
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

    def stream(self, start: Callable[[queue.Queue[Item]], Change],
               current: Callable[[], Change],
               on_close: Callable[[], None] = lambda: None) -> Iterator[bytes]:
        """The body of one stream: the whole view at once, then patches and heartbeats.

        ``start`` subscribes the queue and returns the current change (the caller does
        both under the table's lock).  Nothing is subscribed before the body is first
        read, so a stream never started leaks nothing; the server closes the generator
        when the client has gone (at the latest on the next heartbeat's failed write),
        and ``finally`` drops the queue.  ``current`` gives the newest change, for a
        client that fell behind.
        """
        q: queue.Queue[Item] = queue.Queue(QUEUE_SIZE)
        first = start(q)
        shown = first.version
        try:
            yield b"retry: 2000\n" + view_event(first)
            while True:
                try:
                    version, data = q.get(timeout=self.heartbeat)
                except queue.Empty:
                    yield b": heartbeat\n\n"
                    continue
                if (version, data) == RESYNC:
                    newest = current()
                    shown = newest.version
                    yield view_event(newest)
                elif version > shown:
                    shown = version
                    yield data
        finally:
            self.unsubscribe(q)
            on_close()

