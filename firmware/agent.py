"""The lights process's work: the strip, the buttons and the buzzer, driven from the table.

``kalimambo lights`` runs one ``LightsAgent``.  It connects to the table's Unix
socket (docs/LIGHTS-PROTOCOL.md), and keeps connecting again, with a short
back-off, whenever the table is not there.  It draws what the table sends with
``kalimambo.firmware.lights.Lights``, sends the table the strip's status when it changes
and frames while the table asks for them, and turns button presses into table
commands.  No gevent here: gpiozero and lgpio run their own threads, and a plain
process is where they work.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kalimambo.firmware.backends import is_armv6, read_model
from kalimambo.firmware.controls import Controls
from kalimambo.firmware.hardware import HardwareConfig
from kalimambo.firmware.lights import Lights
from kalimambo.firmware.wire import PROTOCOL, Channel, Message, apply_patch, leds_to_hex

log = logging.getLogger(__name__)

FIRST_BACKOFF_S = 0.2
LONGEST_BACKOFF_S = 2.0
FRAME_EVERY_S = 0.1
"""While the table watches, at most this often a changed frame goes out (10 a second)."""
LONGEST_WATCH_S = 60.0


def _pins(hardware: HardwareConfig) -> list[str]:
    named = [("button", hardware.button_next), ("button", hardware.button_undo),
             ("buzzer", hardware.buzzer_pin)]
    return [f"{what} on GPIO {pin}" for what, pin in named if pin is not None]


class LightsAgent:
    """One lights process: the strip and controls, and its link to the table."""

    def __init__(self, hardware: HardwareConfig, strip: str, socket_path: str, *,
                 pin_factory: Any = None, lights: Lights | None = None,
                 model_path: str | Path | None = None, sys_root: str | Path = "/") -> None:
        self.hardware = hardware
        self.path = socket_path
        self.notes: list[str] = []
        """What this process could not find (no GPIO, no strip): logged and told the table."""
        self.lights = lights or Lights(hardware, strip, model_path=model_path, sys_root=sys_root)
        self._strip_notes(model_path)
        self.controls = self._open_controls(pin_factory)
        if self.controls is not None and self.controls.buzzer is not None:
            self.lights.on_cue = self.controls.cue
        self.channel: Channel | None = None
        self._view: dict[str, Any] | None = None
        """The table's view as of its last message (patches apply to it)."""
        self.connections = 0
        self._stop = threading.Event()
        self._wake = threading.Event()
        self.lights.on_status = self._wake.set  # a changed status wakes the report
        self._watch_until = 0.0
        self._sent_status: dict[str, Any] | None = None
        self._sent_frame: list[tuple[int, int, int]] | None = None
        self._threads: list[threading.Thread] = []

    # -- what this machine has -----------------------------------------------------------
    def _strip_notes(self, model_path: str | Path | None) -> None:
        if self.lights.requested != "auto" or self.lights.backend_name != "sim":
            return
        model = read_model(model_path)
        if model is None:
            self.notes.append("no strip: this is not a Raspberry Pi (no device-tree model), "
                              "so the strip is only simulated (the board page's ?leds=1)")
        elif is_armv6(model):
            self.notes.append(f"no strip: {model} is armv6l, where rpi-ws281x does not run; "
                              "the strip is only simulated")

    def _open_controls(self, pin_factory: Any) -> Controls | None:
        pins = _pins(self.hardware)
        if not pins:
            return None
        quiet = logging.getLogger(Controls.__module__)
        level = quiet.level
        quiet.setLevel(logging.ERROR)  # the notes below say it once, and more plainly
        try:
            with warnings.catch_warnings(record=True) as fallbacks:
                warnings.simplefilter("always")
                controls = Controls(self.hardware, lambda: self.command("next"),
                                    lambda: self.command("undo"),
                                    lambda: self.command("new_game"), pin_factory=pin_factory)
        finally:
            quiet.setLevel(level)
        if controls.exceptions:
            from gpiozero.exc import BadPinFactory

            if all(isinstance(e, BadPinFactory) for e in controls.exceptions):
                reason = str(fallbacks[0].message) if fallbacks else "no pin library works"
                self.notes.append(f"found no GPIO ({reason}): the {' and '.join(pins)} "
                                  "are off; the table plays on without them")
            else:
                self.notes.extend(f"{error}; going on without it" for error in controls.errors)
        return controls

    # -- running -------------------------------------------------------------------------
    def start(self) -> LightsAgent:
        for target, name in ((self._connect_loop, "table-link"), (self._report_loop,
                                                                  "table-report")):
            thread = threading.Thread(target=target, name=name, daemon=True)
            thread.start()
            self._threads.append(thread)
        return self

    def close(self) -> None:
        """Stop talking to the table, release the buttons and buzzer, blank the strip."""
        self._stop.set()
        self._wake.set()
        channel = self.channel
        if channel is not None:
            channel.close("the lights process is stopping")
        for thread in self._threads:
            thread.join(timeout=5)
        if self.controls is not None:
            self.controls.close()
        self.lights.close()

    def wait_connected(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            channel = self.channel
            if channel is not None and not channel.closed:
                return True
            time.sleep(0.01)
        return False

    def _hello(self) -> Message:
        return {"type": "hello", "protocol": PROTOCOL, "role": "lights", "pid": os.getpid(),
                "backend": self.lights.backend_name, "led_count": self.hardware.led_count,
                "notes": self.notes}

    def _connect_loop(self) -> None:
        backoff = FIRST_BACKOFF_S
        said_waiting = False
        while not self._stop.is_set():
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.path)
            except OSError as error:
                sock.close()
                if not said_waiting:
                    log.info("waiting for the table at %s (%s)", self.path,
                             error.strerror or error)
                    said_waiting = True
                self._stop.wait(backoff)
                backoff = min(backoff * 2, LONGEST_BACKOFF_S)
                continue
            backoff, said_waiting = FIRST_BACKOFF_S, False
            channel = Channel(sock, self._on_message, name="table")
            channel.send(self._hello())
            self._watch_until, self._sent_status, self._sent_frame = 0.0, None, None
            self.channel, self._view = channel, None
            self.connections += 1
            channel.start()
            self._wake.set()
            log.info("connected to the table at %s", self.path)
            while not channel.wait_closed(0.5):
                if self._stop.is_set():
                    channel.close("the lights process is stopping")
            self.channel = None
            if not self._stop.is_set():
                log.warning("the table went away (%s); connecting again", channel.reason)

    def _report_loop(self) -> None:
        """Status on change; frames on change while the table watches.  Woken by the
        lights when their status changed, by a new connection or a watch; otherwise
        asleep (no timer asks for the status)."""
        while not self._stop.is_set():
            self._wake.clear()  # before reading: a change from now on wakes the wait
            channel = self.channel
            watching = time.monotonic() < self._watch_until
            if channel is not None and not channel.closed:
                status = self._status()
                if status != self._sent_status:
                    self._sent_status = status
                    channel.send({"type": "status", **status})
                if watching:
                    frame, seen = self.lights.frame(), self.lights.seen()
                    if frame != self._sent_frame:
                        self._sent_frame = frame
                        channel.send({"type": "frame", "leds": leds_to_hex(frame),
                                      "seen": leds_to_hex(seen)})
            self._wake.wait(FRAME_EVERY_S if watching else None)

    def _status(self) -> dict[str, Any]:
        status = self.lights.status()
        return {key: status.get(key) for key in ("backend", "ok", "error", "playing",
                                                 "power")}

    # -- the table's messages and the buttons ---------------------------------------------
    def _on_message(self, message: Message) -> None:
        kind = message["type"]
        handlers: dict[str, Callable[[Message], None]] = {
            "hello": self._on_hello, "view": self._on_view, "patch": self._on_patch,
            "retry": self._on_retry, "watch": self._on_watch,
            "error": self._on_error}
        handler = handlers.get(kind)
        if handler is None:
            log.debug("ignoring a %r message (a newer table?)", kind)
            return
        handler(message)

    def _on_hello(self, message: Message) -> None:
        if message.get("protocol") != PROTOCOL:
            log.error("the table speaks lights protocol %r, this is %d: install the same "
                      "version of kalimambo for both", message.get("protocol"), PROTOCOL)

    def _on_view(self, message: Message) -> None:
        """The whole view (on connecting): drawn as it is, nothing animated."""
        view = message.get("view")
        if isinstance(view, dict):
            self._view = view
            self.lights.update(view, whole=True)

    def _on_patch(self, message: Message) -> None:
        """What changed: applied to the view held here; what happened, told beside it, is
        animated.  A patch that does not fit (a message lost) asks the table for the whole
        view."""
        ops = message.get("ops")
        try:
            if self._view is None or not isinstance(ops, list):
                raise ValueError("no view to patch yet")
            apply_patch(self._view, ops)
        except (ValueError, KeyError, IndexError, TypeError) as error:
            log.warning("a patch from the table did not apply (%s): asking for the view",
                        error)
            self._view = None
            channel = self.channel
            if channel is not None:
                channel.send({"type": "want_view"})
            return
        happened = message.get("happened")
        self.lights.update(self._view, happened=happened if isinstance(happened, list) else [])

    def _on_retry(self, message: Message) -> None:
        self.lights.retry()
        self._sent_status = None  # the table waits for a status after a retry
        self._wake.set()

    def _on_watch(self, message: Message) -> None:
        try:
            seconds = min(float(message.get("seconds", 10)), LONGEST_WATCH_S)
        except (TypeError, ValueError):
            seconds = 10.0
        self._watch_until = time.monotonic() + seconds
        self._sent_frame = None
        self._wake.set()

    def _on_error(self, message: Message) -> None:
        log.error("the table says: %s", message.get("message"))

    def command(self, name: str) -> bool:
        """A button press for the table (next, undo, new_game); false if it is away."""
        channel = self.channel
        if channel is None or not channel.send({"type": "command", "name": name}):
            log.warning("the %s button: the table is not connected", name)
            return False
        return True
