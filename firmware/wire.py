"""The lights socket's wire format: newline-delimited JSON over a Unix stream socket.

Shared by both ends (docs/LIGHTS-PROTOCOL.md): the table (a gevent worker, where
threads are greenlets) and the lights process (plain threads).  Standard library
only, so the web worker can import it without pulling in anything of the Pi's.

A ``Channel`` is one connected peer: a reader thread hands each message to a
callback, a writer thread drains a bounded queue, so a sender never waits on a
slow or frozen peer: a full queue, or a peer silent for ``DEAD_S``, closes the
connection, and the lights process connects again.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import queue
import select
import socket
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

log = logging.getLogger(__name__)

PROTOCOL = 3
"""Bumped only for a change an older peer would misread; additions keep it.  3: the
table's public view itself, whole once, then the event stream's own patches (2 sent a
strip view of its own, diffed a second time; 1 the whole view with every change)."""
MAX_LINE = 4 << 20
"""A longer line is a broken peer (a whole game's view is well under 1 MB)."""
QUEUE_SIZE = 256
PING_S = 5.0
"""Each side sends a ping after this long without sending anything else."""
DEAD_S = 20.0
"""A peer silent this long (no message, not even a ping) is taken for frozen."""
TICK_S = 1.0

Message = dict[str, Any]


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as one line."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> Message:
    """One line as a message; ValueError for anything but a JSON object with a type."""
    data = json.loads(line)
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ValueError("a message is a JSON object with a string 'type'")
    return data


def whole_message(view_json: bytes) -> bytes:
    """The whole view, from its ready-made JSON: on connecting, or when asked again."""
    return b'{"type":"view","view":' + view_json + b"}\n"


def patch_message(patch_json: bytes, happened_json: bytes = b"[]") -> bytes:
    """What changed since the last message, as the event stream's JSON Patch, and beside
    it what the change did (``happened``: what to animate)."""
    return b'{"type":"patch","ops":' + patch_json + b',"happened":' + happened_json + b"}\n"


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _walk(doc: Any, pointer: str) -> tuple[Any, str]:
    parts = [_unescape(p) for p in pointer.split("/")[1:]]
    target = doc
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    return target, parts[-1]


def _get(doc: Any, pointer: str) -> Any:
    parent, last = _walk(doc, pointer)
    return parent[int(last)] if isinstance(parent, list) else parent[last]


def apply_patch(doc: dict[str, Any], ops: list[Message]) -> dict[str, Any]:
    """Apply a patch made by ``kalimambo.web.core.viewdiff.diff`` (the subset of RFC 6902 it
    uses) to ``doc`` in place; ValueError when its ``test`` fails (the lights process
    then asks for the whole view again; the pages do the same in ``common/patch.js``)."""

    for op in ops:
        kind = op["op"]
        if kind == "test":
            if _get(doc, op["path"]) != op["value"]:
                raise ValueError(f"patch test failed at {op['path']}")
            continue
        if kind == "copy":
            value = copy.deepcopy(_get(doc, op["from"]))
        elif kind == "remove":
            parent, last = _walk(doc, op["path"])
            del parent[int(last) if isinstance(parent, list) else last]
            continue
        else:
            value = op["value"]
        parent, last = _walk(doc, op["path"])
        if isinstance(parent, list):
            if last == "-":
                parent.append(value)
            else:
                parent[int(last)] = value
        else:
            parent[last] = value
    return doc


def leds_to_hex(frame: list[tuple[int, int, int]]) -> str:
    """A frame as 6 hex digits per LED (RRGGBB): compact, cheap to parse on a Pi Zero."""
    return bytes(channel for rgb in frame for channel in rgb).hex()


def leds_from_hex(text: str) -> list[tuple[int, int, int]]:
    raw = bytes.fromhex(text)
    if len(raw) % 3:
        raise ValueError("a frame is 3 bytes per LED")
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


class Channel:
    """One connected peer, reading and writing on its own two threads."""

    def __init__(self, sock: socket.socket, on_message: Callable[[Message], None], *,
                 name: str, queue_size: int = QUEUE_SIZE, ping_s: float = PING_S,
                 dead_s: float = DEAD_S) -> None:
        self.sock = sock
        self.on_message = on_message
        self.name = name
        self.ping_s, self.dead_s = ping_s, dead_s
        self._queue: queue.Queue[bytes | None] = queue.Queue(queue_size)
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self.reason = ""
        self.last_sent = self.last_heard = time.monotonic()
        sock.setblocking(True)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def start(self) -> Channel:
        threading.Thread(target=self._read, name=f"{self.name}-read", daemon=True).start()
        threading.Thread(target=self._write, name=f"{self.name}-write", daemon=True).start()
        return self

    def send(self, message: Mapping[str, Any] | bytes) -> bool:
        """Queue one message (a dict, or a ready line); false if the channel is closed.

        Never blocks: a peer that lets ``QUEUE_SIZE`` messages pile up is dropped."""
        if self.closed:
            return False
        line = message if isinstance(message, bytes) else encode(message)
        try:
            self._queue.put_nowait(line)
        except queue.Full:
            self.close(f"the {self.name} fell {self._queue.maxsize} messages behind")
            return False
        return True

    def wait_closed(self, timeout: float | None = None) -> bool:
        return self._closed.wait(timeout)

    def close(self, reason: str = "closed") -> None:
        with self._lock:
            if self._closed.is_set():
                return
            self.reason = reason
            self._closed.set()
        log.info("lights socket: %s connection closed: %s", self.name, reason)
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        with contextlib.suppress(OSError):
            self.sock.close()
        with contextlib.suppress(queue.Full):
            self._queue.put_nowait(None)

    # -- the two threads --------------------------------------------------------------
    def _write(self) -> None:
        while not self.closed:
            line = self._queue.get()
            if line is None or self.closed:
                return
            try:
                self.sock.sendall(line)
            except OSError as error:
                self.close(f"sending failed: {error.strerror or error}")
                return
            self.last_sent = time.monotonic()

    def _read(self) -> None:
        buffer = b""
        while not self.closed:
            try:
                ready, _, _ = select.select([self.sock], [], [], TICK_S)
                chunk = self.sock.recv(65536) if ready else None
            except (OSError, ValueError) as error:
                self.close(f"reading failed: {error}")
                return
            now = time.monotonic()
            if chunk is None:
                if now - self.last_heard > self.dead_s:
                    self.close(f"the {self.name} said nothing for {self.dead_s:.0f} s")
                    return
                if now - self.last_sent > self.ping_s:
                    self.last_sent = now
                    self.send({"type": "ping"})
                continue
            if not chunk:
                self.close(f"the {self.name} hung up")
                return
            self.last_heard = now
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    self._handle(line)
            if len(buffer) > MAX_LINE:
                self.close(f"the {self.name} sent a line longer than {MAX_LINE} bytes")
                return

    def _handle(self, line: bytes) -> None:
        try:
            message = decode(line)
        except ValueError as error:
            log.warning("lights socket: a bad line from the %s: %s", self.name, error)
            return
        if message["type"] == "ping":
            return
        try:
            self.on_message(message)
        except Exception:
            log.exception("lights socket: handling a %r message failed", message["type"])
