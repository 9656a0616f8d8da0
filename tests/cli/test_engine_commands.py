"""The engine's commands: ``kalimambo replay`` and ``kalimambo setup``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from kalimambo.engine import parse_record, resolve_record
from kalimambo.replay_cmd import PARALLEL_FROM
from tests.helpers import ROOT, assert_refused, kalimambo, load_vector, random_record, vector_files


def test_replay_prints_the_expected_result() -> None:
    path = vector_files()[0]
    done = kalimambo("replay", str(path))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == load_vector(path)["expected"]


def test_replay_reads_a_bare_record_from_stdin() -> None:
    vector = load_vector(vector_files()[-1])
    done = kalimambo("replay", "-", stdin=json.dumps(vector["record"]))
    assert json.loads(done.stdout) == vector["expected"]


def test_replay_events_are_added_on_request() -> None:
    vector = load_vector(vector_files()[5])
    done = kalimambo("replay", "--events", str(vector_files()[5]))
    result = json.loads(done.stdout)
    events = result["snapshots"][0]["events"]
    assert events[0]["type"] == "reveal" and events[-1]["type"] == "round_end"
    for snapshot in result["snapshots"]:
        del snapshot["events"]
    assert result == vector["expected"]


def test_jsonl_takes_records_and_wrappers_one_result_per_line(tmp_path: Path) -> None:
    vectors = [load_vector(p) for p in vector_files()]
    lines = [json.dumps(v if i % 2 else v["record"]) for i, v in enumerate(vectors)]
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n\n")
    done = kalimambo("replay", "--jsonl", str(path))
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert results == [v["expected"] for v in vectors]


def test_jsonl_bad_line_writes_nothing_and_names_the_line(tmp_path: Path) -> None:
    vectors = [load_vector(p)["record"] for p in vector_files()]
    broken = dict(vectors[2], track_length=2000)
    lines = [json.dumps(r) for r in (vectors[0], vectors[1], broken, vectors[3])]
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = kalimambo("replay", "--jsonl", str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().startswith(f"kalimambo replay: {path}: line 3: track_length: "
                                          "2000")
    assert done.stderr.count("\n") == 1


def test_parallel_batch_gives_the_same_results_in_order() -> None:
    # Through the command, as people run it: resolve_batch forks, which is safe in the
    # command's one thread but not inside pytest, whose other tests leave threads running
    # (Python 3.13 warns of exactly that).
    rng = random.Random(7)
    records = [random_record(rng, rng.randint(3, 7), rng.randint(12, 40))
               for _ in range(PARALLEL_FROM + 50)]
    batch = "".join(json.dumps(r) + "\n" for r in records)
    done = kalimambo("replay", "--jsonl", "--workers", "2", "-", stdin=batch)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == [
        resolve_record(parse_record(r)) for r in records]


def test_parallel_batch_reports_the_first_bad_line() -> None:
    rng = random.Random(8)
    lines = [json.dumps(random_record(rng, 4)) for _ in range(PARALLEL_FROM + 10)]
    lines[300] = "{not json"
    lines[350] = "[]"
    done = kalimambo("replay", "--jsonl", "--workers", "2", "-",
                     stdin="".join(line + "\n" for line in lines))
    assert_refused(done, "standard input: line 301: ")
    assert done.stdout == ""


@pytest.mark.parametrize(("args", "message"), [
    (["replay", "--bogus", "x.json"], "unrecognized arguments: --bogus"),
    (["replay", "/nonexistent/game.json"], "cannot read /nonexistent/game.json"),
    (["replay"], "the following arguments are required: file"),
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["setup", "--players", "9"], "--players 9: the game takes 3 to 7 players"),
    (["setup", "--players", "3", "--track", "5"], "--track: 5 spaces is too short"),
    (["setup", "--players", "3", "--names", "Ana,Ana,Ben"], "Ana is named twice"),
])
def test_bad_command_lines_end_in_one_line_and_exit_2(args: list[str], message: str) -> None:
    done = kalimambo(*args)
    assert done.returncode == 2
    assert done.stdout == ""
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_not_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text("{\"format\": ")
    done = kalimambo("replay", str(path))
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1


@pytest.mark.parametrize("players", [3, 5, 7])
def test_setup_prints_a_legal_random_setup(players: int) -> None:
    first = kalimambo("setup", "--players", str(players), "--seed", "11")
    again = kalimambo("setup", "--players", str(players), "--seed", "11")
    other = kalimambo("setup", "--players", str(players), "--seed", "12")
    assert first.returncode == 0 and first.stdout == again.stdout != other.stdout
    record = json.loads(first.stdout)
    parsed = parse_record(record)
    assert len(parsed.players) == players and len(parsed.setup.dung) == 6


def test_replay_imports_only_the_engine() -> None:
    """``replay`` must start fast: no Flask, no GPIO, no web or firmware packages."""
    path = vector_files()[0]
    code = (f"import sys; from kalimambo.cli import main; main(['replay', {str(path)!r}]); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('flask', 'gpiozero', 'werkzeug', 'gevent', 'gunicorn', 'web', 'firmware') "
            "or m.startswith(('kalimambo.web', 'kalimambo.firmware'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
