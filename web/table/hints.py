"""Hints, worked out off the request path and never more than the table can afford.

A hint is a search of a few hundred milliseconds.  Three hundred requests for one
seat's hint at once used to start three hundred searches, and every other request
waited.  Now one search runs per seat and round (``HINTS_PER_SEAT``): requests for
the same hint wait for it and share its answer, which is kept for the round; at most
``HINTS_TOTAL`` searches run at once; a request that cannot get its turn within
``HINT_WAIT_SECONDS`` gets 429 ``hint_busy``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from kalimambo.web.core.refusals import Kind, Refusal
from kalimambo.web.http.limits import HINT_WAIT_SECONDS, HINTS_TOTAL

KEEP = 64
"""Answers kept (a table has 7 seats; older rounds' answers are dropped first)."""


@dataclass
class _Job:
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None


def busy() -> Refusal:
    return Refusal(Kind.TOO_SOON, "hint_busy", "The table is still thinking about hints: "
                   "please try again in a moment.", retry_after_s=2)


class HintDesk:
    """One search per key (seat and round), shared by every request that asks for it."""

    def __init__(self, total: int = HINTS_TOTAL, wait: float = HINT_WAIT_SECONDS) -> None:
        self.wait = wait
        self._guard = threading.Lock()
        self._slots = threading.BoundedSemaphore(total)
        self._jobs: dict[Hashable, _Job] = {}

    def get(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()``'s answer for ``key``: worked out once, kept, shared."""
        with self._guard:
            job = self._jobs.get(key)
            mine = job is None
            if job is None:
                job = self._jobs[key] = _Job()
                while len(self._jobs) > KEEP:
                    self._jobs.pop(next(iter(self._jobs)))
        if mine:
            self._run(key, job, compute)
        elif not job.done.wait(self.wait):
            raise busy()
        if job.error is not None:
            raise job.error
        return job.result

    def _run(self, key: Hashable, job: _Job, compute: Callable[[], Any]) -> None:
        try:
            if not self._slots.acquire(timeout=self.wait):
                raise busy()
            try:
                job.result = compute()
            finally:
                self._slots.release()
        except BaseException as error:
            job.error = error
            with self._guard:  # a failed search is not kept: the next request tries again
                if self._jobs.get(key) is job:
                    del self._jobs[key]
        finally:
            job.done.set()
