"""``kalimambo tournament``: one computer player against a table of others.

The tested player (``--seat LEVEL``) is rotated through every seat on the same
deals: game ``i`` uses deal ``i // N`` (a set-up and Kali's deck) with the tested
player in seat ``i % N``, so no seat or deal favours it.  Ties for the win are
split.  Games are spread over the CPU cores; the figures do not depend on how.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kalimambo.args import Parser, fail, players_problem
from kalimambo.engine.game import Game, shuffled_deck
from kalimambo.engine.players import LEVELS, decide
from kalimambo.engine.rules import DEFAULT_TRACK_LENGTH, MAX_PLAYERS, MIN_PLAYERS
from kalimambo.engine.setup import SAMPLE_NAMES, random_setup
from kalimambo.jsonio import dumps_pretty

PROG = "kalimambo tournament"
Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything a worker needs to play any game of the tournament."""

    players: int
    seat_level: str
    opponent_level: str
    seed: str
    track: int
    budget_ms: float | None


@dataclass(frozen=True, slots=True)
class GameResult:
    index: int
    share: float
    minus: int
    opponents_minus: float
    decision_ms: tuple[float, ...]
    opponent_decision_ms: tuple[float, ...]


def deal(plan: Plan, number: int) -> Game:
    """Deal ``number``: the same set-up and Kali deck whoever sits where."""
    rng = random.Random(f"{plan.seed}|deal|{number}")
    names = SAMPLE_NAMES[:plan.players]
    setup = random_setup(names, plan.track, rng)
    return Game(names, setup, plan.track, kali_deck=shuffled_deck(rng.randrange(2**32)))


