"""Every limit the table puts on its clients, in one place (docs/LIMITS.md explains them).

Chosen for a table of at most 7 phones, a board page or two and a host page,
served by one process on a Raspberry Pi: generous for a real table, small enough
that one hostile phone cannot take the server (or the other players) down.
"""

from __future__ import annotations

MAX_BODY = 4096
"""Bytes in a request body (with Content-Length or chunked): more is 413 too_large."""

BODY_SECONDS = 10.0
"""Time to send a whole request body; a slower (or half-sent) body gets 408 and the
connection is closed.  Request headers are bounded by gunicorn's keep-alive (5 s)."""

MAX_DEPTH = 8
"""Nesting of arrays and objects in a request body (a set-up needs 3): deeper is 400."""

REQUESTS_PER_ADDRESS = 32
"""Requests in progress at once from one client address, event streams not counted."""

BODIES_TOTAL = 256
"""Request bodies being read at once from all addresses, shared: slow bodies from many
addresses take at most this many, beyond the ``BODIES_FEW`` every address may always
have; requests without a body (GET /state) are never refused by it."""

BODIES_FEW = 2
"""Bodies an address may always have read, even with ``BODIES_TOTAL`` taken by others: a
phone sends one at a time (a join, a pick), so slow bodies from many addresses never
refuse a new phone's join."""

STREAMS_PER_ADDRESS = 16
"""Open event streams from one client address (a phone needs one, a board page one)."""

STREAMS_TOTAL = 256
"""Open event streams in all, shared (beyond the ``STREAMS_FEW`` every address may
always open), far below the door's connections (below), so a flood of streams from many
addresses still leaves room for every other request."""

WORKER_CONNECTIONS = 1000
"""gunicorn's ``worker_connections``: greenlets the one worker runs at once.  When they are
all taken gevent stops accepting and everyone waits, so the door (below) keeps the
connections it lets in under this."""

CONNECTIONS_PER_ADDRESS = 64
"""Open connections from one address; more are refused as they are accepted (429
``too_many_connections``), before a byte is read.  A browser opens at most 6 connections
to one host, so a phone or a family tablet never comes near; 64 leave an address its 16
event streams and 32 requests in progress (the guard's limits, which still answer for
themselves) and 16 idle keep-alive connections besides."""

CONNECTIONS_TOTAL = 768
"""Open connections from all addresses together, shared; beyond it only an address holding
fewer than ``CONNECTIONS_FEW`` gets in (503 ``too_many_connections`` for the others)."""

CONNECTIONS_RESERVED = 192
"""Connections over ``CONNECTIONS_TOTAL`` kept for addresses holding fewer than
``CONNECTIONS_FEW``: a flood from many addresses that takes the shared 768 still leaves
room for 32 new phones.  768 + 192 = 960 stay under ``WORKER_CONNECTIONS``."""

OPEN_FILES = 4096
"""Open files the table asks for (``kalimambo serve`` raises its soft limit to this, and the
installed unit sets ``LimitNOFILE``): the door's 960 connections, one file each, plus the
worker's own (the store, the lights socket, gevent's, Python's).  The 1024 a process gets
by default (systemd's soft limit, and most desktops') left too few: on the emulated Pi on
Trixie the last connection the door should have refused was closed unanswered instead."""



def raise_open_files(want: int) -> bool:
    """Raise this process's soft limit of open files to ``want`` (within the hard limit):
    whether it now allows ``want``.  The table, its floods' bench and their tests all
    need more than the 1024 most systems give."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= want:
        return True
    allowed = want if hard == resource.RLIM_INFINITY else min(want, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (allowed, hard))
    except (OSError, ValueError):  # a sandbox that forbids it (the unit sets it itself)
        return False
    return allowed >= want


CONNECTIONS_FEW = 6
"""What an address may always hold while the shared connections are taken: a browser's
6 connections to one host."""

REFUSED_HOLD_SECONDS = 2.0
"""A connection whose request the guard refused (429, 503, 408, 413...) keeps its place
at the door this long after it is closed, as its ``Retry-After`` asks the client to wait:
a flood then reaches the guard at most once per place and per 2 s, however big it is."""

STREAMS_FEW = 1
"""Streams an address may always open, even with ``STREAMS_TOTAL`` taken by others: a new
phone gets its one live view while a flood from many addresses holds the rest (how many
they can hold is bounded by the door's connections below)."""

HINTS_PER_SEAT = 1
"""Hints being worked out at once for one seat (a second one waits for the first)."""

HINTS_TOTAL = 2
"""Hints being worked out at once in all: the rest of the table keeps its CPU."""

HINT_WAIT_SECONDS = 15.0
"""How long a hint request waits for its turn before 429 hint_busy."""
