"""Computer players: decision times and strength against the issue's targets.

Run ``.venv/bin/python -m bench.players``.  It prints measured figures and
asserts nothing (this machine is shared and noisy):

- decision time per level and table size (p50, p99, max in ms, measured with
  ``time.perf_counter`` inside the player) over states from every round;
- ``medium`` against four ``random`` and ``hard`` against four ``medium``:
  win share and its Wilson 95% interval, through the tournament code
  (rotating seats on shared deals, on every core).

Targets (issue 6): medium lower bound > 0.30, hard lower bound > 0.20, every
decision's p99 under 150 ms for up to 7 players.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Sequence
from typing import Any

from kalimambo.engine.game import Game
from kalimambo.engine.players import decide
from kalimambo.engine.setup import SAMPLE_NAMES, random_setup
from kalimambo.tournament import Plan, run, summarise, timing

NAMES = SAMPLE_NAMES


def states(players: int, count: int, seed: int) -> list[tuple[Game, str]]:
    """``count`` game states spread evenly over rounds 1-11, reached by random play."""
    rng = random.Random(seed)
    names = NAMES[:players]
    found: list[tuple[Game, str]] = []
    for i in range(count):
        game = Game(names, random_setup(names, 32, rng), seed=rng.randrange(2**32))
        for _ in range(i % 11):
            game.play_round({name: rng.choice(game.hand(name)) for name in names})
        found.append((game, rng.choice(names)))
    return found


def decision_times(level: str, players: int, count: int, seed: int = 1) -> dict[str, Any]:
    """Decision time figures for ``level`` at a table of ``players``."""
    times = []
    cut = 0
    for i, (game, name) in enumerate(states(players, count, seed)):
        decision = decide(level, game, name, i)
        times.append(decision.ms)
        cut += decision.cut_short
    figures = timing(times)
    figures["cut_short"] = cut
    return figures


def strength(seat: str, opponents: str, games: int, workers: int, seed: str
             ) -> dict[str, Any]:
    plan = Plan(5, seat, opponents, seed, 32, None)
    began = time.perf_counter()
    results = run(plan, games, workers, progress=False)
    return summarise(plan, results, time.perf_counter() - began)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.players", description=__doc__)
    parser.add_argument("--decisions", type=int, default=110,
                        help="decisions timed per level and table size")
    parser.add_argument("--games-medium", type=int, default=500)
    parser.add_argument("--games-hard", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", default="bench")
    parser.add_argument("--skip-strength", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures: dict[str, Any] = {"cpu_cores": os.cpu_count(), "decision_ms": {}}
    for level in ("easy", "medium", "hard"):
        for players in (3, 5, 7):
            row = decision_times(level, players, args.decisions)
            figures["decision_ms"][f"{level}/{players}"] = row
            if not args.json:
                print(f"{level:>6}, {players} players: p50 {row['p50']:6.2f} ms   "
                      f"p99 {row['p99']:6.2f} ms   max {row['max']:6.2f} ms   "
                      f"({row['count']} decisions, {row['cut_short']} cut short)", flush=True)
    if not args.skip_strength:
        for seat, opponents, games in (("medium", "random", args.games_medium),
                                       ("hard", "medium", args.games_hard)):
            result = strength(seat, opponents, games, args.workers, args.seed)
            figures[f"{seat}_vs_{opponents}"] = result
            if not args.json:
                low, high = result["ci95"]
                print(f"{seat} vs 4 x {opponents}: win share {result['win_share']:.3f} "
                      f"(95% {low:.3f} to {high:.3f}) over {result['games']} games; "
                      f"minus {result['mean_minus_points']:.2f} vs "
                      f"{result['opponents_mean_minus_points']:.2f}; {seat} decisions "
                      f"p50 {result['decision_ms']['p50']} ms p99 "
                      f"{result['decision_ms']['p99']} ms; {result['seconds']} s", flush=True)
    if args.json:
        print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
