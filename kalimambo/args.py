"""An argument parser whose mistakes end in one line and exit status 2 (API.md)."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from kalimambo.engine.rules import MAX_PLAYERS, MIN_PLAYERS


class Parser(argparse.ArgumentParser):
    """``argparse`` that prints a one-line message instead of usage plus error."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: {message} (see {self.prog} --help)\n")
        sys.exit(2)


def fail(prog: str, message: str) -> int:
    """Print the one-line message for bad input and give exit status 2."""
    sys.stderr.write(f"{prog}: {message}\n")
    return 2


def players_problem(players: int) -> str | None:
    """Why ``--players N`` cannot be played, or ``None`` when the game takes N players."""
    if MIN_PLAYERS <= players <= MAX_PLAYERS:
        return None
    return f"--players {players}: the game takes {MIN_PLAYERS} to {MAX_PLAYERS} players"
