"""Event-stream message sizes for every kind of change, in-process: steps, skips, undos.

Run ``.venv/bin/python -m bench.messages``.  ``bench.sse`` measures a real server, but
only the steps of games played to the end; this plays 7-seat games on the table's
state machine and the table (real SQLite, step pacing, no Flask) and sizes the patch
message of every change, by what made it: a step ("next"), a skip at step 0, 1 or 3 of
every round, undos at the start, in the middle and after a round, and a replay of the
finished game ("watch again", stepped through and skipped).  Once with the
sample names and once with seven names of the longest length a seat may have
(``seats.NAME_MAX``), with every seat playing its lowest card (ties: everyone pays at
once) or random cards.  Prints the largest message of each kind and how many are over
2 KB; asserts nothing about them.

Beside each stream message it sizes what the lights process is sent for the same
change (``Hub``'s own messages, captured where they would go on the socket):
the stream's patch, or during a replay a patch of the replay's board, each with the
change's ``happened``.  The whole view a lights process gets when it (re)connects is
sized on its own, every change (as if it connected then).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from kalimambo.engine.rules import ROUNDS
from kalimambo.engine.setup import SAMPLE_NAMES
from kalimambo.web.core.seats import NAME_MAX
from kalimambo.web.live.hub import Hub
from kalimambo.web.live.stream import patch_event
from kalimambo.web.storage.store import Store
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.publisher import Change
from kalimambo.web.table.table import Table
from kalimambo.web.table.tasks import InlineRunner

LIMIT = 2048
LONG_NAMES = tuple(name.ljust(NAME_MAX, name[-1]) for name in SAMPLE_NAMES)
SKIP_AT = (0, 1, 3)


class LightsWire:
    """Where the hub's lights messages go: kept, to be sized, not sent."""

    def __init__(self) -> None:
        self.sent: list[int] = []

    def send(self, message: dict[str, object] | bytes) -> bool:
        self.sent.append(len(message) if isinstance(message, bytes) else 0)
        return True


def _table(folder: Path) -> tuple[Table, Hub, LightsWire]:
    store = Store(folder / "kalimambo.sqlite3")
    hub = Hub(store, 32, HostAuth(store, "1234", "key"), pin="1234",
              lights_socket=None, led_count=32, runner=InlineRunner(),
              default_pacing="step", default_pause_ms=500, clock=lambda: 0.0)
    wire = LightsWire()
    hub.lights.send = wire.send  # type: ignore[method-assign]  # sized here, not sent
    return hub.table, hub, wire


WIRES: dict[int, tuple[Hub, LightsWire]] = {}
"""The hub and lights wire of each table being measured (by the table's id)."""


def _sized(table: Table, sizes: dict[str, list[int]], kind: str,
           action: Callable[[], object]) -> None:
    """Run ``action``; add the size of every stream message it makes to
    ``sizes[kind]``, every lights message to ``sizes["lights: " + kind]``, and the
    whole view a lights process would get then to ``sizes["lights: (re)connect"]``."""
    changes: list[Change] = []
    hub, wire = WIRES[id(table)]
    table.listeners.append(changes.append)
    wire.sent.clear()
    try:
        action()
    finally:
        table.listeners.remove(changes.append)
    sizes[kind] += [len(patch_event(change)) for change in changes]
    sizes["lights: " + kind] += wire.sent
    sizes["lights, whole view on (re)connect"] += [len(m) for m in hub._welcome()]


def _pick_all(table: Table, tokens: list[str], round_no: int, rng: random.Random,
              lowest: bool) -> None:
    for token in tokens:
        hand = table.me(token)["me"]["hand"]
        table.pick(token, round_no, hand[0] if lowest else rng.choice(hand))


def one_game(names: Sequence[str], seed: int, lowest: bool, skip_at: int | None,
             sizes: dict[str, list[int]]) -> None:
    """A whole game: each round played step by step (``skip_at`` None) or skipped after
    ``skip_at`` steps; with ``skip_at`` None some rounds are also undone and played
    again (at the start, mid-playback or after)."""
    with tempfile.TemporaryDirectory(prefix="kalimambo-messages-") as folder:
        table, hub, wire = _table(Path(folder))
        WIRES[id(table)] = (hub, wire)
        tokens = [table.join(name)[1] for name in names]
        table.start(None, seed=seed)
        rng = random.Random(seed)
        round_no = undos = 0
        while round_no < ROUNDS:
            round_no += 1
            _pick_all(table, tokens, round_no, rng, lowest)
            if skip_at is not None:
                for _ in range(skip_at):
                    _sized(table, sizes, "step", table.next_step)
                if table.playing:
                    _sized(table, sizes, "skip", table.skip)
                continue
            shown = rng.randrange(4)
            for _ in range(shown):
                if table.playing:
                    _sized(table, sizes, "step", table.next_step)
            if undos < 3 and rng.random() < 0.2:
                _sized(table, sizes, "undo during a playback" if shown else "undo at once",
                       table.undo)
                undos, round_no = undos + 1, round_no - 1
                continue
            while table.playing:
                _sized(table, sizes, "step", table.next_step)
            if undos < 3 and round_no < ROUNDS and rng.random() < 0.2:
                _sized(table, sizes, "undo after a round", table.undo)
                undos, round_no = undos + 1, round_no - 1
        if skip_at is None:
            replay_game(table, rng, sizes)
        WIRES.pop(id(table))
        hub.close()


def replay_game(table: Table, rng: random.Random, sizes: dict[str, list[int]]) -> None:
    """"Watch again" on the finished game: each round stepped through or skipped (after
    0 to 3 steps), at random."""
    game_id = table.game_id
    _sized(table, sizes, "replay: start", lambda: table.replay(game_id))
    for round_no in range(1, ROUNDS + 1):
        skip_after = rng.choice((None, 0, 1, 3))
        shown = 0
        while True:
            replay = table.current.view["replay"]
            assert replay is not None, "the replay runs until its last step"
            playback = replay["board"]["playback"]
            if playback["round"] == round_no and playback["step"] == playback["steps"]:
                break
            if skip_after is not None and shown >= skip_after:
                _sized(table, sizes, "replay: skip", table.skip)
            else:
                _sized(table, sizes, "replay: step", table.next_step)
                shown += 1


def measure(names: Sequence[str], games: int) -> dict[str, list[int]]:
    sizes: dict[str, list[int]] = defaultdict(list)
    for seed in range(games):
        for lowest in (True, False):
            for skip_at in (None, *SKIP_AT):
                one_game(names, seed, lowest, skip_at, sizes)
    return sizes


def report(title: str, sizes: dict[str, list[int]]) -> None:
    print(title)
    for kind, found in sorted(sizes.items()):
        over = sum(size > LIMIT for size in found)
        print(f"  {kind}: {len(found)} messages, median {statistics.median(found):.0f} B, "
              f"max {max(found)} B, over {LIMIT} B: {over}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.messages", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=5, help="seeds (each played 8 ways)")
    args = parser.parse_args(argv)
    report(f"7 seats, sample names {', '.join(SAMPLE_NAMES)}", measure(SAMPLE_NAMES, args.games))
    report(f"7 seats, names of {NAME_MAX} letters", measure(LONG_NAMES, args.games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
