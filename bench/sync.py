"""Keeping step: how far the board page and the LED strip trail the table when the host
steps through a round by hand (step pacing), at several paces of "Next".

Run ``.venv/bin/python -m bench.sync`` (``--rounds N`` per interval, default 2;
``--intervals 0.2,0.5,1,3`` the seconds between two presses of Next).  It starts a real
``kalimambo serve --lights external`` with seven computer players (level ``random``) in
step pacing (pause 3 s), runs the real lights process (``LightsAgent`` with the simulated
strip) in this process, opens the board page in Debian's Chromium at 1280x720, and for
each interval plays whole rounds by pressing ``POST /api/v1/host/next`` on a fixed beat.
It prints, per interval, the median and worst lag of the board page and of the strip,
and how late the strip showed each round's last step.  It asserts nothing.

What is compared: the *moment* each part shows, as a key ``"<game_id>/<round>/<step>"``
(``"<game_id>/-"`` with no playback; a replay's board during a replay).  The table's is
read off ``GET /api/v1/state``; the board page's is ``document.body.dataset.moment``
(set the instant the page starts showing a step), recorded by a MutationObserver with
``performance.now()``; the strip's is ``Show.moment``, recorded with
``time.monotonic()`` at each picture the lights thread draws.  A part is "there" for a
Next once its moment is on that step or a later one (same game, same round and a step
at least as far, or a later round).  The lag of a Next is the first time each part was
there, minus the time this process had the table's answer to that Next (so a part told
before the answer arrived here has a lag a little below zero).

Clocks: the strip's pictures are stamped with this process's ``time.monotonic()``.  The
board page's stamps are its own ``performance.now()``; each is moved onto this
process's clock by an offset measured once per page load: ``page.evaluate`` of
``performance.now()`` bracketed by two ``time.monotonic()`` reads, the narrowest of
several tries, taking the middle of the bracket (off by at most half of it, about a
millisecond).  Both clocks tick at the same rate (on Linux both are CLOCK_MONOTONIC), so
one offset holds for the page's life; a reload starts a new ``performance.now()`` and is
measured again.  The observer runs once the page's script that set the attribute has
finished its task, which is when the browser could first paint it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from kalimambo.firmware.agent import LightsAgent
from kalimambo.firmware.hardware import parse_hardware
from kalimambo.firmware.lights import Lights
from tests.helpers import ROOT, free_port, wait_for

BOARD_VIEWPORT = {"width": 1280, "height": 720}
SEATS = 7
LEVEL = "random"
STEP_PAUSE_MS = 3000
"""The pause in step pacing: each step's animation is this long (times its weight)."""
BOARD_BOUND_S = 0.3
STRIP_BOUND_S = 0.5
SETTLE_S = 2.0
"""How long to let both parts reach a round's start before its first Next (not measured)."""
CATCH_UP_S = 5.0
"""How long to wait after a round's last Next for both parts to get there (a part that
takes longer has missed its bound by far; its lag is then infinite)."""
INTERVALS = (0.2, 0.5, 1.0, 3.0)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
"""Debian's Chromium, started as tests/conftest.py's ``browser`` fixture starts it."""
HOST_PIN = "1234"

MOMENT_JS = """(() => {
  // every value the board page's body takes as data-moment, with the page's clock
  if (window.top !== window || window.moments) return;
  window.moments = [];
  const note = () => window.moments.push([document.body.dataset.moment ?? '',
                                          performance.now() / 1000]);
  new MutationObserver((records) => {
    if (records.some((r) => r.target === document.body)) note();
  }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-moment']});
  document.addEventListener('DOMContentLoaded', () => {
    if (document.body.dataset.moment !== undefined) note();
  });
})();"""
"""An init script (every page load, from the document's start): a MutationObserver
noting ``[moment, performance.now() / 1000]`` each time the body's ``data-moment`` is
set, in ``window.moments``."""

Moments = list[tuple[float, str]]
"""(when, moment): each time a part's moment changed, on this process's clock."""


