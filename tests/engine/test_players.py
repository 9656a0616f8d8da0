"""Computer players and hints: legal cards, public information only, seeds, budgets."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kalimambo.engine import Game, PlayError, random_setup
from kalimambo.engine.ai_search import MEDIUM_WORK, iterations_for
from kalimambo.engine.players import LEVELS, Suggestion, choose_card, decide, suggest
from tests.helpers import NAMES

HINT_CODES = {"only_card", "escape_rhino", "avoid_dung", "avoid_kali", "safe_now",
              "plan_ahead"}


def game_after(players: int, rounds: int, seed: int) -> Game:
    """A game of ``players`` after ``rounds`` rounds of random cards."""
    rng = random.Random(seed)
    names = NAMES[:players]
    game = Game(names, random_setup(names, 32, rng), seed=seed)
    for _ in range(rounds):
        game.play_round({name: rng.choice(game.hand(name)) for name in names})
    return game


ROOMY_MS = 60_000
"""A budget that never bites: a deadline cut depends on the machine's load, so
the same seed gives the same choice only when the budget is not reached."""


def play_game(levels: list[str], seed: int) -> list[tuple[int, ...]]:
    """A whole game between the given levels; the cards of every round."""
    game = game_after(len(levels), 0, seed)
    while not game.finished:
        cards = {name: choose_card(level, game, name, seed, ROOMY_MS)
                 for name, level in zip(game.players, levels, strict=True)}
        game.play_round(cards)
    return [(*played.cards, played.kali) for played in game.rounds]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(3, 7), rounds=st.integers(0, 11), seed=st.integers(0, 10**6),
       level=st.sampled_from(LEVELS), seat=st.integers(0, 6))
def test_every_level_returns_a_card_from_the_hand(players: int, rounds: int, seed: int,
                                                  level: str, seat: int) -> None:
    game = game_after(players, rounds, seed)
    name = game.players[seat % players]
    card = choose_card(level, game, name, seed)
    assert card in game.hand(name)


@pytest.mark.parametrize("level", LEVELS)
def test_a_choice_changes_nothing_in_the_game(level: str) -> None:
    game = game_after(5, 3, 7)
    before = (game.record(), [set(h) for h in game.hands], list(game.kali_deck),
              game.board.positions[:], game.board.minus[:], game.board.rhino)
    choose_card(level, game, "Ben", 1)
    after = (game.record(), [set(h) for h in game.hands], list(game.kali_deck),
             game.board.positions[:], game.board.minus[:], game.board.rhino)
    assert before == after


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_the_order_of_kalis_deck_is_not_used(level: str) -> None:
    """Two games that differ only in the order of Kali's remaining cards look alike."""
    game = game_after(4, 4, 3)
    other = game_after(4, 4, 3)
    other.kali_deck.reverse()
    assert sorted(game.kali_deck) == sorted(other.kali_deck)
    assert game.kali_deck != other.kali_deck
    first = decide(level, game, "Caro", 5, budget_ms=ROOMY_MS)
    second = decide(level, other, "Caro", 5, budget_ms=ROOMY_MS)
    assert (first.card, first.scores) == (second.card, second.scores)


@pytest.mark.slow  # two whole games with every level searching at leisure: 3-4 s
def test_the_same_seed_gives_the_same_games() -> None:
    levels = ["hard", "medium", "easy", "random"]
    assert play_game(levels, 11) == play_game(levels, 11)


def test_different_seeds_give_different_games() -> None:
    levels = ["random", "random", "random"]
    games = {tuple(play_game(levels, seed)) for seed in range(4)}
    assert len(games) > 1


@pytest.mark.parametrize("level", ["medium", "hard"])
def test_a_tight_budget_cuts_the_search_short_but_still_answers(level: str) -> None:
    game = game_after(7, 0, 2)
    roomy = decide(level, game, "Ana", 3, budget_ms=ROOMY_MS)
    tight = decide(level, game, "Ana", 3, budget_ms=0.001)
    assert not roomy.cut_short
    assert tight.cut_short
    assert 0 < tight.iterations < roomy.iterations
    assert tight.card in game.hand("Ana")
    quick = decide(level, game, "Ana", 3, budget_ms=20)
    assert quick.card in game.hand("Ana")
    assert quick.ms < 20_000  # sanity only: the real figures are in bench/players.py


def test_the_work_shrinks_with_fewer_cards_and_rounds_left() -> None:
    early = decide("medium", game_after(5, 0, 4), "Ana", 1, budget_ms=ROOMY_MS)
    late = decide("medium", game_after(5, 8, 4), "Ana", 1, budget_ms=ROOMY_MS)
    assert early.iterations == iterations_for(MEDIUM_WORK, 12, 12, 5)
    assert late.iterations == iterations_for(MEDIUM_WORK, 4, 4, 5)
    assert late.iterations > early.iterations
    assert early.rollouts == early.iterations * 12


def test_medium_scores_every_card_in_hand() -> None:
    game = game_after(3, 5, 9)
    decision = decide("medium", game, "Ben", 2, budget_ms=ROOMY_MS)
    assert sorted(decision.scores) == game.hand("Ben")
    assert decision.card == min(decision.scores, key=decision.scores.__getitem__)


def test_the_last_card_is_played_without_search() -> None:
    game = game_after(3, 11, 5)
    for level in LEVELS:
        assert choose_card(level, game, "Ana", 0) == game.hand("Ana")[0]
    assert suggest(game, "Ana", 0) == Suggestion(game.hand("Ana")[0], "only_card", {})


@pytest.mark.parametrize("rounds", [0, 3, 7, 10])
def test_a_hint_is_a_card_in_hand_with_a_known_reason(rounds: int) -> None:
    game = game_after(5, rounds, 13)
    hint = suggest(game, "Dan", 4, ROOMY_MS)
    assert hint.card in game.hand("Dan")
    assert hint.code in HINT_CODES
    assert all(isinstance(v, int) for v in hint.params.values())
    assert suggest(game, "Dan", 4, ROOMY_MS) == hint
    assert hint.to_dict()["card"] == hint.card


def test_bad_requests_are_refused_with_a_clear_message() -> None:
    game = game_after(3, 0, 1)
    with pytest.raises(PlayError, match="no level"):
        choose_card("expert", game, "Ana", 1)
    with pytest.raises(PlayError, match="not at this table"):
        choose_card("easy", game, "Zoe", 1)
    with pytest.raises(ValueError, match="budget_ms"):
        choose_card("medium", game, "Ana", 1, budget_ms=0)
    finished = game_after(3, 12, 1)
    with pytest.raises(PlayError, match="over"):
        choose_card("easy", finished, "Ana", 1)
