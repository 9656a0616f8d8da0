"""``kalimambo serve --lights child``: the lights process as a supervised child.

Runs in gunicorn's master (never in the gevent worker), on one plain thread: it
starts ``kalimambo lights``, starts it again whenever it ends (after a growing
pause, so a lights process that cannot start does not spin), and stops it when
the table stops.  A child whose table died without stopping it (killed outright)
sees its parent change and leaves by itself (``--parent-pid``).  On a Pi systemd
does this job instead (``--lights external``).
"""

from __future__ import annotations

import contextlib
import logging
import subprocess
import threading
import time
from collections.abc import Sequence

log = logging.getLogger(__name__)

FIRST_PAUSE_S = 2.0
"""Before a child's end counts as a crash: time enough for the master's stop-signal
handler to have run (gunicorn's master waits up to 1 s at a time for its signals, and
a busy machine adds to it), so that Ctrl-C is not taken for a crash."""
LONGEST_PAUSE_S = 10.0
STEADY_S = 30.0
"""A child that ran this long had a fresh start: the next pause is short again."""
STOP_WAIT_S = 5.0


class LightsChild:
    """Keeps one ``kalimambo lights`` process running until ``stop()``."""

    def __init__(self, command: Sequence[str], cwd: str) -> None:
        self.command = list(command)
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._stop = threading.Event()
        self._stopping = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="lights-child", daemon=True)

    def start(self) -> LightsChild:
        self._thread.start()
        return self

    def _run(self) -> None:
        pause = FIRST_PAUSE_S
        while not self._stop.is_set():
            started = time.monotonic()
            with self._lock:
                if self._stop.is_set():
                    return
                try:
                    proc = subprocess.Popen(self.command, cwd=self.cwd)
                except OSError as error:
                    log.error("lights: cannot start the lights process: %s", error)
                    proc = None
                self.proc = proc
                self.starts += 1
            # gunicorn's master reaps every child; then wait() reports 0.
            code = proc.wait() if proc is not None else None
            if time.monotonic() - started > STEADY_S:
                pause = FIRST_PAUSE_S
            # Ctrl-C ends the child and the table at once: the table says so at once
            # (``stopping``, from the master's signal handler), well within the pause.
            if self._stop.wait(pause) or self._stopping:
                return
            if proc is not None:
                log.warning("lights: the lights process (pid %d) ended with status %s; "
                            "starting it again", proc.pid, code)
            pause = min(pause * 2, LONGEST_PAUSE_S)

    def stopping(self) -> None:
        """The table is stopping (a stop signal came): the child's end from now on is
        not a crash to restart.  For a signal handler: it only sets a plain flag (no
        lock that the interrupted thread might hold)."""
        self._stopping = True

    def stop(self) -> None:
        """Stop supervising and end the child (SIGTERM, then SIGKILL)."""
        with self._lock:
            self._stop.set()
            proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(STOP_WAIT_S)
        self._thread.join(STOP_WAIT_S)
