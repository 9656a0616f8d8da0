"""The door: connections over the caps are refused as they are accepted, before a byte of
them is read (no HTTP parsing, no greenlet, no Flask).

The table is one gevent worker.  What ``kalimambo.web.http.guard`` refuses has been accepted,
given a greenlet, parsed by gunicorn and routed first; and once gunicorn's
``worker_connections`` are all taken, gevent stops accepting and a phone from another
address waits in the kernel's queue behind the flood.  So the worker's listening socket
is a ``DoorSocket``: its ``_accept`` (what gevent's ``StreamServer`` calls for each new
connection) counts the open connections of each address and in all (``Door``), and a
connection over the caps gets a fixed refusal (``429`` or ``503 too_many_connections``,
the API's error shape) written straight to it and is closed, all in the accept callback.
The worker hands a connection's place back when its handler ends (``TableWorker.handle``
in ``kalimambo/serve_worker.py``).

The caps, from ``kalimambo.web.http.limits`` (docs/LIMITS.md says why):

- one address holds at most ``CONNECTIONS_PER_ADDRESS`` connections at once;
- all addresses together ``CONNECTIONS_TOTAL``; beyond that ``CONNECTIONS_RESERVED``
  more are kept for addresses holding fewer than ``CONNECTIONS_FEW`` (a new phone gets
  in while a flood from many addresses holds the rest);
- so the worker never holds more than ``CONNECTIONS_TOTAL + CONNECTIONS_RESERVED``,
  below gunicorn's ``worker_connections``: gevent never stops accepting;
- a connection the guard refused keeps its place ``REFUSED_HOLD_SECONDS`` after it
  ends, so the guard refuses at most the door's places per 2 s, however big the flood.

The door also says how many turns of the loop a connection lets pass after each request
(``Door.turns``): one per connection of its address, so that many busy connections from
one address get about the share of one.

Everything here runs in the worker's one thread (the hub's accept callback and the
greenlets that end connections), so the counts need no lock.
"""

from __future__ import annotations

import _socket
import contextlib
import os
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

from kalimambo.web.http import limits
from kalimambo.web.http.statuses import error_body

REFUSALS_PER_ACCEPT = 256
"""Connections refused in one accept call before the hub gets to run anything else (the
listener is still readable, so gevent calls again on the loop's next turn)."""


def _answer(status: str, code: str, message: str, retry_after: int) -> bytes:
    body = error_body(code, message)
    head = (f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\n"
            f"Retry-After: {retry_after}\r\nConnection: close\r\n\r\n")
    return head.encode("ascii") + body


MINE = _answer("429 Too Many Requests", "too_many_connections", "Too many connections are "
               "open from this device: please close another tab or try again in a moment.", 2)
"""The refusal for an address at its own cap."""
FULL = _answer("503 Service Unavailable", "too_many_connections", "The table is busy: "
               "please try again in a moment.", 2)
"""The refusal when the table holds all the connections it takes."""


HUNG_UP: weakref.WeakSet[Any] = weakref.WeakSet()
"""Connections the guard refused (``hang_up``), until their handler ends: their place at
the door is held a while longer (``Door.release``)."""


