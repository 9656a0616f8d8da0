"""A round's events tell the whole story, in order, with reasons (RULES.md by example)."""

from __future__ import annotations

import pytest

from kalimambo.engine import (
    Dung,
    Game,
    Move,
    Penalty,
    PlayError,
    Reveal,
    RhinoRun,
    RoundEnd,
    Setup,
    Stay,
)

PLAYERS = ("Ana", "Ben", "Caro")


def new_game(dung: tuple[int, ...] = (), length: int = 32) -> Game:
    # Mambo on 0; Ana 1, Ben 2, Caro 3, Kali 4.
    return Game(PLAYERS, Setup(0, PLAYERS, dung), length, kali_deck=list(range(12)))


def test_a_plain_round_reads_in_order() -> None:
    game = new_game(dung=(5,))
    events = game.play_round({"Ana": 9, "Ben": 4, "Caro": 0}, kali=11)
    assert events == [
        Reveal(1, {"Ana": 9, "Ben": 4, "Caro": 0}, 11),
        Stay("Kali", 11, 4, "front"),
        Move("Ana", 9, 1, 5),
        Dung("Ana", 5),
        Penalty("Ana", 3, "dung", "Ana", 3),
        RhinoRun(0, 1, 1, "Ben"),
        Penalty("Ben", 1, "rammed", "Ben", 1),
        Move("Ben", 4, 2, 6),
        RhinoRun(1, 2, 1, "Caro"),
        Penalty("Caro", 1, "rammed", "Caro", 1),
        Stay("Caro", 0, 3, "zero"),
        RoundEnd(1, {"Ana": 3, "Ben": 1, "Caro": 1}, False),
    ]


def test_tie_goes_to_the_figure_furthest_behind_and_kali_counts() -> None:
    game = new_game()
    events = game.play_round({"Ana": 3, "Ben": 7, "Caro": 7}, kali=7)
    stays = [e for e in events if isinstance(e, Stay)]
    moves = [e for e in events if isinstance(e, Move)]
    assert [(m.figure, m.to_space) for m in moves] == [("Ben", 5), ("Ana", 6)]
    assert Stay("Caro", 7, 3, "tie", "Ben") in stays
    assert Stay("Kali", 7, 4, "tie", "Ben") in stays


def test_kali_dung_goes_to_every_lowest_card() -> None:
    # Ana (9) leads off to 5, then Kali (8) moves ahead of her onto the heap at 6.
    game = new_game(dung=(6,))
    events = game.play_round({"Ana": 9, "Ben": 2, "Caro": 2}, kali=8)
    penalties = [e for e in events if isinstance(e, Penalty) and e.for_kali]
    assert penalties == [Penalty("Ben", 3, "dung", "Kali", 4, True),
                         Penalty("Caro", 3, "dung", "Kali", 3, True)]


def test_kali_rammed_pays_the_lowest_card() -> None:
    # Everyone in front of Mambo leaves in turn, so Mambo finally rams Kali.
    game = new_game()
    events = game.play_round({"Ana": 9, "Ben": 8, "Caro": 7}, kali=0)
    assert RhinoRun(2, 3, 1, "Kali") in events
    assert Penalty("Caro", 1, "rammed", "Kali", 2, True) in events


def test_loop_full_runs_past_mambo() -> None:
    # Track of 6: Mambo 0, Ana 1, Ben 2, Caro 3, Kali 4, free 5.  Ben fills space 5;
    # the space ahead of the front is then Mambo's, so Caro and Kali run on past him
    # into the first free spaces, inside the group.
    game = new_game(length=6)
    events = game.play_round({"Ana": 0, "Ben": 9, "Caro": 8}, kali=1)
    moves = [e for e in events if isinstance(e, Move)]
    assert moves == [Move("Ben", 9, 2, 5), Move("Caro", 8, 3, 2, True),
                     Move("Kali", 1, 4, 3, True)]
    assert game.board.rhino == 0 and game.minus_points() == {"Ana": 0, "Ben": 0, "Caro": 0}


def test_refused_cards_change_nothing() -> None:
    game = new_game()
    game.play_round({"Ana": 1, "Ben": 2, "Caro": 3})
    before = (game.positions(), game.minus_points(), [set(h) for h in game.hands],
              list(game.kali_deck), list(game.rounds))
    for cards, code in [({"Ana": 1, "Ben": 4, "Caro": 5}, "card_not_in_hand"),
                        ({"Ana": 12, "Ben": 4, "Caro": 5}, "bad_card"),
                        ({"Ana": 4, "Ben": 5}, "missing_card"),
                        ({"Ana": 4, "Ben": 5, "Caro": 6, "Zoe": 1}, "unknown_player")]:
        with pytest.raises(PlayError) as caught:
            game.play_round(cards)
        assert caught.value.code == code
    after = (game.positions(), game.minus_points(), [set(h) for h in game.hands],
             list(game.kali_deck), list(game.rounds))
    assert after == before


def test_kali_plays_the_top_of_a_seeded_deck_and_undo_puts_it_back() -> None:
    game = Game(PLAYERS, Setup(0, PLAYERS, ()), 32, seed=42)
    again = Game(PLAYERS, Setup(0, PLAYERS, ()), 32, seed=42)
    assert game.kali_deck == again.kali_deck
    top = game.kali_deck[-1]
    events = game.play_round({"Ana": 1, "Ben": 2, "Caro": 3})
    assert isinstance(events[0], Reveal) and events[0].kali == top
    game.undo()
    assert game.kali_deck == again.kali_deck


def test_the_game_ends_after_twelve_rounds_and_ties_share_the_win() -> None:
    game = new_game()
    for value in range(12):
        events = game.play_round(dict.fromkeys(PLAYERS, value))
    assert game.finished
    end = events[-1]
    assert isinstance(end, RoundEnd) and end.game_over
    assert list(end.winners) == game.winners()
    with pytest.raises(PlayError) as caught:
        game.check_card("Ana", 3)
    assert caught.value.code == "game_over"
