"""One timeline, measured: the board page and the LED strip keep step with the table while
the host drives it by hand.

The table runs as ``kalimambo serve --lights external``; the lights process is the real
``LightsAgent`` with the simulated strip, run in this process (bench/sync.py's
``StripWatch``), so each picture it draws is stamped with this process's
``time.monotonic()`` together with ``Show.moment``, the step the strip is drawing.  The
board page (Chromium, 1280x720) notes each change of ``document.body.dataset.moment``
with ``performance.now()`` (a MutationObserver put in by an init script, so a reloaded
page notes from its start); those stamps are moved onto this process's clock by an
offset measured once per page load: ``performance.now()`` read with ``page.evaluate``
between two ``time.monotonic()`` reads, the narrowest bracket of several, its middle
(about a millisecond off at most; both clocks are CLOCK_MONOTONIC, so they do not drift
apart).  The table's moment is the key of ``GET /api/v1/state``.  A moment is the key
``"<game_id>/<round>/<step>"`` (``"<game_id>/-"`` without a playback).

- ``test_step_pacing_keeps_board_and_strip_on_the_hosts_step``: seven computer players,
  step pacing; one round at each Next interval (0.2, 0.5, 1 and 3 s), Next pressed on a
  fixed beat until the round's playback has ended.  The lag of a Next is the first time
  the part showed that step or a later one, minus the time this process had the table's
  answer.  Every board lag <= 0.3 s, every strip lag <= 0.5 s, and the strip shows each
  round's last step within 0.5 s of its Next.  Rounds of more than ``MAX_STEPS`` steps
  are skipped unmeasured (the next round is taken), so the test stays near a minute
  (the figures are printed with ``pytest -s``; ``python -m bench.sync`` measures any
  round).
- ``test_random_host_actions_keep_one_timeline``: a seeded random run of host actions
  (Next, skip, undo, step/auto pacing, a board reload, a lights process restart, a new
  game).  After each the test reads the two parts' moments, then the table's, until all
  three agree: each part must be on the table's key within its bound (0.3 s board,
  0.5 s strip) of the action's answer, or of the table's key changing last (auto pacing
  and the computer players move it by themselves; the change is dated by the answer of
  the last read that still had the old key, the earliest it can have come), or of the
  page having loaded again / the lights having connected again.  The seed is printed
  and is in every failure's message; ``KALIMAMBO_SYNC_SEED=<seed>`` replays the same
  choices (the table's own pace still varies from run to run).
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from bench.sync import (
    BOARD_BOUND_S,
    BOARD_VIEWPORT,
    INTERVALS,
    STEP_PAUSE_MS,
    STRIP_BOUND_S,
    BoardWatch,
    Moments,
    StripWatch,
    lag_table,
    run_start,
    set_up_table,
    step_through_round,
    view_key,
)
from tests.browser.conftest import Server
from tests.conftest import http
from tests.helpers import wait_for

MAX_STEPS = 13
"""Test (a) plays rounds of at most this many steps (a 7-seat round has 9 to 25): four
of them take about a minute, most of it the 3 s interval's."""
SEED_ENV = "KALIMAMBO_SYNC_SEED"
ACTIONS = 200
ROUNDS_NAMED_JS = """() => [document.getElementById('phase'),
                           document.querySelector('#ring .centre-round')]
  .filter((node) => node && !node.hidden && !node.closest('[hidden]'))
  .map((node) => /Round (\\d+)/.exec(node.textContent))
  .filter(Boolean).map((found) => Number(found[1]))"""
WEIGHTS = {"next": 40, "skip": 9, "undo": 9, "pacing": 12, "reload": 6, "lights": 5,
           "new_game": 4}
"""How often each host action is chosen (of those that can be done at the time)."""
NEXT_WAIT_S = (0.05, 1.5)
AUTO_PAUSE_MS = 1000
STILL_S = 30.0
"""Ceiling for the table's key to stand still long enough to be caught up with."""
POLL_S = 0.02
"""Between two reads of the parts and the table: reading the page runs on its main
thread, so reading without a pause would slow the page it measures (the moments are
stamped where they happen, so a pause makes no lag look shorter)."""
LIGHTS_S = 30.0
"""Ceiling for the table to see a lights process go or come (it connects at once)."""


@pytest.fixture
def strip(tmp_path: Path) -> Iterator[StripWatch]:
    """The real lights process on a socket the table will listen on (it keeps trying
    until the table is there)."""
    watch = StripWatch(str(tmp_path / "lights.sock")).start()
    try:
        yield watch
    finally:
        watch.close()


def start_table(start_server: Callable[..., Server], strip: StripWatch) -> Server:
    server = start_server(extra=("--lights", "external", "--lights-socket", strip.path))
    assert wait_for(lambda: bool(server.state()["lights"].get("connected")), timeout=LIGHTS_S)
    return server


