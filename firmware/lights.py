"""The lights the table drives: the show, the output pipeline and a backend, on a thread.

The table calls ``update(view)`` after every change and never waits
on the strip: frames are computed on a background thread (a greenlet under
gevent's monkey patching), and a strip that fails to start or fails mid-game
only turns ``status()`` not-ok; frames keep being computed, ``frame()`` keeps
answering, and ``retry()`` tries the strip again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from kalimambo.firmware.backends import Backend, detect_backend, make_backend
from kalimambo.firmware.hardware import BACKENDS, HardwareConfig
from kalimambo.firmware.output import Output
from kalimambo.firmware.power import PowerWatch
from kalimambo.firmware.scene import RGB
from kalimambo.firmware.show import Show

log = logging.getLogger(__name__)

IDLE_WAIT_S = 1.0
"""With a still picture the thread only wakes this often (or when told)."""

Cue = Callable[[str], None]


class Lights:
    """The strip as the table sees it (docs/CONTRACTS.md "Lights")."""

    def __init__(self, hardware: HardwareConfig, strip: str = "auto", *,
                 clock: Callable[[], float] = time.monotonic, run_thread: bool = True,
                 model_path: str | Path | None = None, on_cue: Cue | None = None,
                 backend_factory: Callable[[str, HardwareConfig], Backend] | None = None,
                 sys_root: str | Path = "/") -> None:
        if strip not in BACKENDS:
            raise ValueError(f"unknown strip {strip!r}: use one of {', '.join(BACKENDS)}")
        self.hardware = hardware
        self.requested = strip
        self.backend_name = detect_backend(model_path) if strip == "auto" else strip
        self.clock = clock
        self.on_cue = on_cue
        self._factory = backend_factory or make_backend
        self._lock = threading.RLock()
        self._backend_lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self.show = Show(hardware.spaces)
        self.output = Output(hardware)
        self.power = PowerWatch(hardware, sys_root)
        """The Pi's supply and the strip's current (``sys_root``: where /sys is, for tests)."""
        self._override: list[RGB] | None = None
        self._frame: list[RGB] = [(0, 0, 0)] * hardware.led_count
        self._seen: list[RGB] = [(0, 0, 0)] * hardware.led_count
        self._sent: list[RGB] | None = None
        self.ticks = 0
        """Frames computed so far (the bench counts them)."""
        self.backend: Backend | None = None
        self._error: str | None = None
        self.on_status: Callable[[], None] | None = None
        """Called when ``status()`` has changed (any thread), so the lights process
        tells the table at once instead of asking on a timer."""
        self._reported: dict[str, Any] | None = None
        self._start_backend()
        self._thread: threading.Thread | None = None
        if run_thread:
            self._thread = threading.Thread(target=self._run, name="lights", daemon=True)
            self._thread.start()

    # -- the strip ----------------------------------------------------------------
    def _start_backend(self) -> None:
        with self._backend_lock:
            try:
                backend = self._factory(self.backend_name, self.hardware)
                backend.start()
            except Exception as error:
                self.backend, self._error = None, str(error) or type(error).__name__
                log.error("lights: the %s strip did not start: %s", self.backend_name,
                          self._error)
                return
            self.backend, self._error, self._sent = backend, None, None
            log.info("lights: %s strip started, %d LEDs", self.backend_name,
                     self.hardware.led_count)

    def _send(self, frame: list[RGB]) -> None:
        with self._backend_lock:
            backend = self.backend
            if backend is None or frame == self._sent:
                return
            try:
                backend.show(frame)
                self._sent = frame
            except Exception as error:
                self._error = str(error) or type(error).__name__
                self.backend = None
                log.error("lights: the %s strip failed: %s (the table goes on; retry from "
                          "the host page)", self.backend_name, self._error)
                try:
                    backend.close()
                except Exception:
                    log.debug("lights: closing the failed strip failed too", exc_info=True)

    def retry(self) -> dict[str, Any]:
        """Start the strip again (after a failure, or to pick up a fixed cable)."""
        with self._backend_lock:
            old, self.backend = self.backend, None
        if old is not None:
            try:
                old.close()
            except Exception:
                log.debug("lights: closing the old strip failed", exc_info=True)
        self._start_backend()
        self._wake.set()
        self._status_check()
        return self.status()

    # -- what the table calls -----------------------------------------------------
    def update(self, view: Mapping[str, Any], whole: bool = False,
               happened: Sequence[Mapping[str, Any]] = ()) -> None:
        """The table's latest public view and what the change did (``happened``, told
        beside it), which is animated; a ``whole`` view (the first, or a fresh start) is
        drawn as it is."""
        with self._lock:
            self.show.update(view, self.clock(), whole, happened)
        self._wake.set()
        self._status_check()

    def set_override(self, leds: Sequence[RGB] | None) -> None:
        """Show this LED-by-LED picture instead of the game (builder tools); None ends it."""
        with self._lock:
            self._override = list(leds) if leds is not None else None
        self._wake.set()

    def frame(self) -> list[tuple[int, int, int]]:
        """The frame the strip shows now, after gamma and power limiting, LED order."""
        with self._lock:
            return list(self._frame)

    def seen(self) -> list[tuple[int, int, int]]:
        """The frame as a person sees the LEDs (and as the board page draws them): the
        colours before gamma, the brightness cap and the power limit, which change the
        numbers sent so that the light looks like these."""
        with self._lock:
            return list(self._seen)

    def status(self) -> dict[str, Any]:
        with self._lock:
            playing = self.show.playing
            power = self.power.status()
        return {"backend": self.backend_name, "ok": self._error is None,
                "error": self._error, "playing": playing, "power": power}

    def _status_check(self) -> None:
        """Call ``on_status`` if the status is not the one last seen."""
        hook = self.on_status
        if hook is None:
            return
        status = self.status()
        with self._lock:
            if status == self._reported:
                return
            self._reported = status
        hook()

    def close(self) -> None:
        """Stop the thread and blank and release the strip."""
        self._closed = True
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        with self._backend_lock:
            backend, self.backend = self.backend, None
        if backend is not None:
            try:
                backend.show([(0, 0, 0)] * self.hardware.led_count)
                backend.close()
            except Exception as error:
                log.warning("lights: closing the strip: %s", error)

    # -- the loop -----------------------------------------------------------------
    def tick(self, now: float | None = None) -> list[RGB]:
        """Compute the frame for ``now`` and send it: one turn of the loop."""
        with self._lock:
            when = self.clock() if now is None else now
            cues = self.show.advance(when)
            if self._override is not None:
                leds = self._override
            else:
                top, under = self.show.draw(when)
                leds = self.output.leds_from_spaces(top, under)
            frame = self.output.finish(leds)
            self.power.frame(self.output.asked, when)
            self._frame, self._seen = frame, list(leds)
            self.ticks += 1
        self._send(frame)
        self._status_check()  # an animation ended, or the strip failed
        if self.on_cue is not None:
            for cue in cues:
                try:
                    self.on_cue(cue)
                except Exception:
                    log.exception("lights: the %s cue failed", cue)
        return frame

    def _run(self) -> None:
        period = 1.0 / self.hardware.fps
        due = time.monotonic()
        while not self._closed:
            self._wake.clear()
            try:
                self.tick()
            except Exception:
                log.exception("lights: computing a frame failed")
            with self._lock:
                moving = self.show.animated() and self._override is None
            now = time.monotonic()
            # Frames on a fixed beat (not "period after the last one"), so sleeping
            # late now and then does not lower the frame rate; never catch up in bursts.
            due = max(due + period, now) if moving else now + IDLE_WAIT_S
            self._wake.wait(due - now)
            if self._wake.is_set():
                due = time.monotonic()


def create_lights(hardware: HardwareConfig, strip: str | None = None, **options: Any) -> Lights:
    """The table's lights on ``strip`` (auto, sim, ws281x or pio; None: the board
    file's choice), started at once; a strip that fails shows in ``status()``."""
    return Lights(hardware, strip or hardware.backend, **options)
