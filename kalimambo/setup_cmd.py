"""``kalimambo setup``: print a legal random set-up as a record with no rounds yet.

The output is a whole ``kalimambo-record/1`` (players, track length, set-up,
``rounds: []``), so it can be checked, resolved (``kalimambo replay``), or handed to the host page.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence

from kalimambo.args import Parser, fail, players_problem
from kalimambo.engine.errors import SetupError
from kalimambo.engine.game import record_dict
from kalimambo.engine.rules import DEFAULT_TRACK_LENGTH, MAX_PLAYERS, MIN_PLAYERS
from kalimambo.engine.setup import SAMPLE_NAMES, check_players, random_setup
from kalimambo.jsonio import dumps_pretty

PROG = "kalimambo setup"


def main(argv: Sequence[str]) -> int:
    parser = Parser(prog=PROG, description="Print a legal random set-up (RULES.md) as a "
                    "kalimambo-record/1 with no rounds.")
    parser.add_argument("--players", type=int, required=True,
                        help=f"how many players ({MIN_PLAYERS} to {MAX_PLAYERS})")
    parser.add_argument("--seed", default=None, help="seed for a repeatable set-up")
    parser.add_argument("--track", type=int, default=DEFAULT_TRACK_LENGTH,
                        help=f"spaces in the loop (default {DEFAULT_TRACK_LENGTH})")
    parser.add_argument("--names", default=None,
                        help="comma-separated player names (default Ana, Ben, Caro, ...)")
    args = parser.parse_args(argv)
    problem = players_problem(args.players)
    if problem:
        return fail(PROG, problem)
    names = (args.names.split(",") if args.names is not None
             else list(SAMPLE_NAMES[:args.players]))
    if len(names) != args.players:
        return fail(PROG, f"--names gives {len(names)} names for {args.players} players")
    try:
        players = check_players([name.strip() for name in names], "--names")
        setup = random_setup(players, args.track, random.Random(args.seed))
    except SetupError as error:
        return fail(PROG, str(error).replace("track_length", "--track"))
    record = record_dict(players, args.track, setup, [])
    sys.stdout.buffer.write(dumps_pretty(record) + b"\n")
    return 0