# -- keys ------------------------------------------------------------------------------
def view_key(view: Mapping[str, Any]) -> str:
    """The moment a view is at: ``game/round/step`` while it has a playback, else
    ``game/-``; during a replay, the replay's board's."""
    shown: Mapping[str, Any] = view
    replay = view.get("replay")
    if isinstance(replay, Mapping) and isinstance(replay.get("board"), Mapping):
        shown = replay["board"]
    playback = shown.get("playback")
    if isinstance(playback, Mapping):
        return f"{shown.get('game_id')}/{playback.get('round')}/{playback.get('step')}"
    return f"{shown.get('game_id')}/-"


def parse_key(key: str) -> tuple[str, int, int] | None:
    """``(game, round, step)`` of a playback's key; None for ``game/-`` or anything else."""
    parts = key.rsplit("/", 2)
    if len(parts) != 3:
        return None
    try:
        return parts[0], int(parts[1]), int(parts[2])
    except ValueError:
        return None


def reached(key: str, target: str) -> bool:
    """Whether ``key`` is on ``target``'s step or a later one: the same game, and the same
    round with a step at least as far, or a later round."""
    if key == target:
        return True
    at, goal = parse_key(key), parse_key(target)
    if at is None or goal is None or at[0] != goal[0]:
        return False
    return (at[1], at[2]) >= (goal[1], goal[2])


def first_reaching(moments: Moments, target: str, since: float = float("-inf")
                   ) -> float | None:
    """When a part first showed ``target`` or a later step (at or after ``since``): the
    change that brought it there, or ``since`` if it was there already."""
    before = [(at, key) for at, key in moments if at < since]
    if before and reached(before[-1][1], target):
        return since
    return next((at for at, key in moments if at >= since and reached(key, target)), None)


def run_start(moments: Moments, key: str) -> float | None:
    """When a part that shows ``key`` now began showing it (None: it shows another)."""
    if not moments or moments[-1][1] != key:
        return None
    start = moments[-1][0]
    for at, shown in reversed(moments):
        if shown != key:
            break
        start = at
    return start


# -- the strip -------------------------------------------------------------------------
class StripWatch:
    """The real lights process, run here: a ``LightsAgent`` with the simulated strip on
    the table's socket, its ``Show.moment`` noted (with ``time.monotonic()``) at each
    picture the lights thread draws; only the changes are kept.  ``restart`` closes it
    and starts a new one, with new ``Lights``, on the same socket, as a lights process
    that died and came back."""

    def __init__(self, socket_path: str) -> None:
        self.path = socket_path
        self.moments: Moments = []
        self._lock = threading.Lock()
        self.lights: Lights | None = None
        self.agent: LightsAgent | None = None

    def start(self) -> StripWatch:
        lights = Lights(parse_hardware({"animation": {"fps": 60}}), "sim")
        self._record(lights)
        self.lights = lights
        self.agent = LightsAgent(lights.hardware, "sim", self.path, lights=lights).start()
        return self

    def _record(self, lights: Lights) -> None:
        show = lights.show
        if not hasattr(show, "moment"):
            raise RuntimeError("kalimambo.firmware.show.Show has no moment: nothing to "
                               "measure the strip by")
        draw = show.draw

        def recorded_draw(now: float) -> Any:
            drawing = draw(now)
            moment = str(show.moment)
            with self._lock:
                if not self.moments or self.moments[-1][1] != moment:
                    self.moments.append((time.monotonic(), moment))
            return drawing

        show.draw = recorded_draw  # type: ignore[method-assign]

    def close(self) -> None:
        """Stop the lights process (its strip goes dark: noted as moment ``""``)."""
        if self.agent is not None:
            self.agent.close()
            self.agent, self.lights = None, None
        with self._lock:
            self.moments.append((time.monotonic(), ""))

    def restart(self) -> None:
        self.close()
        self.start()

    def snapshot(self) -> Moments:
        with self._lock:
            return list(self.moments)

    @property
    def moment(self) -> str:
        with self._lock:
            return self.moments[-1][1] if self.moments else ""


