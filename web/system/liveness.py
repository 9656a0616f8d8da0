"""systemd's watchdog, fed only while the table really answers.

The worker asks itself for ``/api/v1/state`` over loopback every few seconds and
only on a good answer sends ``WATCHDOG=1`` (the first time also ``READY=1``) to the
notify socket.  A frozen worker sends nothing: gunicorn's worker timeout replaces
it, and if that does not bring the table back, systemd restarts the whole service
after ``WatchdogSec``.  The loop runs in the worker itself, so a blocked gevent hub
(the lgpio freeze) stops it as surely as a stopped process.

Only the worker speaks to systemd: ``kalimambo serve`` hides ``$NOTIFY_SOCKET``
from gunicorn's master, which would otherwise say ``READY=1`` as soon as it listens
and so start systemd's watchdog clock before the app has even loaded.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import urllib.request

from kalimambo.web.system.sdnotify import sd_notify

log = logging.getLogger(__name__)

DEFAULT_EVERY_S = 5.0
MIN_ASK_TIMEOUT_S = 5.0


def interval() -> float:
    """A quarter of systemd's ``WATCHDOG_USEC`` (so two misses still leave time), else 5 s."""
    try:
        usec = int(os.environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return DEFAULT_EVERY_S
    return min(max(usec / 4_000_000, 0.2), 10.0) if usec > 0 else DEFAULT_EVERY_S


def ask_timeout() -> float:
    """How long one ask may take: half of systemd's ``WATCHDOG_USEC``, at least 5 s.

    A table flooded from many addresses answers slowly, but it answers: on the emulated
    Pi 4, /state took up to 10.5 s during bench.attacks' flood from 70 addresses. With a
    5 s limit every ask missed, and systemd killed a table that was serving. Half the
    period to answer plus the quarter between asks still leaves a quarter for the
    notify. A frozen worker is gunicorn's to catch, in 10 s (``--worker-timeout``).
    """
    try:
        usec = int(os.environ.get("WATCHDOG_USEC", ""))
    except ValueError:
        return MIN_ASK_TIMEOUT_S
    return max(usec / 2_000_000, MIN_ASK_TIMEOUT_S)


def state_url(host: str, port: int) -> str:
    """Where the worker reaches itself: loopback when it listens on every address."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}/api/v1/state" if ":" in host else \
        f"http://{host}:{port}/api/v1/state"


def answers(url: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            response.read()
            return bool(response.status == 200)
    except OSError:
        return False


class Watchdog:
    """The loop (a greenlet under gevent): ask, and notify only on a good answer."""

    def __init__(self, url: str, every_s: float | None = None,
                 address: str | None = None) -> None:
        self.url = url
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")
        self.every_s = every_s or interval()
        self.ask_timeout_s = ask_timeout()
        self.ready = False
        self._stop = threading.Event()

    def start(self) -> Watchdog | None:
        """Start feeding systemd; None (and nothing started) without a notify socket."""
        if not self.address:
            return None
        threading.Thread(target=self._run, name="watchdog", daemon=True).start()
        return self

    def _run(self) -> None:
        while True:
            asked = time.monotonic()
            # A good answer counts only while it is fresh: a worker frozen between its
            # answer and the notify (the lgpio freeze) runs on for a moment when gunicorn
            # aborts it, and must not then tell systemd that it serves.
            if (answers(self.url, self.ask_timeout_s)
                    and time.monotonic() - asked < self.ask_timeout_s
                    and not self._stop.is_set()):
                if not self.ready:
                    self.ready = sd_notify("READY=1\nSTATUS=Serving the table", self.address)
                sd_notify("WATCHDOG=1", self.address)
            # Until the first good answer, ask often: systemd waits for READY=1.
            if self._stop.wait(self.every_s if self.ready else min(self.every_s, 0.5)):
                return

    def stop(self) -> None:
        self._stop.set()