class Door:
    """Open connections per address and in all; ``admit`` takes a place or says no.

    A connection whose request the guard refused keeps its place for ``hold`` seconds
    after it ended (the refusal's ``Retry-After``): without that, each refusal would make
    room at once for the next connection of the same flood, and the guard would pay for
    every one of them.  With it, the guard refuses at most the door's places per ``hold``
    seconds, however big the flood."""

    def __init__(self, per_address: int = limits.CONNECTIONS_PER_ADDRESS,
                 total: int = limits.CONNECTIONS_TOTAL,
                 reserved: int = limits.CONNECTIONS_RESERVED,
                 few: int = limits.CONNECTIONS_FEW,
                 hold: float = limits.REFUSED_HOLD_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.per_address, self.total, self.reserved, self.few = (per_address, total,
                                                                 reserved, few)
        self.hold = hold
        self.clock = clock
        self.by_address: dict[str, int] = {}
        self.open = 0
        self.refused = 0
        self._held: deque[tuple[float, str]] = deque()  # (until, address), oldest first

    def admit(self, address: str) -> bytes | None:
        """None: admitted (and counted until ``release``); else the refusal to send."""
        held = self._held
        if held and held[0][0] <= self.clock():
            now = self.clock()
            while held and held[0][0] <= now:
                self._give(held.popleft()[1])
        mine = self.by_address.get(address, 0)
        if mine >= self.per_address:
            self.refused += 1
            return MINE
        if self.open >= self.total and (mine >= self.few
                                        or self.open >= self.total + self.reserved):
            self.refused += 1
            return FULL
        self.by_address[address] = mine + 1
        self.open += 1
        return None

    def turns(self, address: str) -> int:
        """How many turns of the loop a connection of ``address`` lets pass after each
        request: one for each connection the address holds, so that an address with many
        busy connections gets about one request per turn, as one with a single one."""
        return max(1, min(self.by_address.get(address, 1), self.per_address))

    def release(self, address: str, sock: Any = None) -> None:
        """A connection has ended; its place is free at once, or after ``hold`` seconds if
        the guard refused it (``sock`` in ``HUNG_UP``)."""
        if sock is not None and sock in HUNG_UP:
            HUNG_UP.discard(sock)
            if self.hold > 0:
                self._held.append((self.clock() + self.hold, address))
                return
        self._give(address)

    def _give(self, address: str) -> None:
        mine = self.by_address.get(address, 0)
        if mine == 0:
            return
        if mine > 1:
            self.by_address[address] = mine - 1
        else:
            del self.by_address[address]
        self.open -= 1


def peer(addr: Any) -> str:
    """The address part of an accepted connection's peer (``(host, port, ...)``)."""
    if isinstance(addr, tuple) and addr:
        return str(addr[0])
    return str(addr or "?")


def drain(fd: int, most: int = 65536) -> None:
    """Read what the client has sent so far, without waiting (a socket closed with unread
    input is reset, and the client may lose the answer)."""
    if os.get_blocking(fd):
        return
    got = 0
    with contextlib.suppress(OSError):
        while got < most:
            data = os.read(fd, 65536)
            if not data:
                return
            got += len(data)


def refuse(fd: int, answer: bytes) -> None:
    """Write ``answer`` to a just-accepted connection and close it, never waiting."""
    sock = _socket.socket(fileno=fd)
    try:
        sock.setblocking(False)
        drain(fd)
        with contextlib.suppress(OSError):
            sock.send(answer)  # a few hundred bytes: the empty send buffer takes them
            sock.shutdown(_socket.SHUT_WR)
    finally:
        sock.close()


def hang_up(sock: Any) -> None:
    """End a connection served by gunicorn once its answer is out: the client gets the end
    of it at once and gunicorn's next read finds nothing (gunicorn drops an app's
    ``Connection: close`` and would keep the connection for its keep-alive).  The door
    holds its place a while (``Door.release``)."""
    if sock is None:
        return
    with contextlib.suppress(TypeError):
        HUNG_UP.add(sock)
    with contextlib.suppress(OSError, ValueError):
        sock.shutdown(_socket.SHUT_WR)
        drain(sock.fileno())
        sock.shutdown(_socket.SHUT_RD)


def door_listener(listener: Any, door: Door) -> Any:
    """The worker's (gevent) listening socket, on the same socket, with the door in its
    accept.  gevent's ``StreamServer`` accepts on the plain socket inside a gevent socket
    (its ``_sock``), so the door is a subclass of that plain socket, made by gevent's own
    ``_gevent_sock_class`` hook."""
    from gevent import socket as gsocket

    class DoorSocket(_socket.socket):
        """The plain listening socket; its accept refuses what ``door`` refuses, in the
        accept callback itself."""

        __slots__ = ("__weakref__",)  # as gevent's own plain sockets

        def _accept(self) -> tuple[int, Any]:
            for _ in range(REFUSALS_PER_ACCEPT):
                fd, addr = super()._accept()  # type: ignore[misc]  # BlockingIOError: none
                answer = door.admit(peer(addr))
                if answer is None:
                    return fd, addr
                refuse(fd, answer)
            raise BlockingIOError("more later: the listener is still readable")

    class DoorListener(gsocket.socket):  # type: ignore[misc]
        _gevent_sock_class = DoorSocket

    return DoorListener(fileno=listener.detach())
