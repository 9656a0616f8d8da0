"""Background work for the table (computer players, hints), fitted to the server.

Under gevent a greenlet that thinks hard blocks every event stream, so slow
computations go to gevent's pool of native threads and only the short table update
runs on the hub.  Tests use plain threads or run everything inline.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class InlineRunner:
    """Runs tasks at once in the caller: deterministic, for tests."""

    def spawn(self, fn: Callable[[], None]) -> None:
        fn()

    def compute(self, fn: Callable[[], T]) -> T:
        return fn()


class ThreadRunner(InlineRunner):
    """One daemon thread per task (a threaded server or tests with threads)."""

    def spawn(self, fn: Callable[[], None]) -> None:
        threading.Thread(target=fn, daemon=True, name="kalimambo-task").start()


class GeventRunner(InlineRunner):
    """Greenlets for tasks; CPU-heavy parts in gevent's native thread pool."""

    def spawn(self, fn: Callable[[], None]) -> None:
        import gevent

        gevent.spawn(fn)

    def compute(self, fn: Callable[[], T]) -> T:
        from gevent import get_hub

        result: T = get_hub().threadpool.apply(fn)
        return result


def default_runner() -> InlineRunner:
    """Gevent's runner when the process is monkey-patched, else threads."""
    try:
        from gevent import monkey
    except ImportError:
        return ThreadRunner()
    return GeventRunner() if monkey.is_module_patched("threading") else ThreadRunner()
