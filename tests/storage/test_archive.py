"""Statistics, the CSV export and the score sheet, checked against the records themselves.

Finished games are put into a real store as the table keeps them (vector games, with
tied winners and Kali's penalties, and players of one name in different cases). The
expected figures are worked out here afresh: minus points and winners from the
vectors' expected results, the causes from ``kalimambo replay --events``.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.core.seats import COLOURS
from kalimambo.web.http.app import create_app
from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.storage.store import DB_NAME, SeatRow, Store
from tests.conftest import PIN
from tests.helpers import ROOT, assert_refused, end_playback, kalimambo

VECTORS = ROOT / "tests" / "vectors"
# (vector, renames, computer players, finished at): Ana turns up as "Ana", "ana" and
# "ANA"; edge-shared-win and game-02 end in a tie; every game has Kali penalties.
GAMES: list[tuple[str, dict[str, str], set[str], float]] = [
    ("edge-shared-win", {}, set(), 1_764_000_000.0),
    ("game-02", {"Ana": "ana"}, {"Ben"}, 1_764_100_000.0),
    ("game-09", {"Ana": "ANA", "Caro": "caro"}, set(), 1_764_200_000.0),
    ("game-08", {}, {"Eli"}, 1_764_300_000.0),
]


def renamed(record: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    def new(name: str) -> str:
        return names.get(name, name)

    return {**record, "players": [new(n) for n in record["players"]],
            "setup": {**record["setup"], "order": [new(n) for n in record["setup"]["order"]]},
            "rounds": [{"cards": {new(n): c for n, c in r["cards"].items()}, "kali": r["kali"]}
                       for r in record["rounds"]]}


def vector_games() -> list[tuple[dict[str, Any], dict[str, Any], set[str], float]]:
    out = []
    for name, names, bots, finished in GAMES:
        data = json.loads((VECTORS / f"{name}.json").read_text())
        expected = data["expected"]
        expected = {"minus_points": {names.get(n, n): v
                                     for n, v in expected["minus_points"].items()},
                    "winners": [names.get(n, n) for n in expected["winners"]]}
        out.append((renamed(data["record"], names), expected,
                    {names.get(n, n) for n in bots}, finished))
    return out


def archive_games(data_dir: Path, games: list[tuple[dict[str, Any], set[str]]],
                  finished: list[float]) -> list[int]:
    """Each (record, computer players) into the store the way the table plays and archives
    it, finished at the given Unix times (known times, for ?since=)."""
    store = Store(data_dir / DB_NAME)
    ids: list[int] = []
    for record, bots in games:
        game_id = store.new_game(record["track_length"], archive=ids[-1] if ids else None)
        seats = [SeatRow(pos, name, COLOURS[pos], f"hash-{game_id}-{pos}", False,
                         "easy" if name in bots else None)
                 for pos, name in enumerate(record["players"])]
        store.add_seats(game_id, seats)
        store.start_game(game_id, record["players"], record["setup"], list(range(12)), seats)
        for number, played in enumerate(record["rounds"], 1):
            store.add_round(game_id, number, played["cards"], played["kali"], number == 12)
        ids.append(game_id)
    store.new_game(32, archive=ids[-1])
    store.close()
    with sqlite3.connect(data_dir / DB_NAME) as db:
        for game_id, when in zip(ids, finished, strict=True):
            db.execute("UPDATE games SET finished = ? WHERE id = ?", (when, game_id))
    return ids


def store_games(data_dir: Path) -> list[int]:
    """The vector games of GAMES, finished at their times."""
    games = vector_games()
    return archive_games(data_dir, [(record, bots) for record, _, bots, _ in games],
                         [finished for _, _, _, finished in games])


@pytest.fixture
def archive_client(tmp_path: Path) -> Iterator[Any]:
    data_dir = tmp_path / "data"
    store_games(data_dir)
    app = create_app(AppConfig(testing=True, data_dir=data_dir, host_pin=PIN, runner="inline"))
    yield app.test_client()
    app.extensions["kalimambo"].close()


def causes_by_replay(record: dict[str, Any]) -> dict[str, dict[str, int]]:
    """Minus points by cause, from the command line's replay with events."""
    done = kalimambo("replay", "--events", "-", stdin=json.dumps(record))
    assert done.returncode == 0, done.stderr
    causes = {name: {"rammed": 0, "dung": 0, "for_kali": 0} for name in record["players"]}
    for snapshot in json.loads(done.stdout)["snapshots"]:
        for event in snapshot["events"]:
            if event["type"] != "penalty":
                continue
            if event["for_kali"]:
                causes[event["player"]]["for_kali"] += event["points"]
            else:
                causes[event["player"]][event["cause"]] += event["points"]
    return causes


