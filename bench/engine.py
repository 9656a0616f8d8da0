"""Engine speed: random full games per second in-process, and ``replay --jsonl`` on 5000.

Run ``.venv/bin/python -m bench.engine``.  It prints measured figures and asserts
nothing (this machine is shared and noisy).  ``--games`` and ``--players`` change
the workload; ``--json`` prints the figures as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from kalimambo.engine.events import KALI
from kalimambo.engine.game import PlayedRound, record_dict
from kalimambo.engine.rules import CARD_VALUES, MAX_PLAYERS, MIN_PLAYERS, ROUNDS, Board
from kalimambo.engine.setup import SAMPLE_NAMES, random_setup

NAMES = SAMPLE_NAMES


def random_games_per_second(players: int, games: int, seed: int = 1) -> tuple[float, float]:
    """Random games on the bare board: (games/s with cards dealt beforehand,
    games/s counting the dealing with ``random.shuffle`` too)."""
    rng = random.Random(seed)
    names = NAMES[:players]
    starts = []
    for _ in range(64):
        setup = random_setup(names, 32, rng)
        spaces = setup.positions(32)
        starts.append((setup.rhino, [spaces[n] for n in (*names, KALI)], setup.dung))
    hands = [list(range(CARD_VALUES)) for _ in range(players + 1)]
    shuffle = rng.shuffle
    began = time.perf_counter()
    deals = []
    for _ in range(games):
        for hand in hands:
            shuffle(hand)
        deals.append([[hand[r] for hand in hands] for r in range(ROUNDS)])
    dealing = time.perf_counter() - began
    began = time.perf_counter()
    for game, rounds in enumerate(deals):
        rhino, positions, dung = starts[game & 63]
        play = Board(32, rhino, positions, dung).play_round
        for cards in rounds:
            play(cards)
    playing = time.perf_counter() - began
    return games / playing, games / (playing + dealing)


def random_records(count: int, seed: int = 2) -> list[dict[str, object]]:
    """``count`` random full records of 3 to 7 players."""
    rng = random.Random(seed)
    records = []
    for _ in range(count):
        names = list(NAMES[:rng.randint(MIN_PLAYERS, MAX_PLAYERS)])
        setup = random_setup(names, 32, rng)
        hands = {name: rng.sample(range(CARD_VALUES), CARD_VALUES) for name in names}
        kali = rng.sample(range(CARD_VALUES), CARD_VALUES)
        records.append(record_dict(names, 32, setup, [PlayedRound(
            tuple(hands[n][r] for n in names), kali[r]) for r in range(ROUNDS)]))
    return records


def time_replay_command(count: int, runs: int = 3, workers: int | None = None,
                        baseline: bool = False) -> list[float]:
    """Seconds for ``kalimambo replay --jsonl`` on ``count`` games, ``runs`` times
    (or, with ``baseline``, for the straightforward replay in ``bench.straightforward``)."""
    command = [str(Path(sys.executable).with_name("kalimambo")), "replay", "--jsonl"]
    if workers:
        command += ["--workers", str(workers)]
    if baseline:
        command = [sys.executable, "-m", "bench.straightforward"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "games.jsonl")
        path.write_text("".join(json.dumps(r) + "\n" for r in random_records(count)))
        times = []
        for _ in range(runs):
            began = time.perf_counter()
            done = subprocess.run([*command, str(path)], capture_output=True, check=True)
            times.append(time.perf_counter() - began)
            lines = done.stdout.count(b"\n")
            if lines != count:
                raise RuntimeError(f"replay wrote {lines} results for {count} games")
    return times


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__)
    parser.add_argument("--games", type=int, default=30000)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--replay-games", type=int, default=5000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    runs = [random_games_per_second(args.players, args.games, seed) for seed in (1, 2, 3)]
    in_process = [play for play, _ in runs]
    with_dealing = [total for _, total in runs]
    both = time_replay_command(args.replay_games)
    one = time_replay_command(args.replay_games, workers=1)
    plain = time_replay_command(args.replay_games, baseline=True)
    figures = {
        "cpu_cores": os.cpu_count(),
        "in_process_games_per_second": round(max(in_process)),
        "in_process_runs": [round(x) for x in in_process],
        "in_process_with_dealing_games_per_second": round(max(with_dealing)),
        "replay_jsonl_games": args.replay_games,
        "replay_jsonl_seconds_median": round(statistics.median(both), 3),
        "replay_jsonl_games_per_second": round(args.replay_games / statistics.median(both)),
        "replay_jsonl_one_core_games_per_second": round(
            args.replay_games / statistics.median(one)),
        "straightforward_games_per_second": round(args.replay_games / statistics.median(plain)),
        "speedup_over_straightforward": round(statistics.median(plain) / statistics.median(both),
                                              1),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"random {args.players}-player games in-process: "
              f"{figures['in_process_games_per_second']:,} games/s (best of 3: "
              f"{', '.join(f'{x:,}' for x in figures['in_process_runs'])}); "
              f"{figures['in_process_with_dealing_games_per_second']:,} games/s counting "
              "the dealing (random.shuffle of every hand)")
        print(f"kalimambo replay --jsonl, {args.replay_games} games: "
              f"{figures['replay_jsonl_seconds_median']} s median of 3 = "
              f"{figures['replay_jsonl_games_per_second']:,} games/s "
              f"({figures['replay_jsonl_one_core_games_per_second']:,} games/s on one core)")
        print(f"straightforward replay (stdlib json, distances measured afresh): "
              f"{figures['straightforward_games_per_second']:,} games/s; "
              f"kalimambo replay --jsonl is {figures['speedup_over_straightforward']}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
