"""Small helpers shared by the engine tests."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kalimambo.engine import RECORD_FORMAT, Game, parse_record, random_setup
from kalimambo.engine.rules import CARD_VALUES
from kalimambo.engine.setup import SAMPLE_NAMES

ROOT = Path(__file__).resolve().parents[1]
SHARED_VECTORS = ROOT.parent / "shared" / "vectors"
VECTOR_COPIES = ROOT / "tests" / "vectors"
NAMES = SAMPLE_NAMES


def child_pids(pid: int) -> list[int]:
    """The processes ``pid`` started, from any of its threads: a table's master forks
    its gunicorn worker, and starts the lights process from its ``lights-child`` thread."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return sorted(found)


def runs(pid: int, command: str) -> bool:
    """Whether process ``pid`` runs ``kalimambo <command>`` (``serve``: a table's master
    and its gunicorn worker, a fork of it; ``lights``: the lights process)."""
    try:
        return f"\0{command}\0".encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def free_port() -> int:
    """A TCP port free on 127.0.0.1 just now (for a server a test starts)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def vector_files() -> list[Path]:
    """Every shared vector (from ../shared/vectors, else the copies in tests/vectors)."""
    found = {path.name: path for path in sorted(VECTOR_COPIES.glob("*.json"))}
    if SHARED_VECTORS.is_dir():
        found.update({path.name: path for path in sorted(SHARED_VECTORS.glob("*.json"))})
    return [found[name] for name in sorted(found)]


def load_vector(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def random_record(rng: random.Random, players: int, track_length: int = 32,
                  rounds: int = 12) -> dict[str, Any]:
    """A random legal record with ``rounds`` rounds."""
    names = list(NAMES[:players])
    setup = random_setup(names, track_length, rng)
    hands = {name: rng.sample(range(CARD_VALUES), CARD_VALUES) for name in names}
    kali = rng.sample(range(CARD_VALUES), CARD_VALUES)
    return {
        "format": RECORD_FORMAT, "track_length": track_length, "players": names,
        "setup": setup.to_dict(),
        "rounds": [{"cards": {n: hands[n][r] for n in names}, "kali": kali[r]}
                   for r in range(rounds)],
    }


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Poll ``condition`` until it holds or ``timeout`` seconds pass; its last answer.

    The ceiling is generous on purpose: a condition that holds returns at once, and a
    machine busy with a second test run can take seconds for what is instant alone.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def kalimambo(*args: str, stdin: str | None = None, cwd: Path = ROOT,
              timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``python -m kalimambo ARGS`` run to its end, its output kept as text."""
    return subprocess.run([sys.executable, "-m", "kalimambo", *args], input=stdin, cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)


def assert_refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit status 2 and one line on stderr, naming each of ``words``."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert all(word in lines[0] for word in words), done.stderr


def assert_view_matches_replay(view: dict[str, Any], record: dict[str, Any]) -> None:
    """The table's public view shows exactly the state the engine reaches on its record."""
    parsed = parse_record(record)
    game = Game(parsed.players, parsed.setup, parsed.track_length)
    for played in record["rounds"]:
        game.play_round(played["cards"], played["kali"])
    assert view["positions"] == game.positions()
    assert view["rhino"] == game.board.rhino
    assert {s["name"]: s["minus_points"] for s in view["seats"]} == game.minus_points()
    assert view["winners"] == (game.winners() if game.finished else [])


def end_playback(target: Any) -> None:
    """Show the rest of the round being played back at once (as the host's Skip does), so
    a test can pick the next round.  ``target`` is a Table or a Flask test client."""
    table = target
    if hasattr(target, "application"):
        table = target.application.extensions["kalimambo"].table
    with table.lock:
        if table.playing:
            table.skip()
