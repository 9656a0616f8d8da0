"""The table's state machine alone: no Flask, no threads, no store, no clock.

Time is a number the test passes; ids and token hashes are made up here; the engine
plays the rounds.  What is checked: a whole game through lobby, picking, playing
(step by step) and finished; undo during the playback; a new game keeping the seats;
every refused command leaving the state exactly as it was; and, for random command
sequences, that the cursor stays in range and the board at its end is the record's.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kalimambo.engine import Game, Reveal, RoundEnd
from kalimambo.engine.players import DEFAULT_LEVEL
from kalimambo.engine.rules import ROUNDS
from kalimambo.engine.setup import Setup
from kalimambo.engine.timeline import END_SECONDS, board_at
from kalimambo.web.core.happenings import (
    GameFinished,
    GameStarted,
    LobbyOpened,
    PickMade,
    PlaybackEnded,
    RoundOpened,
    RoundResolved,
    RoundUndone,
    SeatsChanged,
    Settings,
    StepShown,
)
from kalimambo.web.core.plans import PickCard, ResolveRound
from kalimambo.web.core.refusals import Refusal
from kalimambo.web.core.state import StateMachine
from kalimambo.web.core.view import Surroundings, public_view
from kalimambo.web.core.viewtypes import StorageView

NAMES = ["Ana", "Ben", "Caro"]
SETUP = {"rhino": 0, "order": NAMES, "dung": [10, 20]}
LEVELS = ("random", "easy", "medium", "hard")


def ids() -> Callable[[set[str]], str]:
    counter = itertools.count()
    return lambda taken: next(f"s{n}" for n in counter if f"s{n}" not in taken)


def table(pacing: str = "step") -> StateMachine:
    return StateMachine(32, Settings(False, pacing, 500))


def join(state: StateMachine, name: str) -> None:
    plan = state.plan_join(name, hosted=False, token_hash=f"hash-{name}",
                           new_id=lambda taken: f"id-{name}")
    assert state.apply(plan, 0.0) == [SeatsChanged((*[s.name for s in state.seats[:-1]],
                                                    name))]


def started(pacing: str = "step") -> StateMachine:
    state = table(pacing)
    for name in NAMES:
        join(state, name)
    happened = state.apply(state.plan_start(SETUP, 1, 2), 0.0)
    assert happened == [GameStarted(tuple(NAMES)), RoundOpened(1)]
    return state


def view(state: StateMachine) -> dict[str, Any]:
    storage: StorageView = {"ok": True, "error": None, "in_memory": False}
    return public_view(state, Surroundings(1, 1, "", {}, storage, 0.0, lambda name: False))


def resolved(state: StateMachine, rounds: int | None = None) -> Game:
    """A fresh engine game fed the state's record (its first ``rounds`` rounds)."""
    assert state.game is not None
    record = state.game.record()
    game = Game(record["players"], Setup(record["setup"]["rhino"],
                                         tuple(record["setup"]["order"]),
                                         tuple(record["setup"]["dung"])), 32)
    for played in record["rounds"][:rounds]:
        game.play_round(played["cards"], played["kali"])
    return game


def shows(view: dict[str, Any], game: Game) -> bool:
    return (view["positions"] == game.positions() and view["rhino"] == game.board.rhino
            and {s["name"]: s["minus_points"] for s in view["seats"]} == game.minus_points())


def pick_round(state: StateMachine, now: float = 0.0, offset: int = 0) -> list[Any]:
    """Everyone picks a card still in hand; what the last pick did."""
    assert state.game is not None
    round_no = state.game.current_round
    happened: list[Any] = []
    for i, name in enumerate(NAMES):
        hand = state.game.hand(name)
        plan = state.plan_pick(name, round_no, hand[(i * 5 + round_no + offset) % len(hand)])
        assert isinstance(plan, ResolveRound if i == len(NAMES) - 1 else PickCard)
        happened = state.apply(plan, now)
    return happened


def skip(state: StateMachine) -> list[Any]:
    """"Skip" as the table does it: one jump per step left, until the playback ends;
    what the last jump did."""
    happened = state.skip_step()
    while state.playing:
        happened = state.skip_step()
    return happened


