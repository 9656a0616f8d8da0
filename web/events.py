"""Live updates: Server-Sent Events, one bounded queue per client.

Every message is a full public view, so a slow client that falls behind only needs
the newest ones: when its queue is full the oldest message is dropped.  A client is
subscribed under the table's lock together with reading the current view, so it can
never miss a change between its first snapshot and its queue.
"""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable, Iterator

from kalimambo.web.table import Change

QUEUE_SIZE = 8


def message(change: Change) -> bytes:
    """One SSE message: the version as id, the view as data (one line of JSON)."""
    return b"id: %d\ndata: %s\n\n" % (change.version, change.view_json)


class Broadcaster:
    """Fans each change out to every open stream."""

    def __init__(self, heartbeat: float = 15.0) -> None:
        self.heartbeat = heartbeat
        self._clients: set[queue.Queue[bytes]] = set()
        self._guard = threading.Lock()

    @property
    def clients(self) -> int:
        return len(self._clients)

    def publish(self, change: Change) -> None:
        data = message(change)
        with self._guard:
            clients = list(self._clients)
        for q in clients:
            try:
                q.put_nowait(data)
            except queue.Full:  # behind: drop its oldest view, keep the newest
                with contextlib.suppress(queue.Empty):
                    q.get_nowait()
                with contextlib.suppress(queue.Full):
                    q.put_nowait(data)

    def subscribe(self, q: queue.Queue[bytes]) -> None:
        with self._guard:
            self._clients.add(q)

    def unsubscribe(self, q: queue.Queue[bytes]) -> None:
        with self._guard:
            self._clients.discard(q)

    def stream(self, start: Callable[[queue.Queue[bytes]], bytes],
               on_close: Callable[[], None] = lambda: None) -> Iterator[bytes]:
        """The body of one stream: the current view at once, then changes and heartbeats.

        ``start`` subscribes the queue and returns the current view's message (the
        caller does both under the table's lock).  Nothing is subscribed before the
        body is first read, so a stream never started leaks nothing; the server closes
        the generator when the client has gone (at the latest on the next heartbeat's
        failed write), and ``finally`` drops the queue.
        """
        q: queue.Queue[bytes] = queue.Queue(QUEUE_SIZE)
        first = start(q)
        try:
            yield b"retry: 2000\n" + first
            while True:
                try:
                    yield q.get(timeout=self.heartbeat)
                except queue.Empty:
                    yield b": heartbeat\n\n"
        finally:
            self.unsubscribe(q)
            on_close()
