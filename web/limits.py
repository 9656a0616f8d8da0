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
"""Request bodies being read at once from all addresses: slow bodies from many
addresses hold at most this many connections; requests without a body (GET /state)
are never refused by it."""

STREAMS_PER_ADDRESS = 16
"""Open event streams from one client address (a phone needs one, a board page one)."""

STREAMS_TOTAL = 256
"""Open event streams in all, far below gunicorn's 1000 connections, so a flood of
streams from many addresses still leaves room for every other request."""

HINTS_PER_SEAT = 1
"""Hints being worked out at once for one seat (a second one waits for the first)."""

HINTS_TOTAL = 2
"""Hints being worked out at once in all: the rest of the table keeps its CPU."""

HINT_WAIT_SECONDS = 15.0
"""How long a hint request waits for its turn before 429 hint_busy."""