def play(plan: Plan, index: int) -> GameResult:
    """Game ``index``: deal ``index // N`` with the tested player in seat ``index % N``."""
    game = deal(plan, index // plan.players)
    tested = index % plan.players
    mine: list[float] = []
    theirs: list[float] = []
    while not game.finished:
        cards: dict[str, int] = {}
        for seat, name in enumerate(game.players):
            level = plan.seat_level if seat == tested else plan.opponent_level
            decision = decide(level, game, name, f"{plan.seed}|{index}|{seat}",
                              plan.budget_ms)
            cards[name] = decision.card
            (mine if seat == tested else theirs).append(decision.ms)
        game.play_round(cards)
    minus = game.board.minus
    winners = game.winners()
    name = game.players[tested]
    share = 1 / len(winners) if name in winners else 0.0
    others = [m for seat, m in enumerate(minus) if seat != tested]
    return GameResult(index, share, minus[tested], sum(others) / len(others),
                      tuple(mine), tuple(theirs))


def _play_job(job: tuple[Plan, int]) -> GameResult:
    return play(*job)


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (``successes`` may be fractional)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


def timing(values: Sequence[float]) -> dict[str, float | int]:
    return {"p50": round(percentile(values, 0.5), 2), "p99": round(percentile(values, 0.99), 2),
            "max": round(max(values, default=0.0), 2), "count": len(values)}


def summarise(plan: Plan, results: Sequence[GameResult], seconds: float) -> dict[str, Any]:
    """The tournament's figures as a JSON-ready dict."""
    results = sorted(results, key=lambda r: r.index)
    games = len(results)
    wins = sum(r.share for r in results)
    low, high = wilson(wins, games)
    return {
        "players": plan.players,
        "seat": plan.seat_level,
        "opponents": plan.opponent_level,
        "seed": plan.seed,
        "games": games,
        "deals": math.ceil(games / plan.players),
        "wins": round(wins, 3),
        "win_share": round(wins / games, 4),
        "fair_share": round(1 / plan.players, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "mean_minus_points": round(sum(r.minus for r in results) / games, 3),
        "opponents_mean_minus_points": round(sum(r.opponents_minus for r in results) / games,
                                             3),
        "decision_ms": timing([ms for r in results for ms in r.decision_ms]),
        "opponent_decision_ms": timing([ms for r in results for ms in r.opponent_decision_ms]),
        "budget_ms": plan.budget_ms,
        "seconds": round(seconds, 1),
    }


def run(plan: Plan, games: int, workers: int, progress: bool) -> list[GameResult]:
    """Play every game, on ``workers`` processes, with an optional progress bar."""
    jobs = [(plan, index) for index in range(games)]
    results: list[GameResult] = []
    if workers <= 1 or games < 2:
        iterator: Iterable[GameResult] = map(_play_job, jobs)
        return _collect(iterator, games, progress, results)
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with context.Pool(min(workers, games)) as pool:
        return _collect(pool.imap_unordered(_play_job, jobs), games, progress, results)


def _collect(iterator: Iterable[GameResult], games: int, progress: bool,
             results: list[GameResult]) -> list[GameResult]:
    for result in iterator:
        results.append(result)
        if progress:
            done = len(results)
            filled = 30 * done // games
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{games} games")
            sys.stderr.flush()
    if progress:
        sys.stderr.write("\n")
    return results


def table(summary: dict[str, Any]) -> str:
    """The figures for a person to read."""
    low, high = summary["ci95"]
    mine, theirs = summary["decision_ms"], summary["opponent_decision_ms"]
    others = summary["players"] - 1
    lines = [
        f"{summary['seat']} (in every seat) against {others} x {summary['opponents']}: "
        f"{summary['games']} games on {summary['deals']} deals, seed {summary['seed']}",
        "",
        f"  win share      {summary['win_share']:.3f}   95% interval {low:.3f} to {high:.3f}"
        f"   (fair share {summary['fair_share']:.3f})",
        f"  minus points   {summary['mean_minus_points']:.2f} per game   "
        f"(opponents {summary['opponents_mean_minus_points']:.2f})",
        f"  decision ms    {summary['seat']}: p50 {mine['p50']}, p99 {mine['p99']}, "
        f"max {mine['max']}   {summary['opponents']}: p50 {theirs['p50']}, "
        f"p99 {theirs['p99']}",
        f"  time           {summary['seconds']} s",
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str]) -> int:
    parser = Parser(prog=PROG, description="Play a computer player against a table of "
                    "others, rotating it through every seat on the same deals.")
    parser.add_argument("--players", type=int, default=5,
                        help=f"players at the table ({MIN_PLAYERS} to {MAX_PLAYERS}, default 5)")
    parser.add_argument("--games", type=int, default=100, help="games in all (default 100)")
    parser.add_argument("--seed", default="1", help="seed for the deals and players")
    parser.add_argument("--seat", choices=LEVELS, default="hard",
                        help="level of the tested player (default hard)")
    parser.add_argument("--opponents", choices=LEVELS, default="medium",
                        help="level of everyone else (default medium)")
    parser.add_argument("--budget-ms", type=float, default=None,
                        help="cap on each decision's time (default: each level's own)")
    parser.add_argument("--track", type=int, default=DEFAULT_TRACK_LENGTH,
                        help=f"spaces in the loop (default {DEFAULT_TRACK_LENGTH})")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes to play on (default: one per CPU core)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    problem = players_problem(args.players)
    if problem:
        return fail(PROG, problem)
    if args.games < 1:
        return fail(PROG, f"--games {args.games}: play at least one game")
    if args.workers < 1:
        return fail(PROG, f"--workers {args.workers}: use at least one process")
    if args.budget_ms is not None and not args.budget_ms > 0:
        return fail(PROG, f"--budget-ms {args.budget_ms}: must be more than 0")
    plan = Plan(args.players, args.seat, args.opponents, str(args.seed), args.track,
                args.budget_ms)
    try:
        deal(plan, 0)
    except ValueError as error:
        return fail(PROG, str(error).replace("track_length", "--track"))
    began = time.perf_counter()
    progress = not args.json and sys.stderr.isatty()
    results = run(plan, args.games, args.workers, progress)
    summary = summarise(plan, results, time.perf_counter() - began)
    if args.json:
        sys.stdout.buffer.write(dumps_pretty(summary) + b"\n")
    else:
        sys.stdout.write(table(summary))
    return 0
