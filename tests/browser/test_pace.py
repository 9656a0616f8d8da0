"""A real table's pace: in auto pacing every move step of a 7-seat round stays up on the
board page and on the simulated strip for the host's pause, however many steps the round
has, and the strip keeps up with the table's cursor.

The table runs as ``kalimambo serve --lights external``; the lights process is the real
``LightsAgent`` with the simulated strip, run in this process so that each picture it
draws and each step the table sends it carry this process's own clock.  The board page
(Chromium) notes with ``performance.now()`` when it starts showing each step.  Nothing is
polled: both sides record as they go, and the test reads the records afterwards.

The measured figures are printed (``pytest -s``); the check is the issue's bar, 20 % of
the pause, which is far above this machine's noise at a 2 s pause.
"""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from kalimambo.firmware.agent import LightsAgent
from kalimambo.firmware.hardware import parse_hardware
from kalimambo.firmware.lights import Lights
from kalimambo.firmware.scene import RGB, scale
from kalimambo.firmware.steps import TRAVEL_SHARE
from tests.browser.conftest import Server
from tests.helpers import wait_for

PAUSE_MS = 2000
ROUNDS = 2
TOLERANCE = 0.2
BOARD = {"width": 1280, "height": 720}

SHOWING_JS = """() => {
  window.showing = [];
  new MutationObserver(() => window.showing.push([document.body.dataset.playing,
                                                   performance.now() / 1000]))
    .observe(document.body, {attributes: true, attributeFilter: ['data-playing']});
}"""


class StripRecorder:
    """The real lights of a lights process, recording what it is sent and what it draws:
    each step of the table's (arrival time, round, step, events) and each picture
    (time, one colour per space)."""

    def __init__(self) -> None:
        self.lights = Lights(parse_hardware({"animation": {"fps": 60}}), "sim")
        self.sent: list[tuple[float, int, int, list[dict[str, Any]]]] = []
        self.pictures: list[tuple[float, list[RGB]]] = []
        self._lock = threading.Lock()
        update, draw = self.lights.update, self.lights.show.draw

        def recorded_update(view: Mapping[str, Any], whole: bool = False,
                            happened: Sequence[Mapping[str, Any]] = ()) -> None:
            playback = view.get("playback")
            for told in [] if whole else happened:
                if told["type"] == "step_shown" and isinstance(playback, Mapping):
                    first = told["first"]
                    events = playback["shown"][first:first + told["count"]]
                    with self._lock:
                        self.sent.append((time.monotonic(), int(told["round"]),
                                          int(told["step"]), [dict(e) for e in events]))
            update(view, whole, happened)

        def recorded_draw(now: float) -> Any:
            drawing = draw(now)
            with self._lock:
                self.pictures.append((now, list(drawing[0])))
            return drawing

        self.lights.update = recorded_update  # type: ignore[method-assign]
        self.lights.show.draw = recorded_draw  # type: ignore[method-assign]

    def colour(self, figure: str) -> RGB:
        return self.lights.show.target.colour(figure)

    def move_spans(self, track_length: int) -> list[tuple[int, int, float, float]]:
        """Each move step the strip drew: (round, step, how long it lasted, how late it
        began after the table sent it), read off the pictures.  A move on the strip: the
        figure travels d spaces in 60 % of the step, then blinks on its new space, dim
        from 70 % to 80 % and from 90 % to the end of the step."""
        spaces = self.lights.show.spaces
        assert spaces == track_length   # one strip space per space of the game
        spans = []
        for arrived, round_no, step, events in self.sent:
            move = events[0]
            if move.get("type") != "move":
                continue
            figure, start, to = str(move["figure"]), int(move["from_space"]), int(move["to_space"])
            colour = self.colour(figure)
            distance = (to - start) % spaces
            after = [(t, p) for t, p in self.pictures if t >= arrived]
            # the first picture with the figure on its way, j spaces on: the head gets
            # there once 60 % x (j - 1/2) / d of the step has gone (it is rounded)
            on_way = next(((t, j) for t, p in after for j in range(distance, 0, -1)
                           if p[(start + j) % spaces] == colour), None)
            runs = dim_runs([(t, p[to] == scale(colour, 0.3)) for t, p in after])
            assert on_way is not None and len(runs) >= 2, (
                f"round {round_no} step {step}: {figure} never moved and blinked")
            seen, share = on_way[0], TRAVEL_SHARE * (on_way[1] - 0.5) / distance
            seconds = (runs[1][1] - seen) / (1.0 - share)
            spans.append((round_no, step, seconds, seen - share * seconds - arrived))
        return spans