# -- the board page --------------------------------------------------------------------
class BoardWatch:
    """The board page in Chromium, its ``data-moment`` changes moved onto this process's
    clock (see the module's docstring); ``read`` fetches those noted since the last."""

    def __init__(self, page: Any, url: str) -> None:
        self.page = page
        self.url = url
        self.moments: Moments = []
        self.offset = 0.0
        """This process's ``time.monotonic()`` minus the page's ``performance.now()``."""
        self.uncertainty = 0.0
        self._seen = 0
        page.context.add_init_script(script=MOMENT_JS)

    def open(self) -> float:
        """Load the board page; when it had loaded (``#ring`` there), on this clock."""
        self.page.goto(f"{self.url}/board")
        return self._loaded()

    def reload(self) -> float:
        """Reload the page (its moment is ``""`` until the new page sets one); when it
        had loaded again."""
        self.read()
        self.moments.append((time.monotonic(), ""))
        self.page.reload()
        return self._loaded()

    def _loaded(self) -> float:
        self.page.wait_for_selector("#ring", state="attached")
        loaded = time.monotonic()
        self._seen = 0
        self.offset, self.uncertainty = page_offset(self.page)
        return loaded

    def read(self) -> Moments:
        """Fetch the moments noted since the last read; all of them so far."""
        noted = self.page.evaluate("(n) => window.moments.slice(n)", self._seen)
        self._seen += len(noted)
        for moment, at in noted:
            key = "" if moment is None else str(moment)
            if not self.moments or self.moments[-1][1] != key:
                self.moments.append((float(at) + self.offset, key))
        return self.moments

    @property
    def moment(self) -> str:
        """The moment the page showed at the last read."""
        return self.moments[-1][1] if self.moments else ""

    def current(self) -> str:
        """The moment the page shows now (read afresh)."""
        self.read()
        return self.moment


def page_offset(page: Any, tries: int = 7) -> tuple[float, float]:
    """``time.monotonic()`` minus the page's ``performance.now()`` (seconds), from the
    narrowest of ``tries`` brackets; and half that bracket, the most it is off by."""
    best: tuple[float, float] | None = None
    for _ in range(tries):
        before = time.monotonic()
        page_now = float(page.evaluate("performance.now() / 1000"))
        after = time.monotonic()
        if best is None or after - before < 2 * best[1]:
            best = ((before + after) / 2 - page_now, (after - before) / 2)
    assert best is not None
    return best


# -- the table -------------------------------------------------------------------------
class Table(Protocol):
    """A running table as the tests' ``ServerProcess`` (tests/conftest.py) and
    ``BenchTable`` give it."""

    @property
    def url(self) -> str: ...

    def call(self, method: str, path: str, body: Any = None, token: str | None = None
             ) -> Any: ...

    def state(self) -> dict[str, Any]: ...

    def host_token(self) -> str: ...


class BenchTable:
    """``kalimambo serve`` in its own session, started and stopped as tests/conftest.py's
    ``ServerProcess`` does (that module is the tests', with pytest's fixtures): polled
    until ``/api/v1/state`` answers, stopped with SIGINT to the whole group."""

    def __init__(self, data_dir: Path, extra: Sequence[str] = ()) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.extra = tuple(extra)
        self.log = data_dir.parent / f"server-{self.port}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 60.0) -> BenchTable:
        command = [sys.executable, "-m", "kalimambo", "serve", "--host", "127.0.0.1",
                   "--port", str(self.port), "--data-dir", str(self.data_dir),
                   "--host-pin", HOST_PIN, "--strip", "sim", *self.extra]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=log,
                                         env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                         start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the table exited with {self.proc.returncode}: "
                                   + self.log.read_text(errors="replace")[-2000:])
            with contextlib.suppress(OSError):
                if self._request("GET", "/state")[0] == 200:
                    return self
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the table did not answer within {timeout} s")

    def stop(self) -> None:
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        self.proc = None

    def _request(self, method: str, path: str, body: Any = None, token: str | None = None
                 ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}/api/v1{path}", data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def call(self, method: str, path: str, body: Any = None, token: str | None = None
             ) -> Any:
        """``/api/v1<path>``: the parsed answer; a refusal stops the bench."""
        status, answer = self._request(method, path, body, token)
        if status >= 400:
            raise RuntimeError(f"{method} {path}: {status} {answer}")
        return answer

    def state(self) -> dict[str, Any]:
        view: dict[str, Any] = self.call("GET", "/state")
        return view

    def host_token(self) -> str:
        return str(self.call("POST", "/host", {"pin": HOST_PIN})["token"])


