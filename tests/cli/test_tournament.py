"""``kalimambo tournament``: the command runs, its JSON is sane, bad input is refused."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kalimambo.tournament import Plan, deal, percentile, play, summarise, wilson

KALIMAMBO = str(Path(sys.executable).with_name("kalimambo"))


def tournament(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([KALIMAMBO, "tournament", *args], capture_output=True, text=True,
                          timeout=240, check=False)


@pytest.mark.slow  # six games of a searching player on two processes: about 3 s
def test_a_small_tournament_prints_sane_json() -> None:
    done = tournament("--players", "3", "--games", "6", "--seed", "7", "--seat", "medium",
                      "--opponents", "random", "--workers", "2", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["games"] == 6
    assert result["deals"] == 2
    assert 0 <= result["win_share"] <= 1
    low, high = result["ci95"]
    assert 0 <= low <= result["win_share"] <= high <= 1
    assert result["mean_minus_points"] >= 0
    timing = result["decision_ms"]
    assert timing["count"] == 6 * 12
    assert 0 <= timing["p50"] <= timing["p99"] <= timing["max"]
    assert result["opponent_decision_ms"]["count"] == 6 * 2 * 12


def test_the_same_seed_gives_the_same_figures_whatever_the_workers() -> None:
    args = ("--players", "4", "--games", "8", "--seed", "3", "--seat", "easy",
            "--opponents", "random", "--json")
    one = json.loads(tournament(*args, "--workers", "1").stdout)
    two = json.loads(tournament(*args, "--workers", "2").stdout)
    keys = ("games", "wins", "win_share", "ci95", "mean_minus_points",
            "opponents_mean_minus_points")
    assert {k: one[k] for k in keys} == {k: two[k] for k in keys}


def test_without_json_a_table_is_printed() -> None:
    done = tournament("--players", "3", "--games", "3", "--seat", "easy",
                      "--opponents", "random")
    assert done.returncode == 0, done.stderr
    assert "win share" in done.stdout
    assert "95% interval" in done.stdout


@pytest.mark.parametrize(("args", "words"), [
    (["--players", "9"], "--players 9"),
    (["--games", "0"], "--games 0"),
    (["--seat", "expert"], "expert"),
    (["--budget-ms", "0"], "--budget-ms"),
    (["--players", "7", "--track", "9"], "--track"),
    (["--bogus"], "--bogus"),
])
def test_bad_options_end_with_one_line_and_status_2(args: list[str], words: str) -> None:
    done = tournament(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert words in done.stderr
    assert done.stderr.count("\n") == 1


def test_every_seat_meets_the_same_deal() -> None:
    plan = Plan(3, "random", "random", "x", 32, None)
    first = deal(plan, 0)
    again = deal(plan, 0)
    assert first.setup == again.setup
    assert first.kali_deck == again.kali_deck
    assert deal(plan, 1).kali_deck != first.kali_deck or deal(plan, 1).setup != first.setup


def test_ties_for_the_win_are_split_and_counted() -> None:
    plan = Plan(3, "random", "random", "s", 32, None)
    results = [play(plan, index) for index in range(9)]
    for result in results:
        assert result.share in (0.0, 1 / 3, 0.5, 1.0)
    summary = summarise(plan, results, 1.0)
    assert summary["wins"] == pytest.approx(sum(r.share for r in results), abs=1e-3)


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4)
    assert high == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == pytest.approx(1.0)


def test_percentile_is_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile([], 0.99) == 0.0