def test_a_whole_game_lobby_picking_playing_finished() -> None:
    state = table()
    assert state.phase == "lobby" and view(state)["playback"] is None
    for name in NAMES:
        join(state, name)
    state.apply(state.plan_start(SETUP, 1, 2), 0.0)
    for round_no in range(1, ROUNDS + 1):
        assert state.phase == "picking" and view(state)["round"] == round_no
        happened = pick_round(state)
        assert [type(e) for e in happened] == [PickMade, RoundResolved]
        played = happened[1].played
        assert played.round == round_no and isinstance(played.events[0], Reveal)
        assert state.phase == "playing" and state.picks == {}
        playback = state.playback
        assert playback is not None and playback.step == 0
        assert shows(view(state), resolved(state, round_no - 1))  # k = 0: the board before
        assert view(state)["history"] == [p.to_dict() for p in state.history[:-1]]
        shown: list[Any] = []
        while state.phase == "playing":
            with pytest.raises(Refusal, match="still being played"):
                state.plan_pick(NAMES[0], round_no, 0)
            step = state.next_step(1.0)
            assert isinstance(step[0], StepShown) and step[0].step == playback.step
            assert 0 < playback.step <= playback.total
            shown += played.events[step[0].first:step[0].first + step[0].count]
        ending = step[1:]
        end = ending[0]
        assert isinstance(end, PlaybackEnded) and end.round == round_no
        # every event shown once, in order; the round's end told with the end
        assert [*shown, *played.events[end.first:]] == list(played.events)
        assert isinstance(played.events[end.first], RoundEnd)
        assert end.seconds == END_SECONDS and not end.skipped
        if round_no < ROUNDS:
            assert ending[1:] == [RoundOpened(round_no + 1)]
        else:
            assert ending[1:] == [GameFinished(tuple(resolved(state).winners()))]
        assert shows(view(state), resolved(state))  # k = m: the record's result
    assert state.phase == "finished"
    final = view(state)
    assert final["winners"] == resolved(state).winners() and len(final["history"]) == ROUNDS
    with pytest.raises(Refusal, match="game is over"):
        state.plan_pick(NAMES[0], ROUNDS + 1, 0)


def test_auto_pacing_shows_the_reveal_at_once_then_steps_on_the_given_clock() -> None:
    state = started("auto")
    happened = pick_round(state, now=10.0)
    assert [type(e) for e in happened] == [PickMade, RoundResolved, StepShown]
    reveal = happened[2]
    assert isinstance(reveal, StepShown) and reveal.kind == "reveal"
    assert (reveal.first, reveal.count, reveal.step) == (0, 1, 1)
    assert isinstance(state.history[-1].events[0], Reveal)
    due = state.due
    assert due is not None and due > 10.0
    assert state.tick(due - 0.001) == []  # not yet
    now = due
    while state.phase == "playing":
        step = state.tick(now)
        assert step and isinstance(step[0], StepShown)
        now = state.due if state.due is not None else now
    assert state.due is None and state.phase == "picking"


def test_the_next_round_waits_for_the_last_step_to_have_its_time() -> None:
    """Picks that come at once (computer players) do not cut the last step short: the
    round is resolved, and its reveal shown once the last round's last step has had its
    pause."""
    state = started("auto")
    pick_round(state, now=10.0)
    now = 10.0
    while state.phase == "playing":
        assert state.due is not None
        now = state.due
        state.tick(now)
    assert state.playback is not None and state.playback.until is not None
    last_step_over = state.playback.until
    assert last_step_over > now
    happened = pick_round(state, now=now + 0.01)
    assert [type(e) for e in happened] == [PickMade, RoundResolved]
    assert state.due == last_step_over
    assert state.tick(last_step_over - 0.001) == []
    shown = state.tick(last_step_over)
    assert isinstance(shown[0], StepShown) and shown[0].kind == "reveal"


