"""A WSGI layer in front of the app: per-address limits and a deadline on request bodies.

Gunicorn's gevent worker bounds the wait for request headers (keep-alive) but not
for a body: a client that announces 100 bytes and sends one would hold its
connection for ever, and a thousand such clients (or a thousand event streams)
leave no connection for anyone else.  So before the app sees a request:

- the body is read here, whole, within ``BODY_SECONDS`` and at most ``MAX_BODY``
  bytes, chunked or not (408 / 413, and the connection is closed);
- one address may have ``REQUESTS_PER_ADDRESS`` requests and ``STREAMS_PER_ADDRESS``
  event streams in progress, and all addresses together ``BODIES_TOTAL`` bodies being
  read and ``STREAMS_TOTAL`` streams (429 for one address, 503 for all), except that an
  address reading fewer than ``BODIES_FEW`` bodies, or holding fewer than
  ``STREAMS_FEW`` streams, is never refused by the total (a new phone gets in while a
  flood from many addresses holds the rest; the door bounds what they can hold);
- every refusal closes its connection, so a refused client holds nothing (gunicorn
  drops an app's ``Connection: close``: the refusal's ``close`` ends the connection
  itself, ``kalimambo.web.http.door.hang_up``).

Before any of this the door (``kalimambo.web.http.door``) has refused the connections over
its caps, unread: this layer is the second line, for what only a parsed request shows.

Every refusal has the API's ``{"error": {"code", "message"}}`` shape.
"""

from __future__ import annotations

import contextlib
import io
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kalimambo.web.http import limits
from kalimambo.web.http.door import hang_up
from kalimambo.web.http.statuses import error_body

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]
STREAM_PATH = "/api/v1/events"


@dataclass(frozen=True, slots=True)
class Limits:
    max_body: int = limits.MAX_BODY
    body_seconds: float = limits.BODY_SECONDS
    requests_per_address: int = limits.REQUESTS_PER_ADDRESS
    bodies_total: int = limits.BODIES_TOTAL
    streams_per_address: int = limits.STREAMS_PER_ADDRESS
    streams_total: int = limits.STREAMS_TOTAL
    bodies_few: int = limits.BODIES_FEW
    streams_few: int = limits.STREAMS_FEW


class Refused(Exception):
    """A request turned away before the app saw it."""

    def __init__(self, status: str, code: str, message: str,
                 retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.retry_after = retry_after


class BodyTimeout(Exception):
    """The body did not arrive within the deadline."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise ``BodyTimeout`` in this block after ``seconds``, when served by gevent.

    Under a threaded server (tests, ``flask run``) there is no way to interrupt a
    blocking read, and no deadline; the table itself is always served by gevent.
    """
    try:
        from gevent import Timeout, monkey
    except ImportError:
        yield
        return
    if not monkey.is_module_patched("socket"):
        yield
        return
    timer = Timeout(seconds, BodyTimeout)
    timer.start()
    try:
        yield
    finally:
        timer.close()


def _content_length(environ: dict[str, Any]) -> int | None:
    raw = str(environ.get("CONTENT_LENGTH") or "").strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise Refused("400 Bad Request", "bad_input", "That request did not work.")
    return int(raw)


def read_body(environ: dict[str, Any], limit: int, seconds: float) -> bytes:
    """The whole request body, or ``Refused`` (too big, too slow)."""
    length = _content_length(environ)
    chunked = "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower()
    if length is None and not chunked:
        return b""
    too_large = Refused("413 Request Entity Too Large", "too_large",
                        f"That request is too big (more than {limit // 1024} KB).")
    if length is not None and length > limit:
        raise too_large
    wanted = length if length is not None else limit + 1
    stream = environ["wsgi.input"]
    parts: list[bytes] = []
    got = 0
    try:
        with deadline(seconds):
            while got < wanted:
                part = stream.read(min(wanted - got, 65536))
                if not part:
                    break
                parts.append(part)
                got += len(part)
    except BodyTimeout:
        raise Refused("408 Request Timeout", "too_slow", "That request took too long to "
                      "arrive: please try again.") from None
    except OSError:
        raise Refused("400 Bad Request", "bad_input", "That request did not arrive "
                      "whole.") from None
    if got > limit:
        raise too_large
    if length is not None and got < length:
        raise Refused("400 Bad Request", "bad_input", "That request did not arrive whole.")
    return b"".join(parts)


class Counter:
    """Counts in progress, per address and in all, under a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_address: dict[str, int] = {}
        self.total = 0

    def take(self, address: str, per_address: int, total: int | None,
             few: int = 0) -> bool:
        """One more for ``address``: at most ``per_address`` of its own, and ``total`` in
        all unless the address holds fewer than ``few``."""
        with self._lock:
            mine = self.by_address.get(address, 0)
            if mine >= per_address or (total is not None and self.total >= total
                                       and mine >= few):
                return False
            self.by_address[address] = mine + 1
            self.total += 1
            return True

    def give(self, address: str) -> None:
        with self._lock:
            left = self.by_address.get(address, 0) - 1
            if left > 0:
                self.by_address[address] = left
            else:
                self.by_address.pop(address, None)
            self.total = max(0, self.total - 1)


class _Released:
    """The app's answer, handing its slot back when the server closes it."""

    def __init__(self, body: Iterable[bytes], release: Callable[[], None]) -> None:
        self._body = body
        self._release = release
        self._done = False

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._body)

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            if not self._done:
                self._done = True
                self._release()