def set_up_table(server: Table, host: str, pacing: str = "step",
                 pause_ms: int = STEP_PAUSE_MS) -> None:
    """Seven computer players and the pacing; the game started."""
    server.call("POST", "/host/settings", {"pacing": pacing, "pause_ms": pause_ms}, host)
    server.call("POST", "/host/bots", {"count": SEATS, "level": LEVEL}, host)
    server.call("POST", "/host/start", {}, host)


def wait_playing(server: Table, host: str, timeout: float = 30.0) -> dict[str, Any]:
    """The view once a round is being played back (the computer players pick by
    themselves; a finished game is followed by a new one with the same seats)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = server.state()
        if view["phase"] == "playing" and view["playback"] is not None:
            return view
        if view["phase"] == "finished":
            server.call("POST", "/host/new", {"keep_seats": True}, host)
            server.call("POST", "/host/start", {}, host)
        time.sleep(0.005)
    raise AssertionError(f"no round is being played back after {timeout} s: {server.state()}")


def short_round(server: Table, host: str, max_steps: int) -> dict[str, Any]:
    """A round at its first step with at most ``max_steps`` steps (0: any), so a test can
    bound its time: a longer one is skipped, and the next one taken (the computer players
    pick the same cards again after an undo: their choices are seeded by game and
    round)."""
    view = wait_playing(server, host)
    for _ in range(100):
        if not max_steps or view["playback"]["steps"] <= max_steps:
            return view
        server.call("POST", "/host/skip", {}, host)
        view = wait_playing(server, host)
    raise AssertionError(f"no round of at most {max_steps} steps in 100 rounds")


@dataclass
class RoundLags:
    """One round stepped through at one interval: per Next, the target key and the lags."""

    interval: float
    round_no: int
    steps: int
    targets: list[str] = field(default_factory=list)
    board: list[float] = field(default_factory=list)
    strip: list[float] = field(default_factory=list)
    strip_end: float = float("inf")
    """How long after the last Next the strip first showed the round's end: its last step,
    or the next round's step 0 (the board as the last step leaves it)."""


def step_through_round(server: Table, host: str, board: BoardWatch,
                       strip: StripWatch, interval: float, max_steps: int = 0) -> RoundLags:
    """Press Next every ``interval`` seconds until the round's playback has ended; then
    read when each part got to each Next's step."""
    view = short_round(server, host, max_steps)
    game, start_key = view["game_id"], view_key(view)
    # let both parts reach the round's start (not measured: the round before's end, a
    # skip and the computer players' picks came just now)
    wait_for(lambda: reached(board.current(), start_key) and reached(strip.moment, start_key),
             timeout=SETTLE_S)
    lags = RoundLags(interval, int(view["playback"]["round"]), int(view["playback"]["steps"]))
    answers: list[float] = []
    began = time.monotonic()
    while True:
        due = began + len(answers) * interval
        time.sleep(max(0.0, due - time.monotonic()))
        answer = server.call("POST", "/host/next", {}, host)
        answers.append(time.monotonic())
        lags.targets.append(f"{game}/{answer['round']}/{answer['step']}")
        if answer["step"] >= answer["steps"]:
            break
    last = lags.targets[-1]
    wait_for(lambda: reached(board.current(), last) and reached(strip.moment, last),
             timeout=CATCH_UP_S)
    on_board, on_strip = board.read(), strip.snapshot()
    for target, answered in zip(lags.targets, answers, strict=True):
        seen = first_reaching(on_board, target, began)
        lags.board.append(float("inf") if seen is None else seen - answered)
        seen = first_reaching(on_strip, target, began)
        lags.strip.append(float("inf") if seen is None else seen - answered)
    # the round's end: its last step, or the next round's step 0 (the same board: the
    # computer players may resolve it before the strip draws a frame of the last step)
    ended = first_reaching(on_strip, last, began)
    lags.strip_end = float("inf") if ended is None else ended - answers[-1]
    return lags