def test_undo_during_the_playback_takes_the_round_back() -> None:
    state = started()
    pick_round(state)
    before = view(state)
    for _ in range(3):
        state.next_step(0.0)
    hands = {name: state.game.hand(name) for name in NAMES}  # type: ignore[union-attr]
    plan = state.plan_undo()
    assert plan.round == 1 and plan.stops_playback
    assert state.apply(plan, 0.0) == [RoundUndone(1, True), RoundOpened(1)]
    after = view(state)
    assert after["phase"] == "picking" and after["round"] == 1 and after["undone"] == 1
    assert after["playback"] is None and after["history"] == []
    assert after["positions"] == before["positions"]
    assert all(state.game.hand(n) == list(range(12)) for n in NAMES)  # type: ignore[union-attr]
    assert hands != {n: list(range(12)) for n in NAMES}
    pick_round(state)
    assert state.undone is None  # the next round clears "Round 1 undone"


def test_a_new_game_keeps_the_seats_unless_asked_not_to() -> None:
    state = started()
    pick_round(state)
    seats = list(state.seats)
    epoch = state.epoch
    assert state.apply(state.plan_new_game(True), 0.0) == [LobbyOpened(True, True)]
    assert state.phase == "lobby" and state.seats == seats and state.epoch == epoch + 1
    assert state.history == [] and state.playback is None and state.game is None
    state.apply(state.plan_start(SETUP, 1, 2), 0.0)  # the same seats can start again
    assert state.apply(state.plan_new_game(False), 0.0) == [LobbyOpened(False, False)]
    assert state.seats == []


def test_computer_players_waiting_to_pick() -> None:
    state = table()
    join(state, "Ana")
    plan = state.plan_bots(2, None, LEVELS, new_hash=lambda: "h", new_id=ids())
    assert [s.bot_level for s in plan.seats] == [DEFAULT_LEVEL] * 2
    state.apply(plan, 0.0)
    assert state.waiting_bots() == []  # nothing to pick in the lobby
    state.apply(state.plan_start(None, 5, 6), 0.0)
    assert [s.name for s in state.waiting_bots()] == [s.name for s in state.seats[1:]]
    bot = state.seats[1]
    state.apply(state.plan_pick(bot.name, 1, 3), 0.0)
    assert bot not in state.waiting_bots()


def refusals(state: StateMachine) -> list[tuple[str, Callable[[], object]]]:
    """Commands that must be refused in ``state`` (by phase), with their error codes."""
    game = state.game
    out: list[tuple[str, Callable[[], object]]] = [
        ("bad_setting", lambda: state.plan_settings({"colour": "red"})),
        ("bad_setting", lambda: state.plan_settings({"pause_ms": 5})),
        ("bad_setting", lambda: state.plan_settings({"hints": "yes"})),
        ("bad_keep_seats", lambda: state.plan_new_game("no")),
    ]
    if game is None:
        out += [("not_started", lambda: state.plan_pick("Ana", 1, 0)),
                ("not_started", state.plan_undo),
                ("not_playing", lambda: state.next_step(0.0)),
                ("not_playing", state.skip_step),
                ("name_taken", lambda: state.plan_join("kali", hosted=False, token_hash="x")),
                ("bad_name", lambda: state.plan_join("", hosted=False, token_hash="x")),
                ("no_such_seat", lambda: state.plan_remove("Zed")),
                ("no_such_seat", lambda: state.plan_remove(seat_id="nope")),
                ("bad_count", lambda: state.plan_bots(0, None, LEVELS, new_hash=str)),
                ("bad_level", lambda: state.plan_bots(1, "godlike", LEVELS, new_hash=str)),
                ("table_full", lambda: state.plan_bots(9, None, LEVELS, new_hash=str)),
                ("bad_setup" if len(state.seats) >= 3 else "too_few_players",
                 lambda: state.plan_start({"rhino": 99}, 1, 2))]
        if state.seats:
            out += [("name_taken",
                     lambda: state.plan_join(" ANA ", hosted=False, token_hash="x"))]
        return out
    out += [("already_started", lambda: state.plan_join("Dan", hosted=False, token_hash="x")),
            ("already_started", lambda: state.plan_remove("Ana")),
            ("already_started", lambda: state.plan_start(None, 1, 2))]
    if state.playing:
        out += [("playing", lambda: state.plan_pick("Ana", game.current_round, 0))]
    elif game.finished:
        out += [("game_over", lambda: state.plan_pick("Ana", 13, 0)),
                ("not_playing", lambda: state.next_step(0.0))]
    else:
        played = [c for c in range(12) if c not in game.hand("Ana")]
        out += [("bad_round", lambda: state.plan_pick("Ana", "1", 0)),
                ("bad_round", lambda: state.plan_pick("Ana", True, 0)),
                ("wrong_round", lambda: state.plan_pick("Ana", game.current_round + 1, 0)),
                ("bad_card", lambda: state.plan_pick("Ana", game.current_round, 12)),
                ("bad_card", lambda: state.plan_pick("Ana", game.current_round, "3")),
                ("not_playing", lambda: state.next_step(0.0)),
                ("not_playing", state.skip_step)]
        if played:
            out += [("card_not_in_hand",
                     lambda: state.plan_pick("Ana", game.current_round, played[0]))]
        if not game.rounds:
            out += [("nothing_to_undo", state.plan_undo)]
    return out


