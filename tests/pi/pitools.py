"""Small tools shared by the emulated-Pi harness: commands, waiting, timing, HTTP.

Standard library only: the harness runs from the host's python3 before any venv exists.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class CheckFailed(Exception):
    """A check did not hold: the message says which and what was seen."""


class Timer:
    """Wall-clock time per phase, printed as it goes and all together at the end."""

    def __init__(self) -> None:
        self.phases: list[tuple[str, float]] = []

    @contextlib.contextmanager
    def phase(self, name: str) -> Iterator[None]:
        print(f"\n=== {name}", flush=True)
        start = time.monotonic()
        try:
            yield
        finally:
            took = time.monotonic() - start
            self.phases.append((name, took))
            print(f"--- {name}: {took:.0f} s", flush=True)

    def report(self, title: str) -> None:
        print(f"\nTimings for {title}:")
        for name, took in self.phases:
            print(f"  {took:7.1f} s  {name}")
        print(f"  {sum(t for _, t in self.phases):7.1f} s  in all", flush=True)


def sh(*cmd: str | Path, log: Path | None = None, check: bool = True,
       **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """Run a command; on failure show its last lines (or where its log is)."""
    words = [str(c) for c in cmd]
    if log is None:
        done = subprocess.run(words, text=True, capture_output=True, **kwargs)
        output = done.stdout + done.stderr
    else:
        with log.open("a") as handle:
            handle.write(f"\n$ {shlex.join(words)}\n")
            handle.flush()
            done = subprocess.run(words, text=True, stdout=handle, stderr=subprocess.STDOUT,
                                  **kwargs)
        output = log.read_text(errors="replace")
    if check and done.returncode != 0:
        tail = "\n".join(output.splitlines()[-40:])
        raise CheckFailed(f"'{shlex.join(words)}' failed with status {done.returncode}:\n"
                          f"{tail}" + (f"\n(whole log: {log})" if log else ""))
    return done


def wait_for(what: str, condition: Callable[[], T], ceiling: float,
             every: float = 0.5) -> T:
    """Poll ``condition`` until it gives something true; a generous ceiling, no fixed sleep."""
    deadline = time.monotonic() + ceiling
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise CheckFailed(f"gave up after {ceiling:.0f} s waiting for {what}")
        time.sleep(every)


def http(method: str, url: str, body: Any = None, token: str | None = None,
         timeout: float = 60.0) -> tuple[int, Any]:
    """One JSON request; (status, parsed body), also for 4xx and 5xx answers."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            raw = response.read()
            kind = response.headers.get("Content-Type", "")
            return response.status, json.loads(raw or b"null") if "json" in kind else raw
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def state_answers(base: str, timeout: float = 10) -> dict[str, Any] | None:
    """The public view, or None while the table does not answer."""
    try:
        status, view = http("GET", f"{base}/api/v1/state", timeout=timeout)
    except (OSError, ValueError):
        return None
    return view if status == 200 else None
