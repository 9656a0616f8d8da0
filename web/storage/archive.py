"""Finished games, added up: each player's result, the statistics and the CSV export.

Everything here is recomputed from the stored records by resolving them: the record
is the one truth about a game, so the figures can never drift from what was played.
A finished game never changes, so its results are worked out once and kept.
"""

from __future__ import annotations

import csv
import io
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from kalimambo.engine.game import PlayedRound, record_dict
from kalimambo.engine.record import parse_record, resolve_record
from kalimambo.engine.setup import check_setup
from kalimambo.web.storage.store import GameRow, Store

NameKey = Callable[[str], str]
"""How two names are told apart: the table's join rule (one key, one player)."""

CSV_COLUMNS = ("game_id", "finished", "name", "seat", "minus_points", "rank", "rammed",
               "dung", "for_kali")


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One player's line in one finished game."""

    game_id: int
    finished: float
    """Unix seconds."""
    name: str
    seat: int
    """1 for the first seat of the record's player order."""
    minus_points: int
    rank: int
    """1 for the winners; players tied share a rank (1, 1, 3)."""
    winner: bool
    rammed: int
    """Minus points from Mambo ramming the player's own explorer."""
    dung: int
    """Minus points from the player's own explorer stepping in dung."""
    for_kali: int
    """Minus points paid for Kali, for playing the round's lowest card."""
    bot: bool


def stored_record(store: Store, row: GameRow) -> dict[str, Any] | None:
    """The ``kalimambo-record/1`` of a stored game, or None if it never started."""
    if row.players is None or row.setup is None:
        return None
    players = row.players
    setup = check_setup(row.setup, players, row.track_length)
    rounds = [PlayedRound(tuple(r.cards[name] for name in players), r.kali)
              for r in store.rounds(row.id)]
    return record_dict(players, row.track_length, setup, rounds)


def ranks(minus_points: dict[str, int]) -> dict[str, int]:
    """Places by minus points, fewest first; players tied share a place (1, 1, 3)."""
    return {name: 1 + sum(1 for other in minus_points.values() if other < points)
            for name, points in minus_points.items()}


def game_results(game_id: int, finished: float, record: dict[str, Any],
                 bots: Iterable[str] = ()) -> list[PlayerResult]:
    """Every player's result in one finished game, in seat order."""
    players: Sequence[str] = record["players"]
    result = resolve_record(parse_record(record), with_events=True)
    causes = {name: {"rammed": 0, "dung": 0, "for_kali": 0} for name in players}
    for snapshot in result["snapshots"]:
        for event in snapshot["events"]:
            if event["type"] == "penalty":
                cause = "for_kali" if event["for_kali"] else event["cause"]
                causes[event["player"]][cause] += event["points"]
    minus = result["minus_points"]
    rank = ranks(minus)
    winners = set(result["winners"])
    computers = set(bots)
    return [PlayerResult(game_id, finished, name, seat, minus[name], rank[name],
                         name in winners, causes[name]["rammed"], causes[name]["dung"],
                         causes[name]["for_kali"], name in computers)
            for seat, name in enumerate(players, 1)]


class Archive:
    """The table's finished games, read from the store and resolved once each."""

    def __init__(self, store: Store, lock: Any) -> None:
        self.store = store
        self.lock = lock
        """The table's lock: the store's connection is shared with the live game."""
        self._cache: dict[tuple[int, float], list[PlayerResult]] = {}
        """Keyed by game and finishing time: an undone last round and a different one
        played instead finish the game again, at another time, with other results."""
        self._cache_lock = threading.Lock()

    def results(self, since: float | None = None) -> list[PlayerResult]:
        """Every player's line of every finished game (finished at or after ``since``),
        oldest game first."""
        with self.lock:
            rows = [row for row in self.store.games()
                    if row.finished is not None and (since is None or row.finished >= since)]
            fresh = [(row, stored_record(self.store, row)) for row in rows
                     if (row.id, row.finished) not in self._cache]
        for row, record in fresh:
            if record is None or row.finished is None:
                continue
            roster = row.roster or {}
            bots = [name for name, info in roster.items() if info.get("bot")]
            lines = game_results(row.id, row.finished, record, bots)
            with self._cache_lock:
                self._cache[(row.id, row.finished)] = lines
        with self._cache_lock:
            return [line for row in rows if row.finished is not None
                    for line in self._cache.get((row.id, row.finished), [])]


