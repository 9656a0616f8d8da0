"""What each change of the table costs for the strip, on both sides of the lights socket.

Run ``.venv/bin/python -m bench.lights_cost [--games N]``.  It plays 7-seat games step by
step on the table (real SQLite, no Flask, no socket) and times, per change, the table's
making of the lights' message (the hub's listener) and, per message, the lights
process's part: the patch applied to its copy of the view, the view read
(``firmware/stripview.read_strip``) and acted on (``firmware/show.Show.update``).  It
prints measured figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kalimambo.engine.rules import ROUNDS
from kalimambo.engine.setup import SAMPLE_NAMES
from kalimambo.firmware.show import Show
from kalimambo.firmware.wire import apply_patch
from kalimambo.web.live.hub import Hub
from kalimambo.web.storage.store import Store
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.publisher import Change
from kalimambo.web.table.tasks import InlineRunner


def one_game(seed: int) -> tuple[list[bytes], list[float]]:
    """The lights' messages of a whole game (the whole view first) and the table's time
    to make each change's, in seconds."""
    with tempfile.TemporaryDirectory(prefix="kalimambo-lights-cost-") as folder:
        store = Store(Path(folder) / "kalimambo.sqlite3")
        hub = Hub(store, 32, HostAuth(store, "1234", "key"), pin="1234",
                  lights_socket=None, led_count=32, runner=InlineRunner(),
                  default_pacing="step", default_pause_ms=500, clock=lambda: 0.0)
        sent: list[bytes] = []

        def send(message: dict[str, Any] | bytes) -> bool:
            assert isinstance(message, bytes)  # the hub sends ready-made lines
            sent.append(message)
            return True

        hub.lights.send = send  # type: ignore[method-assign]  # kept here, not sent
        spent: list[float] = []
        table, made = hub.table, hub._to_lights

        def timed(change: Change) -> None:
            begun = time.perf_counter()
            made(change)
            spent.append(time.perf_counter() - begun)

        table.listeners[table.listeners.index(made)] = timed
        welcome = hub._welcome()
        tokens = [table.join(name)[1] for name in SAMPLE_NAMES]
        table.start(None, seed=seed)
        rng = random.Random(seed)
        for round_no in range(1, ROUNDS + 1):
            for token in tokens:
                table.pick(token, round_no, rng.choice(table.me(token)["me"]["hand"]))
            while table.playing:
                table.next_step()
        return welcome + sent, spent


def lights_side(messages: Sequence[bytes]) -> list[float]:
    """The lights process's time for each message, as its agent handles one."""
    show, view, spent = Show(32), None, []
    for line in messages:
        message: dict[str, Any] = json.loads(line)
        begun = time.perf_counter()
        if message["type"] == "view":
            view = message["view"]
            show.update(view, 0.0, whole=True)
        elif view is not None:
            apply_patch(view, message["ops"])
            show.update(view, 0.0)
        spent.append(time.perf_counter() - begun)
    return spent


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.lights_cost",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args(argv)
    table: list[float] = []
    lights: list[float] = []
    for seed in range(args.games):
        messages, spent = one_game(seed)
        table += spent
        lights += lights_side(messages)
    for side, figures in (("table, a change's lights message", table),
                          ("lights process, a message read and acted on", lights)):
        print(f"{side}: {len(figures)} times, median {1e6 * statistics.median(figures):.0f}"
              f" us, mean {1e6 * statistics.mean(figures):.0f} us, max "
              f"{1e6 * max(figures):.0f} us")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