def expected_rows(since: float = 0.0) -> list[dict[str, Any]]:
    rows = []
    for game_id, (record, expected, bots, finished) in enumerate(vector_games(), 1):
        if finished < since:
            continue
        minus = expected["minus_points"]
        causes = causes_by_replay(record)
        for seat, name in enumerate(record["players"], 1):
            assert sum(causes[name].values()) == minus[name]
            rows.append({"game_id": game_id, "finished": finished, "name": name, "seat": seat,
                         "minus_points": minus[name],
                         "rank": sorted(minus.values()).index(minus[name]) + 1,
                         "winner": name in expected["winners"], "bot": name in bots,
                         **causes[name]})
    return rows


def expected_stats(since: float = 0.0) -> dict[str, Any]:
    rows = expected_rows(since)
    players: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        players.setdefault(row["name"].casefold(), []).append(row)
    out = []
    for lines in players.values():
        points = [line["minus_points"] for line in lines]
        out.append({"name": lines[-1]["name"], "games": len(lines),
                    "wins": sum(line["winner"] for line in lines), "best": min(points),
                    "mean": sum(points) / len(lines),
                    "rammed": sum(line["rammed"] for line in lines),
                    "dung": sum(line["dung"] for line in lines),
                    "for_kali": sum(line["for_kali"] for line in lines),
                    "bot": any(line["bot"] for line in lines)})
    out.sort(key=lambda p: (-p["wins"], p["best"], -p["games"], p["name"].casefold()))
    return {"games": len({row["game_id"] for row in rows}), "players": out}


def test_the_games_hold_what_the_test_needs() -> None:
    rows = expected_rows()
    assert sum(1 for row in rows if row["name"].casefold() == "ana") == 4
    assert any(row["for_kali"] for row in rows) and any(row["dung"] for row in rows)
    assert sum(1 for row in rows if row["winner"]) > len(GAMES)  # ties among winners


def test_stats_recompute_from_the_records(archive_client: Any) -> None:
    answer = archive_client.get("/api/v1/stats")
    assert answer.status_code == 200
    assert answer.get_json() == expected_stats()
    ana = next(p for p in answer.get_json()["players"] if p["name"].casefold() == "ana")
    assert ana["games"] == 4 and ana["name"] == "Ana"  # one player, as last seen (game-08)
    for player in answer.get_json()["players"]:
        assert player["rammed"] + player["dung"] + player["for_kali"] == pytest.approx(
            player["mean"] * player["games"])


def test_stats_since_counts_only_later_games(archive_client: Any) -> None:
    since = GAMES[2][3]
    answer = archive_client.get(f"/api/v1/stats?since={since:.0f}")
    assert answer.get_json() == expected_stats(since)
    assert answer.get_json()["games"] == 2


@pytest.mark.parametrize("since", ["yesterday", "-5", "nan", "inf", "1e400"])
def test_a_bad_since_is_refused(archive_client: Any, since: str) -> None:
    for path in ("/api/v1/stats", "/api/v1/games.csv"):
        answer = archive_client.get(f"{path}?since={since}")
        assert answer.status_code == 400
        assert answer.get_json()["error"]["code"] == "bad_since"


