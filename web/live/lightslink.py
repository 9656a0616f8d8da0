"""The table's end of the lights socket (docs/LIGHTS-PROTOCOL.md).

The web worker never touches the strip, the buttons or the buzzer: gpiozero's
lgpio starts a thread at import that blocks in ``read()``, and under gevent that
thread is a greenlet, so it would freeze the whole server.  A separate
``kalimambo lights`` process owns the hardware and connects here; this module
listens, sends it every change of the table, and passes its button presses on.

With the lights process down the table plays on: ``status()`` says so (and so
the host page) and ``frame()`` is dark.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import socket
import stat
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kalimambo.firmware.wire import PROTOCOL, Channel, Message, leds_from_hex

log = logging.getLogger(__name__)

RGB = tuple[int, int, int]
WATCH_S = 10.0
"""How long the lights keep pushing frames after the table last asked for one."""
FIRST_FRAME_S = 1.0
"""How long ``frame()`` waits for the first frame of a new watch."""
RETRY_WAIT_S = 3.0
"""How long a retry waits for the lights process to report the strip again."""

OFF_ERROR = "No lights process: the table was started with --lights off."
DOWN_ERROR = "The lights process is not connected; the game goes on without the strip."


class LightsLink:
    """Listens on ``path`` for one lights process at a time (a newcomer replaces it)."""

    def __init__(self, path: str | None, led_count: int, *,
                 welcome: Callable[[], list[bytes]] | None = None,
                 guard: Any = None,
                 on_change: Callable[[], None] | None = None,
                 on_command: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.led_count = led_count
        self.welcome = welcome or (lambda: [])
        """The messages a newly connected lights process gets first (the whole view)."""
        self.guard = guard or threading.RLock()
        """Held while welcoming and while the table sends, so no change slips between."""
        self.on_change = on_change or (lambda: None)
        self.on_command = on_command or (lambda name: None)
        self.channel: Channel | None = None
        self.hello: Message = {}
        self._status: Message = {}
        self._backend = "none"
        self._error: str | None = None
        self._frame: list[RGB] | None = None
        self._seen: list[RGB] | None = None
        self._frame_ready = threading.Event()
        self._status_seen = threading.Event()
        self._watch_until = 0.0
        self._lock = threading.Lock()
        self._listener: socket.socket | None = None
        self._closed = False

    # -- listening ----------------------------------------------------------------------
    def start(self) -> LightsLink:
        """Listen on the socket (a stale file there is replaced); no-op without a path."""
        if self.path is None:
            return self
        path = Path(self.path)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISSOCK(path.lstat().st_mode):
                path.unlink()
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(path))
            os.chmod(path, 0o660)
            listener.listen(4)
        except OSError as error:  # the table serves on; the host page says why
            listener.close()
            self._error = f"The table cannot listen for the lights on {path}: {error}"
            log.error("lights: %s", self._error)
            return self
        self._listener = listener
        threading.Thread(target=self._accept, name="lights-accept", daemon=True).start()
        log.info("lights: waiting for the lights process on %s", path)
        return self

    def _accept(self) -> None:
        listener = self._listener
        assert listener is not None
        while not self._closed:
            try:
                sock, _ = listener.accept()
            except OSError:
                if self._closed:
                    return
                time.sleep(0.5)
                continue
            channel = Channel(sock, lambda message: None, name="lights process")
            channel.on_message = functools.partial(self._on_message, channel)
            channel.start()
            threading.Thread(target=self._watch, args=(channel,), name="lights-watch",
                             daemon=True).start()

    def _watch(self, channel: Channel) -> None:
        channel.wait_closed()
        with self._lock:
            if self.channel is not channel:
                return
            self.channel = None
            self._watch_until = 0.0
            self._frame = self._seen = None
            self._error = f"{DOWN_ERROR} ({channel.reason})"
        log.warning("lights: the lights process went away: %s", channel.reason)
        self.on_change()

    # -- messages from the lights process -----------------------------------------------
    def _on_message(self, channel: Channel, message: Message) -> None:
        kind = message["type"]
        if kind == "hello":
            self._hello(channel, message)
        elif channel is not self.channel:
            return  # nothing but hello before the handshake (or after being replaced)
        elif kind == "status":
            self._on_status(message)
        elif kind == "frame":
            try:
                frame = leds_from_hex(str(message.get("leds", "")))
                seen = leds_from_hex(str(message["seen"])) if "seen" in message else frame
            except ValueError as error:
                log.warning("lights: a bad frame: %s", error)
                return
            self._frame, self._seen = frame, seen  # an older lights process: as sent
            self._frame_ready.set()
        elif kind == "command":
            name = str(message.get("name"))
            if name in ("next", "undo", "new_game"):
                self.on_command(name)
            else:
                log.warning("lights: unknown command %r", name)
        elif kind == "want_view":  # it could not apply a patch: start it afresh
            log.warning("lights: the lights process asks for the whole view again")
            with self.guard:
                for line in self.welcome():
                    channel.send(line)
        elif kind == "error":
            log.warning("lights: the lights process says: %s", message.get("message"))

    def _hello(self, channel: Channel, message: Message) -> None:
        if message.get("protocol") != PROTOCOL:
            problem = (f"lights protocol {message.get('protocol')!r} is not this table's "
                       f"{PROTOCOL}: install the same version of kalimambo for both")
            log.error("lights: %s", problem)
            channel.send({"type": "error", "message": problem})
            channel.wait_closed(0.5)  # let the error go out first
            channel.close(problem)
            return
        with self.guard:
            with self._lock:
                old, self.channel = self.channel, channel
                self.hello = message
                self._backend = str(message.get("backend", "none"))
                self._status, self._error = {}, None
                self._watch_until, self._frame = 0.0, None
            channel.send({"type": "hello", "protocol": PROTOCOL, "role": "table"})
            for line in self.welcome():
                channel.send(line)
        if old is not None and old is not channel:
            log.warning("lights: a second lights process connected; dropping the first")
            old.close("replaced by a newer lights process")
        log.info("lights: the lights process connected (pid %s, %s strip)",
                 message.get("pid"), self._backend)
        for note in message.get("notes") or []:
            log.info("lights: %s", note)
        self.on_change()

    def _on_status(self, message: Message) -> None:
        with self._lock:
            self._status = message
            self._backend = str(message.get("backend", self._backend))
        self._status_seen.set()
        self.on_change()

    # -- what the hub calls ----------------------------------------------------------------
    @property
    def connected(self) -> bool:
        channel = self.channel
        return channel is not None and not channel.closed

    def send(self, message: dict[str, Any] | bytes) -> bool:
        channel = self.channel
        return channel is not None and channel.send(message)

    def retry(self) -> bool:
        """Ask the lights process to start the strip again; false if none is connected.
        Waits a moment for its new status, so the answer can say how it went."""
        self._status_seen.clear()
        if not self.send({"type": "retry"}):
            return False
        self._status_seen.wait(RETRY_WAIT_S)
        return True

    def frame(self) -> list[RGB]:
        """What the strip shows now (dark while the lights process is away)."""
        return self.frames()[0]

    def frames(self) -> tuple[list[RGB], list[RGB]]:
        """The frame the strip is sent and the same as a person sees it (``seen``:
        before gamma and the power limit), both dark while the lights process is away."""
        dark: list[RGB] = [(0, 0, 0)] * self.led_count
        now = time.monotonic()
        with self._lock:
            channel = self.channel
            if channel is None or channel.closed:
                return dark, dark
            if now >= self._watch_until - WATCH_S / 2:
                if now >= self._watch_until:
                    self._frame_ready.clear()
                self._watch_until = now + WATCH_S
                channel.send({"type": "watch", "seconds": WATCH_S})
        self._frame_ready.wait(FIRST_FRAME_S)
        frame, seen = self._frame, self._seen
        if frame is None or seen is None:
            return dark, dark
        return list(frame), list(seen)

    def status(self) -> dict[str, Any]:
        """The strip's status for the public view (docs/CONTRACTS.md)."""
        with self._lock:
            if self.path is None:
                return {"backend": "off", "ok": False, "error": OFF_ERROR,
                        "connected": False}
            if not self.connected:
                return {"backend": self._backend, "ok": False,
                        "error": self._error or DOWN_ERROR, "connected": False}
            status = self._status
            return {"backend": status.get("backend", self._backend),
                    "ok": bool(status.get("ok", False)),
                    "error": status.get("error") if status else "Starting the strip.",
                    "playing": bool(status.get("playing", False)),
                    "power": status.get("power"), "connected": True}

    def close(self) -> None:
        self._closed = True
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
            with contextlib.suppress(OSError):
                listener.close()
            if self.path is not None:
                with contextlib.suppress(OSError):
                    Path(self.path).unlink()
        channel = self.channel
        if channel is not None:
            channel.close("the table is closing")