# -- (a) step pacing at several paces ---------------------------------------------------
def late_by(lag: float) -> str:
    return "never got there" if lag == float("inf") else f"{lag:.3f} s after the Next"


@pytest.mark.slow
def test_step_pacing_keeps_board_and_strip_on_the_hosts_step(
        start_server: Callable[..., Server], strip: StripWatch, browser: Any,
        artifacts: Path) -> None:
    server = start_table(start_server, strip)
    host = server.host_token()
    context = browser.new_context(viewport=BOARD_VIEWPORT, locale="en-US")
    try:
        board = BoardWatch(context.new_page(), server.url)
        board.open()
        set_up_table(server, host, "step", STEP_PAUSE_MS)
        measured = [step_through_round(server, host, board, strip, interval, MAX_STEPS)
                    for interval in INTERVALS]
        board.page.screenshot(path=str(artifacts / "sync-step-board.png"))
    finally:
        context.close()
    print(f"\nstep pacing, pause {STEP_PAUSE_MS} ms, 7 computer players; lag after the "
          f"table's answer to each Next (board page offset +-{board.uncertainty * 1000:.1f} ms)")
    print(lag_table(measured))
    late = []
    for lags in measured:
        for target, on_board, on_strip in zip(lags.targets, lags.board, lags.strip,
                                              strict=True):
            if on_board > BOARD_BOUND_S:
                late.append(f"{lags.interval} s: board page at {target}: {late_by(on_board)}")
            if on_strip > STRIP_BOUND_S:
                late.append(f"{lags.interval} s: strip at {target}: {late_by(on_strip)}")
        if lags.strip_end > STRIP_BOUND_S:
            late.append(f"{lags.interval} s: the strip showed round {lags.round_no}'s last "
                        f"step ({lags.targets[-1]}): {late_by(lags.strip_end)}")
    assert not late, "\n".join(late)


