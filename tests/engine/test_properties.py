"""Property-based tests over random legal games of 3-7 players on tracks from 10 up."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bench import reference_rules
from kalimambo.engine import (
    KALI,
    Dung,
    Event,
    Game,
    Move,
    Penalty,
    RhinoRun,
    RoundEnd,
    Stay,
    event_from_dict,
    parse_record,
    random_setup,
    resolve_record,
)
from kalimambo.engine.setup import HEAP_SPACING
from tests.helpers import NAMES, random_record


@st.composite
def games(draw: st.DrawFn, min_length: int = 10) -> tuple[Game, list[dict[str, int]]]:
    """A new game (Kali's deck seeded) plus every round's cards."""
    players = draw(st.integers(3, 7))
    length = draw(st.integers(max(min_length, players + 3), 48))
    seed = draw(st.integers(0, 2**32))
    rng = random.Random(seed)
    names = NAMES[:players]
    game = Game(names, random_setup(names, length, rng), length, seed=seed)
    hands = {name: rng.sample(range(12), 12) for name in names}
    rounds = [{name: hands[name][r] for name in names} for r in range(12)]
    return game, rounds


def snapshot(game: Game) -> dict[str, Any]:
    return {"rhino": game.board.rhino, "positions": game.positions(),
            "minus": game.minus_points(), "order": list(game.board.order),
            "hands": [set(h) for h in game.hands], "deck": list(game.kali_deck),
            "rounds": list(game.rounds)}


def check_group(rhino: int, positions: dict[str, int], length: int) -> None:
    spaces = list(positions.values())
    assert len(set(spaces)) == len(spaces), "two figures on one space"
    assert rhino not in spaces, "a figure on Mambo's space"
    assert min((s - rhino) % length for s in spaces) == 1, "Mambo not right behind the last"


def apply(event: Event, rhino: int, positions: dict[str, int],
          minus: dict[str, int]) -> int:
    """Play one event onto a plain state; return Mambo's space."""
    if isinstance(event, Move):
        assert positions[event.figure] == event.from_space
        positions[event.figure] = event.to_space
    elif isinstance(event, RhinoRun):
        assert event.from_space == rhino
        rhino = event.to_space
    elif isinstance(event, Penalty):
        minus[event.player] += event.points
        assert minus[event.player] == event.total
    elif isinstance(event, Stay):
        assert positions[event.figure] == event.space
    return rhino


@settings(max_examples=150, deadline=None)
@given(games())
def test_invariants_after_every_step(case: tuple[Game, list[dict[str, int]]]) -> None:
    game, rounds = case
    length = game.track_length
    rhino = game.board.rhino
    positions = game.positions()
    minus = game.minus_points()
    check_group(rhino, positions, length)
    for cards in rounds:
        hands_before = [set(h) for h in game.hands]
        deck_before = len(game.kali_deck)
        events = [event_from_dict(e.to_dict()) for e in game.play_round(cards)]
        for seat, name in enumerate(game.players):
            assert cards[name] in hands_before[seat]
            assert game.hands[seat] == hands_before[seat] - {cards[name]}
        assert len(game.kali_deck) == deck_before - 1
        previous = dict(minus)
        for event in events:
            if isinstance(event, Move | Stay):
                check_group(rhino, positions, length)  # each figure acts on a settled group
            rhino = apply(event, rhino, positions, minus)
            assert all(minus[name] >= previous[name] for name in minus)
            previous = dict(minus)
            assert len(set(positions.values())) == len(positions)
        check_group(rhino, positions, length)
        # Replaying the events from the start reconstructs the state.
        assert rhino == game.board.rhino
        assert positions == game.positions()
        assert minus == game.minus_points()
        assert isinstance(events[-1], RoundEnd)
    assert game.finished
    assert all(not hand for hand in game.hands) and not game.kali_deck


@settings(max_examples=150, deadline=None)
@given(games(), st.data())
def test_undo_restores_exactly(case: tuple[Game, list[dict[str, int]]],
                               data: st.DataObject) -> None:
    game, rounds = case
    stop = data.draw(st.integers(0, 11))
    for cards in rounds[:stop]:
        game.play_round(cards)
    before = snapshot(game)
    game.play_round(rounds[stop])
    game.undo()
    assert snapshot(game) == before
    # and the same round played again gives the same result as before the undo
    again = game.play_round(rounds[stop])
    game.undo()
    assert game.play_round(rounds[stop]) == again


@settings(max_examples=300, deadline=None)
@given(st.integers(3, 7), st.integers(0, 2**32), st.data())
def test_agrees_with_plain_reading_of_rules(players: int, seed: int, data: st.DataObject) -> None:
    """The fast engine matches a distance-by-distance reading of RULES.md, short loops too."""
    length = data.draw(st.integers(players + 3, 40))
    record = random_record(random.Random(seed), players, length)
    result = resolve_record(parse_record(record))
    setup = record["setup"]
    rhino = setup["rhino"]
    positions = {name: (rhino + 1 + i) % length for i, name in enumerate(setup["order"])}
    positions[KALI] = (rhino + 1 + players) % length
    minus = dict.fromkeys(record["players"], 0)
    for number, entry in enumerate(record["rounds"]):
        rhino = reference_rules.play_round(length, rhino, positions, set(setup["dung"]),
                                           minus, entry["cards"], entry["kali"])
        snap = result["snapshots"][number]
        assert (snap["rhino"], snap["positions"], snap["minus_points"]) == (
            rhino, positions, minus)


def test_loop_full_really_happens_on_short_tracks() -> None:
    """The differential test above reaches the loop-full ruling, not just easy cases."""
    seen = 0
    for seed in range(300):
        rng = random.Random(seed)
        players = rng.randint(3, 7)
        record = random_record(rng, players, players + 3)
        game = parse_record({**record, "rounds": []}).to_game()
        for entry in record["rounds"]:
            events = game.play_round(entry["cards"], entry["kali"])
            seen += sum(isinstance(e, Move) and e.passed_rhino for e in events)
    assert seen > 50


def test_dung_events_come_before_the_rhino_runs() -> None:
    """Within one move, dung is scored before Mambo runs (RULES.md 10)."""
    found = False
    for seed in range(400):
        rng = random.Random(seed)
        record = random_record(rng, rng.randint(3, 7))
        game = parse_record({**record, "rounds": []}).to_game()
        for entry in record["rounds"]:
            events = game.play_round(entry["cards"], entry["kali"])
            for i, event in enumerate(events):
                if isinstance(event, RhinoRun) and isinstance(events[i - 2], Dung):
                    found = True
                    assert isinstance(events[i - 1], Penalty)
                    assert isinstance(events[i - 3], Move)
    assert found


@settings(max_examples=300, deadline=None)
@given(players=st.integers(3, 7), extra=st.integers(0, 40), seed=st.integers(0, 2**32))
def test_generated_setups_follow_the_heap_ruling(players: int, extra: int, seed: int) -> None:
    """RULES.md's ruling on generated set-ups: heaps on free spaces, none right in front
    of Kali, each at least HEAP_SPACING from the next where the track allows it."""
    length = players + 3 + extra
    names = [f"P{i}" for i in range(players)]
    setup = random_setup(names, length, random.Random(seed))
    figures = set(setup.positions(length).values()) | {setup.rhino}
    kali = setup.positions(length)["Kali"]
    assert not figures & set(setup.dung)
    assert (kali + 1) % length not in setup.dung
    assert len(set(setup.dung)) == len(setup.dung) == min(6, length - players - 3)
    if length >= players + 3 + 6 * HEAP_SPACING:
        spaces = sorted(setup.dung)
        gaps = [(b - a) % length for a, b in zip(spaces, spaces[1:] + spaces[:1], strict=True)]
        assert min(gaps) >= HEAP_SPACING


def test_generated_setups_use_every_free_space() -> None:
    """The space right behind Mambo is free too; a generator that never uses it is off by
    one (it once put heaps right in front of Kali instead)."""
    behind_mambo = 0
    for seed in range(400):
        setup = random_setup(["A", "B", "C"], 32, random.Random(seed))
        behind_mambo += (setup.rhino - 1) % 32 in setup.dung
    assert behind_mambo > 0
