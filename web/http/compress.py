"""gzip for the pages' text (issue 36): a Pi Zero 2 W serves seven phones at once.

A response whose body is text (HTML, JavaScript, CSS, JSON, SVG) of ``MIN_SIZE`` bytes
or more is sent gzip-compressed to a client that accepts it, with
``Vary: Accept-Encoding`` whether it did or not (a cache must not hand the gzip to a
client that cannot read it):

- **Static files** (``/static/...``) are compressed once and kept in memory, keyed by
  the file's path and its ETag (Werkzeug's: the file's mtime, size and name), so a
  file that changes on disk is compressed again and a slow core never gzips the same
  file for every phone.  The whole of web/static is about 170 KB, some 65 KB gzipped.
  The gzip is another representation, so it carries its own ETag (the file's with
  ``-gzip``), and a revalidation with it is answered here with a 304 (Werkzeug
  compares only the file's own).
- **Everything else** (the pages, the API's JSON) is compressed per response: a
  page is a few KB of HTML plus one language's messages.

Never compressed: a streamed response (the event stream, ``text/event-stream``:
compressing would buffer its messages), any other ``direct_passthrough`` response
than a static file, partial content (206), a response already encoded or marked
``no-transform``.

Static files are **revalidated, not kept**: ``Cache-Control: no-cache`` with their
ETag (Flask's default for ``send_static_file``, kept).  A reload asks for each file
again and gets a 304 of a few hundred bytes.  ``max-age``/``immutable`` would save
those round trips, but only safely with a versioned address for every file, and the
modules import each other by plain relative paths with no build step to version
them: after an upgrade a phone would run its old modules (or an old one beside a new
one) until they expired.  No-cache is right the moment an upgrade is in.
"""

from __future__ import annotations

import gzip
import threading

from flask import Flask, Request, Response, request

MIN_SIZE = 1024
"""Smaller bodies are sent as they are: gzip's own header and the CPU cost more than
it saves."""
STATIC_LEVEL = 9
"""Static files are compressed once: the best ratio is worth its time."""
DYNAMIC_LEVEL = 6
"""Per response: zlib's default, most of level 9's gain at a fraction of its time."""
TEXT_TYPES = frozenset({"text/html", "text/javascript", "application/javascript",
                        "text/css", "application/json", "image/svg+xml", "text/plain"})
STATIC_ENDPOINTS = frozenset({"static", "pages.static"})
"""The app's own static route answers /static/ (it is registered first); the pages'
blueprint names the same folder."""
GZIP_SUFFIX = "-gzip"


class StaticCache:
    """Each static file's gzip (or None where gzip would not be smaller), by path,
    for the one version of the file its ETag names."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[str, bytes | None]] = {}
        self._lock = threading.Lock()

    def get(self, path: str, etag: str) -> tuple[bool, bytes | None]:
        """(found, gzip) for ``path`` as ``etag`` names it."""
        with self._lock:
            entry = self._files.get(path)
        if entry is None or entry[0] != etag:
            return False, None
        return True, entry[1]

    def put(self, path: str, etag: str, body: bytes) -> bytes | None:
        packed: bytes | None = gzip.compress(body, compresslevel=STATIC_LEVEL, mtime=0)
        if len(packed or b"") >= len(body):
            packed = None
        with self._lock:
            self._files[path] = (etag, packed)  # the file's older version goes
        return packed


def accepts_gzip(req: Request) -> bool:
    return req.accept_encodings.quality("gzip") > 0


def _compressible(response: Response) -> bool:
    return (response.mimetype in TEXT_TYPES
            and response.status_code not in (204, 206, 304)
            and "Content-Encoding" not in response.headers
            and not response.cache_control.no_transform)


def _body(response: Response) -> bytes:
    """A static response's file, read whole (and the file closed)."""
    try:
        return b"".join(response.response)  # type: ignore[arg-type]
    finally:
        response.close()


def _static(response: Response, cache: StaticCache) -> Response:
    """A static file's 200: from the cache, gzipped, or a 304 for the gzip's ETag."""
    etag, weak = response.get_etag()
    length = response.content_length
    if (etag is None or weak or length is None or length < MIN_SIZE
            or request.range is not None or not _compressible(response)):
        return response
    response.vary.add("Accept-Encoding")
    if not accepts_gzip(request):
        return response
    path = request.path
    found, packed = cache.get(path, etag)
    if found and packed is None:
        return response
    if found:
        response.close()  # the file is not read: its gzip is in memory
    else:
        body = _body(response)
        packed = cache.put(path, etag, body)
        if packed is None:  # not worth it: the file as it is (read already)
            response.direct_passthrough = False
            response.set_data(body)
            return response
    assert packed is not None
    tag = etag + GZIP_SUFFIX
    if request.if_none_match.contains_weak(tag):
        return _not_modified(response, tag)
    response.direct_passthrough = False
    response.set_data(packed)  # also sets Content-Length
    response.headers["Content-Encoding"] = "gzip"
    response.headers.pop("Accept-Ranges", None)  # ranges of the gzip are not offered
    response.set_etag(tag)
    return response


def _not_modified(response: Response, tag: str) -> Response:
    answer = Response(status=304)
    for name in ("Cache-Control", "Last-Modified", "Expires", "Vary", "Date"):
        if name in response.headers:
            answer.headers[name] = response.headers[name]
    answer.set_etag(tag)
    return answer


def _dynamic(response: Response) -> Response:
    """A response built in memory (a page, the API's JSON): gzipped per response."""
    if not _compressible(response):
        return response
    body = response.get_data()
    if len(body) < MIN_SIZE:
        return response
    response.vary.add("Accept-Encoding")
    if not accepts_gzip(request):
        return response
    packed = gzip.compress(body, compresslevel=DYNAMIC_LEVEL, mtime=0)
    if len(packed) >= len(body):
        return response
    response.set_data(packed)
    response.headers["Content-Encoding"] = "gzip"
    etag, weak = response.get_etag()
    if etag is not None and not weak:  # the same content, another encoding: weak
        response.set_etag(etag, weak=True)
    return response


def register(app: Flask) -> None:
    """Compress ``app``'s text responses (an ``after_request`` of the whole app, so it
    runs after the blueprints' own: the pages' JavaScript is ``text/javascript`` by
    then)."""
    cache = StaticCache()
    app.extensions["kalimambo.gzip"] = cache

    @app.after_request
    def compress(response: Response) -> Response:
        if response.is_streamed and not response.direct_passthrough:
            return response  # the event stream and any other generator: never buffered
        if request.endpoint in STATIC_ENDPOINTS:
            if response.status_code == 304 and response.mimetype in TEXT_TYPES:
                response.vary.add("Accept-Encoding")  # Werkzeug's, for the plain file
            elif response.status_code == 200 and response.direct_passthrough:
                return _static(response, cache)
            return response
        if response.direct_passthrough:
            return response
        return _dynamic(response)