# -- figures ---------------------------------------------------------------------------
def seconds(value: float) -> str:
    return "never" if value == float("inf") else f"{value:.3f} s"


def lag_table(rounds: Sequence[RoundLags]) -> str:
    """Per interval: Nexts, median and worst lag of the board page and of the strip, and
    the worst wait for the strip to show a round's last step."""
    lines = [f"{'interval':>9} {'rounds':>6} {'nexts':>5}  {'board median':>12} "
             f"{'board worst':>11}  {'strip median':>12} {'strip worst':>11}  "
             f"{'strip at end':>12}"]
    for interval in sorted({r.interval for r in rounds}):
        these = [r for r in rounds if r.interval == interval]
        board = [lag for r in these for lag in r.board]
        strip = [lag for r in these for lag in r.strip]
        lines.append(
            f"{interval:>7.1f} s {len(these):>6} {len(board):>5}  "
            f"{seconds(statistics.median(board)):>12} {seconds(max(board)):>11}  "
            f"{seconds(statistics.median(strip)):>12} {seconds(max(strip)):>11}  "
            f"{seconds(max(r.strip_end for r in these)):>12}")
    return "\n".join(lines)


# -- running it by itself ----------------------------------------------------------------
@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Debian's Chromium through Playwright (as the browser tests' fixture has it)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def measure(intervals: Sequence[float], rounds: int, max_steps: int,
            report: Callable[[RoundLags], None] = lambda lags: None) -> list[RoundLags]:
    """A table, its lights and its board page; ``rounds`` rounds at each interval."""
    with tempfile.TemporaryDirectory(prefix="kalimambo-sync-") as folder:
        sock = str(Path(folder) / "lights.sock")
        server = BenchTable(Path(folder) / "data",
                            extra=("--lights", "external", "--lights-socket", sock))
        strip = StripWatch(sock)
        try:
            server.start()
            strip.start()
            host = server.host_token()
            if not wait_for(lambda: bool(server.state()["lights"].get("connected"))):
                raise RuntimeError("the lights process did not connect")
            with chromium() as browser:
                context = browser.new_context(viewport=BOARD_VIEWPORT, locale="en-US")
                try:
                    board = BoardWatch(context.new_page(), server.url)
                    board.open()
                    set_up_table(server, host)
                    measured = []
                    for interval in intervals:
                        for _ in range(rounds):
                            measured.append(step_through_round(server, host, board, strip,
                                                               interval, max_steps))
                            report(measured[-1])
                    return measured
                finally:
                    context.close()
        finally:
            strip.close()
            server.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sync", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=2, help="rounds per interval")
    parser.add_argument("--intervals", default=",".join(f"{i:g}" for i in INTERVALS),
                        help="seconds between two Nexts, comma-separated")
    parser.add_argument("--max-steps", type=int, default=0,
                        help="skip rounds of more steps, unmeasured (0: measure any round)")
    args = parser.parse_args(argv)
    try:
        intervals = [float(part) for part in args.intervals.split(",") if part.strip()]
    except ValueError:
        parser.error(f"--intervals {args.intervals}: seconds, comma-separated")
    if not intervals or min(intervals) <= 0 or args.rounds < 1:
        parser.error("at least one interval above 0 s and one round")

    def report(lags: RoundLags) -> None:
        print(f"  {lags.interval:g} s: round {lags.round_no}, {lags.steps} steps: board worst "
              f"{seconds(max(lags.board))}, strip worst {seconds(max(lags.strip))}, "
              f"strip at the end {seconds(lags.strip_end)}", flush=True)

    print(f"7 computer players, step pacing (pause {STEP_PAUSE_MS} ms); lag = first time "
          "each part showed the Next's step (or later) after the table's answer", flush=True)
    measured = measure(intervals, args.rounds, args.max_steps, report)
    print(lag_table(measured))
    print(f"(the tests' bounds: board {BOARD_BOUND_S} s, strip {STRIP_BOUND_S} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
