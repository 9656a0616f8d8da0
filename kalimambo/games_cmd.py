"""``kalimambo games export --csv``: the finished games of a data dir, one row per player.

The same rows as ``GET /api/v1/games.csv``, read from the table's store (which may be
serving at the same time: SQLite lets a reader in beside the writer).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from kalimambo.args import Parser, fail

PROG = "kalimambo games"


def parse_since(text: str) -> float:
    """A date (local midnight), an ISO date and time, or Unix seconds; ValueError if none."""
    try:
        return float(text)
    except ValueError:
        pass
    when = datetime.fromisoformat(text)  # raises ValueError with its own words
    return when.timestamp() if when.tzinfo else when.astimezone().timestamp()


def main(argv: Sequence[str]) -> int:
    parser = Parser(prog=PROG, description="The table's finished games.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    export = commands.add_parser("export", help="write finished games as CSV to standard "
                                                "output")
    export.add_argument("--csv", action="store_true", help="as CSV: one row per player per "
                                                           "game (the only format so far)")
    export.add_argument("--since", metavar="DATE",
                        help="only games finished at or after DATE (2026-12-01, "
                             "2026-12-01T14:00 or Unix seconds)")
    export.add_argument("--data-dir", default="data",
                        help="the table's data dir (default ./data; on a Pi "
                             "/var/lib/kalimambo)")
    args = parser.parse_args(list(argv))
    if not args.csv:
        return fail(PROG, "export: say which format: --csv")
    since = None
    if args.since is not None:
        try:
            since = parse_since(args.since)
        except ValueError:
            return fail(PROG, f"--since {args.since}: not a date (for example 2026-12-01)")

    from kalimambo.web.storage.archive import Archive, csv_text
    from kalimambo.web.storage.store import DB_NAME, Store

    path = Path(args.data_dir) / DB_NAME
    if not path.is_file():
        return fail(PROG, f"--data-dir {args.data_dir}: no saved games there ({path} is "
                          "missing)")
    try:
        store = Store(path)
    except Exception as error:  # a broken or unreadable file: one line, not a traceback
        return fail(PROG, f"{path}: cannot read the saved games: {error}")
    try:
        text = csv_text(Archive(store, threading.Lock()).results(since))
    except Exception as error:
        return fail(PROG, f"{path}: cannot read the saved games: {error}")
    finally:
        store.close()
    sys.stdout.write(text)
    return 0