def statistics(results: Sequence[PlayerResult], key: NameKey) -> dict[str, Any]:
    """``{"games", "players": [...]}``: each player (names compared by ``key``) over every
    game, sorted by wins (most first), then best game (fewest minus points first)."""
    games = len({line.game_id for line in results})
    grouped: dict[str, list[PlayerResult]] = {}
    for line in results:
        grouped.setdefault(key(line.name), []).append(line)
    players: list[dict[str, Any]] = []
    for lines in grouped.values():
        total = sum(line.minus_points for line in lines)
        players.append({
            "name": lines[-1].name,  # the latest spelling
            "games": len(lines),
            "wins": sum(1 for line in lines if line.winner),
            "best": min(line.minus_points for line in lines),
            "mean": total / len(lines),
            "rammed": sum(line.rammed for line in lines),
            "dung": sum(line.dung for line in lines),
            "for_kali": sum(line.for_kali for line in lines),
            "bot": any(line.bot for line in lines),
        })
    players.sort(key=lambda p: (-p["wins"], p["best"], -p["games"], p["name"].casefold()))
    return {"games": games, "players": players}


def iso_time(seconds: float) -> str:
    """ISO 8601 in UTC, to the second: the same text on every machine."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def local_time(seconds: float, words: Mapping[str, str]) -> str:
    """The table's local date and time with its zone, for people reading a sheet at the
    table (the CSV keeps UTC), in the form the pages use (common/when.js) and the
    sheet's language: "1 December 2026, 14:05 CET (UTC+01:00)"."""
    moment = datetime.fromtimestamp(seconds).astimezone()
    offset = moment.strftime("%z")
    zone = f"UTC{offset[:3]}:{offset[3:]}" if offset not in ("", "+0000") else "UTC"
    name = moment.tzname() or ""
    shown = f"{name} ({zone})" if name and name != "UTC" and not name.startswith(("+", "-")) \
        else zone
    months = [month.strip() for month in words["date.months"].split(",")]
    month = months[moment.month - 1] if len(months) == 12 else str(moment.month)
    parts = {"day": str(moment.day), "month": month, "year": str(moment.year),
             "time": f"{moment:%H:%M}"}
    date = re.sub(r"\{(\w+)\}", lambda m: parts.get(m.group(1), m.group(0)),
                  words["date.format"])
    return f"{date} {shown}"


def csv_text(results: Sequence[PlayerResult]) -> str:
    """One row per player per finished game, with a header row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for line in results:
        writer.writerow((line.game_id, iso_time(line.finished), _cell(line.name), line.seat,
                         line.minus_points, line.rank, line.rammed, line.dung,
                         line.for_kali))
    return out.getvalue()


def _cell(text: str) -> str:
    """A name as a CSV cell a spreadsheet will not run as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@dataclass(frozen=True, slots=True)
class SheetRound:
    """One line of the score pad: the cards played and the minus points after it."""

    number: int
    cards: dict[str, int]
    kali: int
    gained: dict[str, int]
    totals: dict[str, int]


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """A game as the paper score pad would have it, round by round."""

    game_id: int
    started: float | None
    finished: float | None
    players: list[str]
    colours: dict[str, str]
    rounds: list[SheetRound]
    ranks: dict[str, int]
    winners: list[str]


def score_sheet(store: Store, game_id: int) -> ScoreSheet | None:
    """The score sheet of a stored game; None if there is no such game or it never began."""
    row = store.game(game_id)
    record = stored_record(store, row) if row is not None else None
    if row is None or record is None:
        return None
    result = resolve_record(parse_record(record))
    players: list[str] = record["players"]
    rounds, before = [], dict.fromkeys(players, 0)
    for number, (played, snapshot) in enumerate(zip(record["rounds"], result["snapshots"],
                                                    strict=True), 1):
        totals = snapshot["minus_points"]
        rounds.append(SheetRound(number, played["cards"], played["kali"],
                                 {name: totals[name] - before[name] for name in players},
                                 totals))
        before = totals
    roster = row.roster or {}
    colours = {name: str(roster.get(name, {}).get("colour") or "") for name in players}
    winners = result["winners"] if result["finished"] else []
    return ScoreSheet(game_id, row.started, row.finished, players, colours, rounds,
                      ranks(result["minus_points"]), winners)
