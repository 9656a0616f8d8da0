"""How long a frozen web worker keeps the table silent.

Run ``.venv/bin/python -m bench.liveness``.  Starts a real ``kalimambo serve`` (gunicorn
+ gevent, the lights process as its child) on a free port, then freezes its worker
``--rounds`` times each way and measures from the freeze to the next good answer of
``/api/v1/state``:

- ``stop``: SIGSTOP, a worker that gets no CPU at all;
- ``lgpio``: the worker imports lgpio under gevent (issue 9's freeze; a test hook in
  tests/worker_hook does it on SIGPWR), a worker stuck in ``read()``.

gunicorn replaces the worker after ``--worker-timeout`` seconds without a heartbeat
(10 by default), and the new worker must load the app.  Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from tests.helpers import ROOT, child_pids, free_port, runs

HOOK = ROOT / "tests" / "worker_hook"


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=0.5) as response:
            return bool(response.status == 200)
    except OSError:
        return False


def worker_of(master: int) -> int | None:
    return next((pid for pid in child_pids(master) if runs(pid, "serve")), None)


def wait_until_answering(url: str, ceiling: float = 120.0) -> float:
    begun = time.monotonic()
    while not answers(url):
        if time.monotonic() - begun > ceiling:
            raise SystemExit(f"no answer from {url} in {ceiling:.0f} s")
        time.sleep(0.05)
    return time.monotonic() - begun


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.liveness", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3, help="freezes of each kind")
    parser.add_argument("--worker-timeout", type=int, default=10)
    args = parser.parse_args(argv)
    port = free_port()
    url = f"http://127.0.0.1:{port}/api/v1/state"
    with tempfile.TemporaryDirectory(prefix="kalimambo-bench-") as folder:
        env = {**os.environ, "PYTHONPATH": str(HOOK),
               "KALIMAMBO_WORKER_HOOK": str(Path(folder, "hook.txt"))}
        command = [sys.executable, "-m", "kalimambo", "serve", "--host", "127.0.0.1",
                   "--port", str(port), "--data-dir", str(Path(folder, "data")),
                   "--host-pin", "1234", "--strip", "sim",
                   "--worker-timeout", str(args.worker_timeout)]
        with open(Path(folder, "server.log"), "wb") as log:
            server = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log, env=env,
                                      start_new_session=True)
        try:
            print(f"server up after {wait_until_answering(url):.2f} s")
            results: dict[str, list[float]] = {"stop": [], "lgpio": []}
            frozen: set[int] = set()
            for kind, sig in (("stop", signal.SIGSTOP), ("lgpio", signal.SIGPWR)):
                for _ in range(args.rounds):
                    worker = worker_of(server.pid)
                    while worker is None or worker in frozen:  # the old one on its way out
                        time.sleep(0.05)
                        worker = worker_of(server.pid)
                    wait_until_answering(url)
                    frozen.add(worker)
                    os.kill(worker, sig)
                    while answers(url):  # the freeze takes hold (lgpio: at its import)
                        time.sleep(0.05)
                    took = wait_until_answering(url)
                    results[kind].append(took)
                    print(f"{kind:5}: frozen worker {worker} -> answering again after "
                          f"{took:.1f} s", flush=True)
            for kind, times in results.items():
                print(f"{kind:5}: median {statistics.median(times):.1f} s, "
                      f"max {max(times):.1f} s over {len(times)} freezes "
                      f"(worker timeout {args.worker_timeout} s)")
        except SystemExit:
            print(Path(folder, "server.log").read_text(errors="replace")[-3000:])
            raise
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