def check_refusals(state: StateMachine) -> None:
    for code, command in refusals(state):
        before = state.snapshot()
        with pytest.raises(Refusal) as refused:
            command()
            pytest.fail(f"{code} was not refused")
        assert refused.value.code == code
        assert state.snapshot() == before, code


def test_bad_input_leaves_the_state_untouched_in_every_phase() -> None:
    state = table()
    check_refusals(state)  # lobby, no seats
    for name in NAMES:
        join(state, name)
    check_refusals(state)  # lobby, seated
    state.apply(state.plan_start(SETUP, 1, 2), 0.0)
    check_refusals(state)  # picking, round 1
    pick_round(state)
    check_refusals(state)  # playing
    skip(state)
    check_refusals(state)  # picking, round 2
    for _ in range(ROUNDS - 1):
        pick_round(state)
        skip(state)
    assert state.phase == "finished"
    check_refusals(state)


def test_a_plan_is_applied_only_to_the_state_it_was_made_for() -> None:
    state = started()
    first = state.plan_pick("Ana", 1, 0)
    second = state.plan_pick("Ben", 1, 1)
    state.apply(first, 0.0)
    with pytest.raises(RuntimeError, match="revision"):
        state.apply(second, 0.0)
    assert state.picks == {"Ana": 0}


def test_restore_plays_the_last_round_again_from_its_first_step() -> None:
    state = started()
    pick_round(state)
    skip(state)
    pick_round(state)
    assert state.game is not None
    rounds = [(dict(zip(NAMES, r.cards, strict=True)), r.kali) for r in state.game.rounds]
    deck = [*state.game.kali_deck, *(r.kali for r in reversed(state.game.rounds))]
    fresh = Game(NAMES, state.game.setup, 32, kali_deck=deck)
    again = StateMachine.restore(32, state.settings, state.seats, fresh, rounds, {}, True, 0.0)
    assert again.phase == "playing" and again.playback is not None
    assert again.playback.step == 0 and again.playback.round == 2
    assert again.history == state.history
    picking = StateMachine.restore(32, state.settings, state.seats,
                                   Game(NAMES, state.game.setup, 32, kali_deck=deck),
                                   rounds, {"Ana": 4}, False, 0.0)
    assert picking.phase == "picking" and picking.picks == {"Ana": 4}


COMMANDS = ("join", "bots", "remove", "start", "pick_any", "next", "skip", "tick", "undo",
            "new_game", "pacing", *["pick"] * 8)
"""Mostly picks by seats still to pick, so random runs get through rounds."""