def csv_expected(since: float = 0.0) -> list[list[str]]:
    return [["game_id", "finished", "name", "seat", "minus_points", "rank", "rammed", "dung",
             "for_kali"]] + [
        [str(row["game_id"]),
         datetime.fromtimestamp(row["finished"], UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00"),
         row["name"], str(row["seat"]), str(row["minus_points"]), str(row["rank"]),
         str(row["rammed"]), str(row["dung"]), str(row["for_kali"])]
        for row in expected_rows(since)]


def test_csv_recomputes_from_the_records(archive_client: Any) -> None:
    answer = archive_client.get("/api/v1/games.csv")
    assert answer.status_code == 200 and answer.mimetype == "text/csv"
    assert list(csv.reader(io.StringIO(answer.get_data(as_text=True)))) == csv_expected()
    later = archive_client.get(f"/api/v1/games.csv?since={GAMES[1][3]:.0f}")
    assert list(csv.reader(io.StringIO(later.get_data(as_text=True)))) == csv_expected(
        GAMES[1][3])


def test_export_command_writes_the_same_csv(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    store_games(data_dir)
    day = datetime.fromtimestamp(GAMES[2][3], UTC).strftime("%Y-%m-%dT%H:%M:%S+00:00")
    done = kalimambo("games", "export", "--csv", "--since", day, "--data-dir", str(data_dir))
    assert done.returncode == 0, done.stderr
    assert list(csv.reader(io.StringIO(done.stdout))) == csv_expected(GAMES[2][3])


@pytest.mark.parametrize("argv, message", [
    (["export"], "--csv"),
    (["export", "--csv", "--since", "soon"], "--since soon"),
    (["export", "--csv", "--data-dir", "{missing}"], "no saved games"),
    (["export", "--csv", "--data-dir", "{broken}"], "cannot read"),
])
def test_export_command_refuses_bad_input(tmp_path: Path, argv: list[str],
                                          message: str) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / DB_NAME).write_bytes(b"this is not a database" * 100)
    files = {"missing": str(tmp_path / "nowhere"), "broken": str(broken)}
    assert_refused(kalimambo("games", *(arg.format(**files) for arg in argv)), message)


def test_a_game_played_at_the_table_counts_with_its_computer_players(client: Any,
                                                                     host_token: str) -> None:
    auth = {"Authorization": f"Bearer {host_token}"}
    assert client.post("/api/v1/host/bots", json={"count": 3, "level": "random"},
                       headers=auth).status_code == 201
    assert client.post("/api/v1/host/start", json={}, headers=auth).status_code == 200
    for _ in range(12):  # bots pick inline; each round's playback is skipped
        end_playback(client)
    assert client.get("/api/v1/state").get_json()["phase"] == "finished"
    stats = client.get("/api/v1/stats").get_json()
    assert stats["games"] == 1 and len(stats["players"]) == 3
    assert all(player["bot"] and player["games"] == 1 for player in stats["players"])
    assert sum(player["wins"] for player in stats["players"]) >= 1
    record = client.get("/api/v1/record").get_json()
    causes = causes_by_replay(record)
    for player in stats["players"]:
        assert {key: player[key] for key in ("rammed", "dung", "for_kali")} == \
            causes[player["name"]]


def test_score_sheet_shows_every_round(archive_client: Any) -> None:
    record, expected, _, _ = vector_games()[1]
    page = archive_client.get("/games/2/sheet?lang=en")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    for name in record["players"]:
        assert f">{name}" in html
    winners = ", ".join(expected["winners"])
    assert f"Winners: {winners}" in html
    assert html.count('<td class="total">') == 12 * len(record["players"])
    assert archive_client.get("/games/99/sheet").status_code == 404
    assert "Partie 2" in archive_client.get("/games/2/sheet?lang=de").get_data(as_text=True)
