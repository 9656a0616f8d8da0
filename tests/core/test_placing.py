"""The wooden pieces the people move by hand when the board jumps: worked out by the state
machine for an undo (after a round and mid-playback), a skip, a new game's set-up and a
restart mid-round; gone at the next reveal or the host's "Done"; said in the view.

The boards are checked against a fresh engine game fed the same record (``resolved``),
never against numbers copied from the code.
"""

from __future__ import annotations

from typing import Any

import pytest

from kalimambo.engine.timeline import BoardState
from kalimambo.web.core.happenings import PiecesPlaced, Settings
from kalimambo.web.core.placing import Placing, jump
from kalimambo.web.core.refusals import Kind, Refusal
from kalimambo.web.core.state import StateMachine, board_of
from tests.core.test_state import NAMES, SETUP, pick_round, resolved, skip, started, view


def targets(placing: dict[str, Any] | None) -> dict[str, tuple[int | None, int]]:
    """Each moved piece (a figure's name, "Mambo", "heap@N") with its from and to."""
    assert placing is not None
    found = {}
    for move in placing["moves"]:
        key = (move["name"] if move["piece"] in ("explorer", "kali")
               else "Mambo" if move["piece"] == "mambo" else f"heap@{move['to']}")
        found[key] = (move.get("from"), move["to"])
    return found


def expected(shown: BoardState, now: BoardState) -> dict[str, tuple[int | None, int]]:
    moved = {name: (shown.positions.get(name), space)
             for name, space in now.positions.items() if shown.positions.get(name) != space}
    if now.rhino is not None and now.rhino != shown.rhino:
        moved["Mambo"] = (shown.rhino, now.rhino)
    return moved


def test_a_new_game_names_every_piece_to_set_up_until_the_first_reveal() -> None:
    state = started()
    placing = view(state)["placing"]
    assert placing["reason"] == "setup"
    game = resolved(state, 0)
    assert targets(placing) == {**{name: (None, space) for name, space
                                   in game.positions().items()},
                                "Mambo": (None, SETUP["rhino"]),
                                **{f"heap@{d}": (None, d) for d in SETUP["dung"]}}
    assert [m["piece"] for m in placing["moves"]][:3] == ["heap", "heap", "mambo"]
    pick_round(state)
    assert view(state)["placing"] is not None  # step pacing: nothing revealed yet
    state.next_step(1.0)
    assert view(state)["placing"] is None  # the reveal: the displays lead again


def test_an_undo_after_a_round_names_each_piece_back_from_where_it_stands() -> None:
    state = started()
    state.placed()
    for _ in range(2):
        pick_round(state)
        skip(state)
    state.placed()  # the skip's pieces were moved
    after = board_of(resolved(state, 2))
    state.apply(state.plan_undo(), 5.0)
    placing = view(state)["placing"]
    assert placing["reason"] == "undo" and placing["round"] == 2
    assert targets(placing) == expected(after, board_of(resolved(state, 1)))
    assert targets(placing)  # round 2 moved something


def test_an_undo_mid_playback_starts_from_the_step_on_display() -> None:
    state = started()
    state.placed()
    pick_round(state)
    for _ in range(3):
        state.next_step(1.0)
    playback = state.playback
    assert playback is not None
    on_display = playback.board()
    state.apply(state.plan_undo(), 2.0)
    placing = view(state)["placing"]
    want = expected(on_display, board_of(resolved(state, 0)))
    if want:
        assert placing["reason"] == "undo" and targets(placing) == want
    else:
        assert placing is None


def test_an_undo_at_the_rounds_first_step_moves_nothing() -> None:
    state = started()
    state.placed()
    pick_round(state)
    state.next_step(1.0)  # the reveal: no figure moved yet
    state.apply(state.plan_undo(), 2.0)
    assert view(state)["placing"] is None


def test_an_undo_before_the_reveal_keeps_what_was_still_to_place() -> None:
    """The set-up was not placed yet (no Done) and round 1 is taken back before its
    reveal: the displays never moved, so the set-up's list stays."""
    state = started()
    setup = view(state)["placing"]
    pick_round(state)
    state.apply(state.plan_undo(), 2.0)
    assert view(state)["placing"] == setup


def test_a_skip_names_the_pieces_from_the_step_on_display_to_the_rounds_end() -> None:
    state = started()
    pick_round(state)
    state.next_step(1.0)
    state.next_step(1.0)
    playback = state.playback
    assert playback is not None
    on_display = playback.board()
    skip(state)
    placing = view(state)["placing"]
    assert placing["reason"] == "skip" and placing["round"] == 1
    assert targets(placing) == expected(on_display, board_of(resolved(state, 1)))


def test_the_hosts_done_ends_it_and_a_second_done_is_refused() -> None:
    state = started()
    before = state.snapshot()
    assert state.placed() == [PiecesPlaced()]
    assert view(state)["placing"] is None and state.snapshot() != before
    after = state.snapshot()
    with pytest.raises(Refusal, match="no pieces") as refused:
        state.placed()
    assert refused.value.kind is Kind.CONFLICT and state.snapshot() == after


def test_a_restart_mid_playback_names_the_pieces_the_round_moves_back() -> None:
    state = started()
    state.placed()
    pick_round(state)
    assert state.game is not None
    record = state.game.record()
    rounds = [(r["cards"], r["kali"]) for r in record["rounds"]]
    fresh = resolved(state, 0)
    restored = StateMachine.restore(32, Settings(False, "step", 500), state.seats, fresh,
                                    rounds, {}, play_last_again=True, now=0.0)
    placing = view(restored)["placing"]
    before, after = board_of(resolved(state, 0)), board_of(resolved(state, 1))
    assert placing["reason"] == "restart" and placing["round"] == 1
    assert targets(placing) == {key: (None, to) for key, (_, to)
                                in expected(after, before).items()}


def test_a_restart_keeps_the_pieces_that_were_waiting() -> None:
    state = started()
    kept = Placing.from_public(view(state)["placing"])
    assert kept == state.placing  # the store's copy reads back the same
    record = resolved(state, 0)
    restored = StateMachine.restore(32, Settings(False, "step", 500), state.seats, record,
                                    [], {}, play_last_again=False, now=0.0, placing=kept)
    assert view(restored)["placing"] == view(state)["placing"]


def test_a_broken_stored_placing_reads_as_none() -> None:
    for broken in (None, [], {"reason": "undo"}, {"reason": "nope", "round": 1, "moves": []},
                   {"reason": "undo", "round": 1, "moves": [{"piece": "explorer"}]}):
        assert Placing.from_public(broken) is None


def test_jump_lists_explorers_in_seat_order_then_kali_then_mambo() -> None:
    shown = BoardState(3, {"Kali": 1, NAMES[1]: 2, NAMES[0]: 4}, {})
    now = BoardState(5, {NAMES[0]: 6, "Kali": 7, NAMES[1]: 8}, {})
    placing = jump("undo", 1, shown, now)
    assert placing is not None
    assert [(m.piece, m.name) for m in placing.moves] == [
        ("explorer", NAMES[0]), ("explorer", NAMES[1]), ("kali", "Kali"), ("mambo", None)]
    assert jump("undo", 1, shown, shown) is None
