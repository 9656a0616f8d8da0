"""A test hook, loaded only by tests that put this folder on PYTHONPATH and set
``KALIMAMBO_WORKER_HOOK`` to a report file (tests/live/test_lights_process.py,
tests/system/test_liveness.py).  It changes nothing in the table; in gunicorn's worker (a
plain ``os.fork`` of the master: the lights process is started by fork+exec and never
runs this) it

- writes "<pid> worker" to the report (so a check cannot pass without the hook), then
  "<pid> <module>" for every Pi-hardware module the worker holds (inherited from the
  master) or imports later: the table must never have one;
- on SIGPWR imports lgpio in a greenlet of its own: the real hazard, which under gevent
  freezes the worker;
- with ``KALIMAMBO_WORKER_SLOW_BOOT=S`` holds the worker S seconds (a real sleep: the
  whole process stands still) as it begins to load the app, like a slow Pi.
"""

from __future__ import annotations

import os
import sys
from typing import Any

FORBIDDEN = ("gpiozero", "lgpio", "rpi_ws281x")
REPORT = os.environ.get("KALIMAMBO_WORKER_HOOK")


def _note(text: str) -> None:
    assert REPORT is not None
    with open(REPORT, "a") as report:
        report.write(f"{os.getpid()} {text}\n")


class _Watch:
    """An import finder that only looks: it notes the name and lets the import go on."""

    def __init__(self, sleep: Any) -> None:
        self.sleep = sleep
        self.slow = float(os.environ.get("KALIMAMBO_WORKER_SLOW_BOOT") or 0)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name.split(".")[0] in FORBIDDEN:
            _note(name)
        if name == "kalimambo.web.http.app" and self.slow:
            slow, self.slow = self.slow, 0.0
            _note(f"slow boot {slow}")
            self.sleep(slow)


def _import_lgpio() -> None:
    # lgpio leaves its .lgd-nfy* pipe in the working folder: keep it out of the checkout.
    assert REPORT is not None
    os.chdir(os.path.dirname(os.path.abspath(REPORT)))
    import lgpio  # noqa: F401


def _freeze(signum: int, frame: Any) -> None:
    """Import lgpio in a greenlet of its own, as a request importing it would.

    Importing it in the handler itself ran the import inside whatever greenlet the
    signal interrupted, at any bytecode: once that was the watchdog between its check
    and its send, and when gunicorn's abort unwound the freeze that greenlet went on
    and sent one WATCHDOG=1 (CI, 1 run in several).  No real freeze resumes a frame
    in the middle like that."""
    import gevent

    gevent.spawn(_import_lgpio)


def _in_worker() -> None:
    import signal
    import time

    _note("worker")
    for name in list(sys.modules):
        if name.split(".")[0] in FORBIDDEN:
            _note(name)
    sys.meta_path.insert(0, _Watch(time.sleep))  # the real sleep: gevent patches later
    signal.signal(signal.SIGPWR, _freeze)


if REPORT:
    os.register_at_fork(after_in_child=_in_worker)