def run(state: StateMachine, command: str, n: int, now: float) -> None:
    """One command with arguments drawn from ``n`` (Refusal when refused)."""
    names = [s.name for s in state.seats]
    game = state.game
    if command == "join":
        state.apply(state.plan_join(f"P{n % 9}", hosted=n % 2 == 0, token_hash=f"h{n}",
                                    new_id=lambda taken: f"p{len(taken)}-{n}"), now)
    elif command == "bots":
        state.apply(state.plan_bots(1 + n % 3, LEVELS[n % 2], LEVELS,
                                    new_hash=lambda: f"b{n}", new_id=ids()), now)
    elif command == "remove":
        state.apply(state.plan_remove(names[n % len(names)] if names else "nobody"), now)
    elif command == "start":
        state.apply(state.plan_start(None, n, n + 1), now)
    elif command in ("pick", "pick_any"):
        waiting = [name for name in names if name not in state.picks]
        choice = waiting if command == "pick" and waiting else names
        player = choice[n % len(choice)] if choice else "nobody"
        hand = (game.hand(player) if game and player in game.seat else []) or [n % 12]
        round_no = game.current_round if game and command == "pick" else n % 14
        state.apply(state.plan_pick(player, round_no, hand[n % len(hand)]), now)
    elif command == "next":
        state.next_step(now)
    elif command == "skip":
        state.skip_step()
    elif command == "tick":
        state.tick(now)
    elif command == "undo":
        state.apply(state.plan_undo(), now)
    elif command == "new_game":
        state.apply(state.plan_new_game(n % 3 != 0), now)
    elif command == "pacing":
        state.apply(state.plan_settings({"pacing": ("auto", "step")[n % 2],
                                         "pause_ms": 100 + n}), now)


def check_invariants(state: StateMachine) -> None:
    game = state.game
    playback = state.playback
    current = view(state)
    assert current["phase"] == state.phase
    if game is None:
        assert state.phase == "lobby" and not state.history and playback is None
        assert not state.picks
        return
    assert len(state.history) == game.rounds_played
    assert set(state.picks) <= {s.name for s in state.seats}
    assert len(state.picks) < len(state.seats)
    if state.playing:
        assert playback is not None and not state.picks
        assert 0 <= playback.step < playback.total
        board = playback.board()  # the view shows the board as of the cursor
        assert (current["positions"], current["rhino"]) == (board.positions, board.rhino)
        if playback.step == 0:
            assert shows(current, resolved(state, game.rounds_played - 1))
        # the cursor's end is exactly the record's result
        end = board_at(playback.before, playback.steps, playback.total)
        full = resolved(state)
        assert (end.positions, end.rhino, end.minus_points) == (
            full.positions(), full.board.rhino, full.minus_points())
    else:
        assert playback is None or playback.step == playback.total
        assert shows(current, resolved(state))
        assert state.phase == ("finished" if game.finished else "picking")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(COMMANDS), st.integers(0, 10_000)),
                min_size=10, max_size=150),
       st.sampled_from(("auto", "step")), st.integers(-1, ROUNDS))
def test_random_commands_never_break_the_invariants(commands: list[tuple[str, int]],
                                                    pacing: str, played: int) -> None:
    """From a seated lobby (``played`` -1) or a game ``played`` rounds in."""
    state = table(pacing)
    for name in NAMES:
        join(state, name)
    if played >= 0:
        state.apply(state.plan_start(SETUP, played, 2), 0.0)
        for _ in range(played):
            pick_round(state)
            skip(state)
    now = 0.0
    for command, n in commands:
        now += (n % 7) * 0.3
        before = state.snapshot()
        try:
            run(state, command, n, now)
        except Refusal:
            assert state.snapshot() == before, command
        check_invariants(state)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.sampled_from(("next", "skip", "tick", "undo")),
                                       min_size=1, max_size=30))
def test_random_playbacks_end_on_the_records_board(seed: int, moves: list[str]) -> None:
    """Seats only pick when the round is open; the playback is driven at random."""
    state = started("auto")
    now = 0.0
    rounds = 0
    for move in itertools.cycle(moves):
        if state.phase == "finished" or rounds > 40:
            break
        if state.phase == "picking":
            pick_round(state, now, offset=seed % 12)
            rounds += 1
            continue
        now += 0.5 + (seed % 5)
        with contextlib.suppress(Refusal):
            if move == "next":
                state.next_step(now)
            elif move == "skip":
                skip(state)
            elif move == "tick":
                state.tick(now)
            else:
                state.apply(state.plan_undo(), now)
        check_invariants(state)