class _HangUp:
    """A refusal's answer: when the server closes it (the answer is out), the connection
    ends too."""

    def __init__(self, body: bytes, environ: dict[str, Any]) -> None:
        self._body = body
        self._environ = environ

    def __iter__(self) -> Iterator[bytes]:
        return iter([self._body])

    def close(self) -> None:
        hang_up(self._environ.get("gunicorn.socket"))


class Guard:
    """The WSGI middleware; ``wsgi_app`` is the Flask app's own WSGI callable."""

    def __init__(self, wsgi_app: WsgiApp, config: Limits | None = None) -> None:
        self.app = wsgi_app
        self.limits = config or Limits()
        self.requests = Counter()
        self.streams = Counter()
        self.bodies = Counter()

    def __call__(self, environ: dict[str, Any], start_response: StartResponse
                 ) -> Iterable[bytes]:
        address = str(environ.get("REMOTE_ADDR") or "?")
        is_stream = environ.get("PATH_INFO") == STREAM_PATH
        lim = self.limits
        counter = self.streams if is_stream else self.requests
        if is_stream:
            taken = counter.take(address, lim.streams_per_address, lim.streams_total,
                                 lim.streams_few)
            if not taken:
                mine = self.streams.by_address.get(address, 0) >= lim.streams_per_address
                return self._refuse(environ, start_response, Refused(
                    "429 Too Many Requests" if mine else "503 Service Unavailable",
                    "too_many_streams", "Too many live connections are open: please close "
                    "another tab or try again in a moment.", retry_after=5))
        elif not counter.take(address, lim.requests_per_address, None):
            return self._refuse(environ, start_response, Refused(
                "429 Too Many Requests", "too_many_requests", "Too many requests at once "
                "from this device: please try again in a moment.", retry_after=2))
        try:
            body = self._body(environ, address)
        except Refused as refused:
            counter.give(address)
            return self._refuse(environ, start_response, refused)
        environ["wsgi.input"] = io.BytesIO(body)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["wsgi.input_terminated"] = True
        try:
            answer = self.app(environ, start_response)
        except BaseException:
            counter.give(address)
            raise
        if not is_stream:  # the answer is made: only a stream holds on while it is read
            counter.give(address)
            return answer
        return _Released(answer, lambda: counter.give(address))

    def _body(self, environ: dict[str, Any], address: str) -> bytes:
        """The body, read while holding one of the ``BODIES_TOTAL`` slots (a request
        without a body needs none, so a flood of slow bodies never refuses a GET; an
        address reading fewer than ``BODIES_FEW`` needs no free one)."""
        expected = str(environ.get("CONTENT_LENGTH") or "0").strip() not in ("", "0") or \
            "chunked" in str(environ.get("HTTP_TRANSFER_ENCODING", "")).lower()
        if not expected:
            return b""
        if not self.bodies.take(address, self.limits.requests_per_address,
                                self.limits.bodies_total, self.limits.bodies_few):
            raise Refused("503 Service Unavailable", "too_many_requests", "The table is "
                          "busy: please try again in a moment.", retry_after=2)
        try:
            return read_body(environ, self.limits.max_body, self.limits.body_seconds)
        finally:
            self.bodies.give(address)

    @staticmethod
    def _refuse(environ: dict[str, Any], start_response: StartResponse,
                refused: Refused) -> Iterable[bytes]:
        """The refusal, and the connection closed: a refused client holds nothing."""
        body = error_body(refused.code, refused.message)
        headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body))),
                   ("Cache-Control", "no-store")]
        headers.append(("Connection", "close"))
        if refused.retry_after is not None:
            headers.append(("Retry-After", str(refused.retry_after)))
        start_response(refused.status, headers)
        return _HangUp(body, environ)
