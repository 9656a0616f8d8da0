"""Hint reasons and the opponent model on hand-made positions."""

from __future__ import annotations

import random

from kalimambo.engine.ai_hint import explain
from kalimambo.engine.ai_round import exposure, quick_scores
from kalimambo.engine.ai_search import opponent_model
from kalimambo.engine.ai_view import KnownState
from kalimambo.engine.rules import Board

FULL = tuple(range(12))


def view(positions: list[int], rhino: int, dung: list[int], me: int) -> KnownState:
    """Four players and Kali on 32 spaces, everyone holding all twelve cards."""
    board = Board(32, rhino, positions, dung)
    return KnownState(board, (FULL,) * (len(positions) - 1), FULL, me)


def test_next_in_line_for_mambo_is_told_to_escape() -> None:
    # Mambo on 0; seat 1 is last (space 1); seat 0 is next, with a gap of 5 behind it.
    position = view([6, 1, 7, 8, 9], rhino=0, dung=[20], me=0)
    code, params = explain(position, 11, random.Random(1))
    assert code == "escape_rhino"
    assert 0 < params["risk"] <= 100


def test_a_heap_ahead_of_the_group_is_avoided_by_staying() -> None:
    # The space ahead of the front (Kali on 9) holds a heap; seat 2 stands mid-group.
    position = view([2, 1, 5, 7, 9], rhino=0, dung=[10], me=2)
    code, params = explain(position, 0, random.Random(2))
    assert code == "avoid_dung"
    assert params["space"] == 10


def test_the_one_round_view_prefers_escaping_when_next_in_line() -> None:
    position = view([6, 1, 7, 8, 9], rhino=0, dung=[20], me=0)
    scores = quick_scores(position, random.Random(3), 32)
    assert scores[11] < scores[1]


def test_ram_exposure_grows_with_the_gap_behind() -> None:
    near = Board(32, 0, [2, 1, 3, 4, 5], [])
    far = Board(32, 0, [8, 1, 9, 10, 11], [])
    position = view([2, 1, 3, 4, 5], rhino=0, dung=[], me=0)
    low = exposure(position, near.order, near.positions, near.rhino)
    high = exposure(position, far.order, far.positions, far.rhino)
    assert 0 < low < high


def test_the_opponent_model_covers_every_card_of_every_opponent() -> None:
    position = view([6, 1, 7, 8, 9], rhino=0, dung=[10], me=0)
    model = opponent_model(position, random.Random(4))
    assert model[0] is None
    for weights in model[1:]:
        assert weights is not None
        assert len(weights) == 12
        steps = [b - a for a, b in zip([0.0, *weights], weights, strict=False)]
        assert all(step > 0 for step in steps)  # no card ruled out: play is mixed
        assert abs(weights[-1] - 1.0) < 1e-9
