"""Hand-driven ends of the lights socket for the tests: a fake lights process to test the
table's end, a fake table to test the lights process's end.  Both speak the wire format
by hand (json and a socket), so a mistake in ``kalimambo.firmware.wire``'s framing cannot
hide itself.  The fake lights process keeps the table's view as the real one does: the
whole view, then each patch applied (``apply_patch``), each message's result kept as
its ``"now"``."""

from __future__ import annotations

import contextlib
import copy
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

from kalimambo.firmware.wire import apply_patch

PROTOCOL = 3


class Peer:
    """One end of a connection: every message read is kept; ``expect`` waits for one."""

    def __init__(self, sock: socket.socket, on_message: Callable[[Peer, dict[str, Any]], None]
                 | None = None) -> None:
        self.sock = sock
        self.messages: list[dict[str, Any]] = []
        self.closed = threading.Event()
        self.on_message = on_message
        self.view: dict[str, Any] | None = None
        """The view as of the last ``view`` or ``patch`` message."""
        self._cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buffer = b""
        while True:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                self.closed.set()
                with self._cond:
                    self._cond.notify_all()
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                message = json.loads(line)
                if message["type"] == "view":
                    self.view = message["view"]
                elif message["type"] == "patch" and self.view is not None:
                    apply_patch(self.view, message["ops"])
                if message["type"] in ("view", "patch"):
                    message["now"] = copy.deepcopy(self.view)
                with self._cond:
                    self.messages.append(message)
                    self._cond.notify_all()
                if self.on_message is not None:
                    self.on_message(self, message)

    def send(self, message: dict[str, Any]) -> None:
        self.sock.sendall(json.dumps(message).encode() + b"\n")

    def expect_view(self, check: Callable[[dict[str, Any]], bool], timeout: float = 10.0
                    ) -> dict[str, Any]:
        """The first message after which the view held here passes ``check``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for message in self.messages:
                    if "now" in message and message["now"] is not None \
                            and check(message["now"]):
                        return message
                left = deadline - time.monotonic()
                if left <= 0 or self.closed.is_set():
                    raise AssertionError("no view passing the check came")
                self._cond.wait(left)

    def of(self, kind: str) -> list[dict[str, Any]]:
        with self._cond:
            return [m for m in self.messages if m["type"] == kind]

    def expect(self, kind: str, check: Callable[[dict[str, Any]], bool] = lambda m: True,
               timeout: float = 10.0, after: int = 0) -> dict[str, Any]:
        """The first message of ``kind`` (from index ``after`` on) passing ``check``."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for message in self.messages[after:]:
                    if message["type"] == kind and check(message):
                        return message
                left = deadline - time.monotonic()
                if left <= 0 or self.closed.is_set():
                    raise AssertionError(f"no {kind!r} message; got "
                                         f"{[m['type'] for m in self.messages]}")
                self._cond.wait(left)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


def connect_lights(path: str, frame: list[list[int]] | None = None, protocol: int = PROTOCOL,
                   timeout: float = 10.0, seen: list[list[int]] | None = None) -> Peer:
    """A fake lights process: connects, says hello, answers ``watch`` with ``frame``
    (and ``seen``, the frame as a person sees it, if given: an older one sends none)."""

    def answer(peer: Peer, message: dict[str, Any]) -> None:
        if message["type"] == "watch" and frame is not None:
            sent = {"type": "frame", "leds": bytes(c for rgb in frame for c in rgb).hex()}
            if seen is not None:
                sent["seen"] = bytes(c for rgb in seen for c in rgb).hex()
            peer.send(sent)

    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            break
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)
    peer = Peer(sock, answer)
    peer.send({"type": "hello", "protocol": protocol, "role": "lights", "pid": 0,
               "backend": "fake", "led_count": len(frame or []), "notes": []})
    return peer


class FakeTable:
    """A fake table: listens at ``path``; ``accept()`` gives the next lights connection."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(path)
        self.listener.listen(4)
        self.listener.settimeout(15)

    def accept(self) -> Peer:
        sock, _ = self.listener.accept()
        sock.settimeout(None)
        peer = Peer(sock)
        peer.expect("hello")
        peer.send({"type": "hello", "protocol": PROTOCOL, "role": "table"})
        return peer

    def close(self) -> None:
        self.listener.close()