# -- (b) random host actions ------------------------------------------------------------
@dataclass
class Run:
    """A table, its board page and its lights, driven by random host actions; each
    action's outcome is checked by ``agree``."""

    server: Server
    host: str
    board: BoardWatch
    strip: StripWatch
    seed: int
    rng: random.Random
    pacing: str = "step"
    doing: str = "start"
    """The action being checked."""
    done: list[str] = field(default_factory=list)
    """What was done so far, with the key all three agreed on after it."""
    lags: list[tuple[str, float, float]] = field(default_factory=list)
    """Each check's action and the board page's and the strip's lag."""

    # -- checking -------------------------------------------------------------------------
    def why(self, problem: str, since: float, key: str) -> str:
        """A failure's message: the seed, what was done, and what each part showed."""

        def recent(moments: Moments) -> str:
            return ", ".join(f"{moment or '(nothing)'} at {at - since:+.3f}"
                             for at, moment in moments[-6:])

        return (f"seed {self.seed} ({SEED_ENV}={self.seed} replays the choices), check "
                f"{len(self.done) + 1} ({self.doing}): {problem}; table at {key}; "
                f"board page (seconds after that): {recent(self.board.moments)}; strip: "
                f"{recent(self.strip.snapshot())}; the actions before: {self.done[-7:]}")

    def agree(self, action: str, since: float) -> None:
        """Read the parts, then the table, until all three show the same moment; each part
        must get there within its bound of ``since`` (the action's answer) or of the
        table's key changing last, whichever is later."""
        self.doing = action
        key, changed, answered = "", since, since
        while True:
            on_board, on_strip = self.board.read(), self.strip.snapshot()
            looked = time.monotonic()
            now_key = view_key(self.server.state())
            if key and now_key != key:  # it changed since the last read's answer
                changed = max(since, answered)
            key, answered = now_key, time.monotonic()
            board_at, strip_at = run_start(on_board, key), run_start(on_strip, key)
            if board_at is not None and strip_at is not None:
                break
            for part, at, bound in (("board page", board_at, BOARD_BOUND_S),
                                    ("strip", strip_at, STRIP_BOUND_S)):
                assert at is not None or looked - changed <= bound, self.why(
                    f"the {part} is not on the table's step {looked - changed:.3f} s after it "
                    f"(bound {bound} s)", changed, key)
            assert looked - since < STILL_S, self.why("the table never stood still", since, key)
            time.sleep(POLL_S)
        board_lag, strip_lag = max(0.0, board_at - changed), max(0.0, strip_at - changed)
        self.lags.append((action.split()[0], board_lag, strip_lag))
        assert board_lag <= BOARD_BOUND_S, self.why(
            f"the board page got to {key} {board_lag:.3f} s late", changed, key)
        assert strip_lag <= STRIP_BOUND_S, self.why(
            f"the strip got to {key} {strip_lag:.3f} s late", changed, key)
        # one moment on the page: its corner and its ring's middle name the same round
        named = self.board.page.evaluate(ROUNDS_NAMED_JS)
        assert len(set(named)) <= 1, self.why(f"the board page names rounds {named} at once",
                                              changed, key)
        self.done.append(f"{action} -> {key}")

    # -- the actions ----------------------------------------------------------------------
    def post(self, path: str, body: dict[str, Any], *allowed: str) -> float:
        """A host request; a refusal with one of the ``allowed`` codes is an answer too
        (the playback may have ended on its own meanwhile).  When it was answered."""
        status, answer = http("POST", f"{self.server.url}/api/v1{path}", body, self.host)
        answered = time.monotonic()
        code = answer.get("error", {}).get("code") if isinstance(answer, dict) else None
        assert status < 400 or (status == 409 and code in allowed), self.why(
            f"POST {path}: {status} {answer}", answered, "?")
        return answered

    def choices(self, view: dict[str, Any]) -> list[str]:
        """The actions that make sense now: Next and skip while a round plays, undo once a
        round has been played, the rest at any time."""
        can = ["pacing", "reload", "lights", "new_game"]
        if view["phase"] == "playing":
            can += ["next", "skip"]
        if view["history"] or view["playback"] is not None:
            can.append("undo")
        return can

    def step(self) -> None:
        """One random action, then the check that all three agree."""
        can = self.choices(self.server.state())
        action = self.rng.choices(can, weights=[WEIGHTS[a] for a in can])[0]
        self.doing = action
        if action == "next":
            wait = self.rng.uniform(*NEXT_WAIT_S)
            time.sleep(wait)
            since = self.post("/host/next", {}, "not_playing")
            action = f"next after {wait:.2f} s"
        elif action == "skip":
            since = self.post("/host/skip", {}, "not_playing")
        elif action == "undo":
            since = self.post("/host/undo", {}, "nothing_to_undo")
        elif action == "pacing":
            self.pacing = "auto" if self.pacing == "step" else "step"
            pause = AUTO_PAUSE_MS if self.pacing == "auto" else STEP_PAUSE_MS
            since = self.post("/host/settings", {"pacing": self.pacing, "pause_ms": pause})
            action = f"pacing {self.pacing}"
        elif action == "reload":
            since = self.board.reload()
        elif action == "lights":
            since = self.restart_lights()
        else:
            since = self.post("/host/new", {"keep_seats": True})
            self.agree("new game", since)
            since = self.post("/host/start", {})
            action = "start"
        self.agree(action, since)

    def restart_lights(self) -> float:
        """The lights process goes and a new one comes (new Lights, same socket); when the
        table had it connected again."""
        self.strip.close()
        assert wait_for(lambda: not self.server.state()["lights"].get("connected"),
                        timeout=LIGHTS_S), self.why("the table never saw the lights go",
                                                    time.monotonic(), "?")
        self.strip.start()
        assert wait_for(lambda: bool(self.server.state()["lights"].get("connected")),
                        timeout=LIGHTS_S), self.why("the lights never connected again",
                                                    time.monotonic(), "?")
        return time.monotonic()


def figures(label: str, lags: list[float]) -> str:
    return (f"{label} median {statistics.median(lags) * 1000:.0f} ms, worst "
            f"{max(lags) * 1000:.0f} ms")


@pytest.mark.slow
@pytest.mark.timeout(480)
def test_random_host_actions_keep_one_timeline(
        start_server: Callable[..., Server], strip: StripWatch, browser: Any,
        artifacts: Path) -> None:
    seed = int(os.environ.get(SEED_ENV) or random.SystemRandom().randrange(2**32))
    print(f"\n{SEED_ENV}={seed}", flush=True)
    server = start_table(start_server, strip)
    host = server.host_token()
    context = browser.new_context(viewport=BOARD_VIEWPORT, locale="en-US")
    began = time.monotonic()
    try:
        board = BoardWatch(context.new_page(), server.url)
        board.open()
        run = Run(server, host, board, strip, seed, random.Random(seed))
        set_up_table(server, host, "step", STEP_PAUSE_MS)
        run.agree("start", time.monotonic())
        for _ in range(ACTIONS):
            run.step()
        board.page.screenshot(path=str(artifacts / "sync-board.png"))
    finally:
        context.close()
    print(f"seed {seed}: {len(run.lags)} checks in {time.monotonic() - began:.0f} s "
          "(lag: from the answer, or the table's last change, to the part on its key)")
    for kind in ["all", *sorted({kind for kind, _, _ in run.lags})]:
        these = [lag for lag in run.lags if kind in ("all", lag[0])]
        print(f"  {kind:>7} x{len(these):<3} " + figures("board page", [b for _, b, _ in these])
              + "; " + figures("strip", [s for _, _, s in these]))
