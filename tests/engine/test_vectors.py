"""Every shared test vector reproduces exactly: the whole result, every snapshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from kalimambo.engine import parse_record, resolve_record
from tests.helpers import load_vector, vector_files

VECTORS = vector_files()


def test_vectors_are_there() -> None:
    assert len(VECTORS) >= 36


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_vector_replays_exactly(path: Path) -> None:
    vector = load_vector(path)
    assert resolve_record(parse_record(vector["record"])) == vector["expected"]


@pytest.mark.parametrize("path", VECTORS, ids=[p.stem for p in VECTORS])
def test_vector_through_game_matches_resolve_record(path: Path) -> None:
    """The table's Game object reaches the same state as the bare resolve_record."""
    vector = load_vector(path)
    game = parse_record(vector["record"]).to_game()
    expected = vector["expected"]
    assert game.positions() == expected["positions"]
    assert game.minus_points() == expected["minus_points"]
    assert game.board.rhino == expected["rhino"]
    assert game.winners() == expected["winners"]
    assert game.record()["rounds"] == vector["record"]["rounds"]


@pytest.mark.parametrize("path", VECTORS[:5], ids=[p.stem for p in VECTORS[:5]])
def test_record_writes_back_what_it_read(path: Path) -> None:
    record = load_vector(path)["record"]
    assert parse_record(record).to_dict() == record