def dim_runs(samples: list[tuple[float, bool]]) -> list[tuple[float, float]]:
    """Where a sequence of (time, dim?) pictures is dim: (first dim, first not dim)."""
    runs: list[tuple[float, float]] = []
    start: float | None = None
    for when, dim in samples:
        if dim and start is None:
            start = when
        elif not dim and start is not None:
            runs.append((start, when))
            start = None
    return runs


@pytest.fixture
def strip(tmp_path: Path) -> Iterator[tuple[StripRecorder, str]]:
    recorder = StripRecorder()
    sock = str(tmp_path / "lights.sock")
    agent = LightsAgent(recorder.lights.hardware, "sim", sock, lights=recorder.lights).start()
    try:
        yield recorder, sock
    finally:
        agent.close()


def board_spans(showing: list[list[Any]], kinds: dict[tuple[int, int], str]
                ) -> list[tuple[int, int, float]]:
    """Each move step the board page showed, up to the step after it (the next of its
    round, or the next round's reveal after a round's last step): (round, step, seconds)."""
    last = {}
    for round_no, step in kinds:
        last[round_no] = max(step, last.get(round_no, 0))
    spans = []
    for (key, at), (next_key, next_at) in itertools.pairwise(showing):
        _, round_no, step = (int(part) for part in str(key).split("/"))
        _, next_round, next_step = (int(part) for part in str(next_key).split("/"))
        follows = (next_round, next_step) == (round_no, step + 1) or (
            step == last.get(round_no) and (next_round, next_step) == (round_no + 1, 1))
        if kinds.get((round_no, step)) == "move" and follows:
            spans.append((round_no, step, next_at - at))
    return spans


def figures(label: str, values: Sequence[float]) -> str:
    return (f"{label}: {len(values)} move steps, median {statistics.median(values):.3f} s, "
            f"shortest {min(values):.3f} s, longest {max(values):.3f} s")


@pytest.mark.slow
def test_each_move_step_stays_up_for_the_hosts_pause(
        start_server: Callable[..., Server], strip: tuple[StripRecorder, str],
        browser: Any, artifacts: Path) -> None:
    recorder, sock = strip
    server = start_server(extra=("--lights", "external", "--lights-socket", sock))
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "auto", "pause_ms": PAUSE_MS}, host)
    assert wait_for(lambda: server.state()["lights"].get("connected"), timeout=30)
    context = browser.new_context(viewport=BOARD, locale="en-US")
    try:
        board = context.new_page()
        board.goto(f"{server.url}/board")
        board.wait_for_selector("#ring", state="attached")
        board.evaluate(SHOWING_JS)
        server.call("POST", "/host/bots", {"count": 7, "level": "random"}, host)
        server.call("POST", "/host/start", {}, host)
        # the computer players pick at once: rounds follow each other without a pause
        assert wait_for(lambda: len(server.state()["history"]) >= ROUNDS, timeout=300)
        time.sleep(PAUSE_MS / 1000 + 0.5)   # the last step has its time on the strip too
        board.screenshot(path=str(artifacts / "pace-board.png"))
        showing = board.evaluate("() => window.showing")
    finally:
        context.close()
    track_length = int(server.state()["track_length"])
    recorder.sent = [sent for sent in recorder.sent if sent[1] <= ROUNDS]
    kinds = {(r, s): str(events[0]["type"]) for _, r, s, events in recorder.sent}
    pause = PAUSE_MS / 1000

    on_board = board_spans(showing, kinds)
    on_strip = recorder.move_spans(track_length)
    steps_per_round = [sum(1 for (r, _) in kinds if r == n) for n in range(1, ROUNDS + 1)]
    print(f"\npause {pause:.1f} s; steps per round {steps_per_round}")
    print(figures("board page", [s for _, _, s in on_board]))
    print(figures("strip", [s for _, _, s, _ in on_strip]))
    print(figures("strip behind the table's cursor", [late for *_, late in on_strip]))

    moves = sum(1 for kind in kinds.values() if kind == "move")
    assert moves >= 2 * ROUNDS and len(on_strip) == moves
    assert len(on_board) >= moves - 1   # all but the last round's last step, if a move
    for round_no, step, seconds in on_board:
        assert abs(seconds - pause) <= TOLERANCE * pause, ("board", round_no, step, seconds)
    print("strip, off by more than 5 %:", [s for s in on_strip if abs(s[2] - pause) > 0.1])
    for round_no, step, seconds, late in on_strip:
        assert abs(seconds - pause) <= TOLERANCE * pause, ("strip", round_no, step, seconds)
        assert -TOLERANCE * pause <= late <= TOLERANCE * pause, ("behind", round_no, step, late)
