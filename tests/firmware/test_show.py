"""What the strip shows: key frames of a real round's events, pacing, phases.

Frames are written as one letter per space: a figure's initial (upper case at
full colour, lower case dimmed), M Mambo, d a heap, s splat, x the impact of a
ram, . dark, ? anything else.
"""

from __future__ import annotations

from typing import Any

import pytest

from kalimambo.engine import Game, Setup
from kalimambo.engine.timeline import END_SECONDS
from kalimambo.firmware.scene import (
    DARK,
    DUNG_COLOUR,
    EXPLORER_COLOURS,
    KALI_COLOUR,
    MAMBO_COLOUR,
    RGB,
    SPLAT_COLOUR,
)
from kalimambo.firmware.show import Show
from kalimambo.firmware.steps import IMPACT, WHITE
from tests.playback_views import play_round, told, whole

PLAYERS = ["Ana", "Ben", "Caro"]
SEAT_COLOURS = ["green", "yellow", "red"]
LETTERS: dict[str, RGB] = {
    "A": EXPLORER_COLOURS["green"], "B": EXPLORER_COLOURS["yellow"],
    "C": EXPLORER_COLOURS["red"], "K": KALI_COLOUR, "M": MAMBO_COLOUR, "D": DUNG_COLOUR,
    "S": SPLAT_COLOUR, "X": IMPACT, "W": WHITE,
}


def letter(colour: RGB) -> str:
    if colour == DARK:
        return "."
    for name, full in LETTERS.items():
        if colour == full:
            return "d" if name == "D" else name.replace("S", "s").replace("X", "x")
        peak = max(full)
        factor = max(colour) / peak
        if factor < 1 and all(abs(c - int(f * factor)) <= 1 for c, f in zip(colour, full,
                                                                          strict=True)):
            return name.lower()
    return "?"


def picture(show: Show, now: float) -> str:
    show.advance(now)
    top, _ = show.draw(now)
    return "".join(letter(colour) for colour in top)


def view_of(game: Game, phase: str = "picking", game_id: str = "g1") -> dict[str, Any]:
    return {
        "phase": phase, "round": game.current_round, "track_length": game.track_length,
        "game_id": game_id,
        "seats": [{"name": n, "colour": c} for n, c in zip(PLAYERS, SEAT_COLOURS, strict=True)],
        "rhino": game.board.rhino, "positions": game.positions(),
        "dung": list(game.setup.dung), "history": [{} for _ in game.rounds],
        "winners": game.winners() if game.finished else [],
        "setup": game.setup.to_dict(),
    }


def new_game() -> Game:
    # Mambo on 0, Ana 1, Ben 2, Caro 3, Kali 4; heaps on 6 and 9; Kali's top card is 11.
    return Game(PLAYERS, Setup(0, ("Ana", "Ben", "Caro"), (6, 9)), 12,
                kali_deck=list(range(12)))


def round_one(show: Show, game: Game, pause_ms: int = 1000) -> list[float]:
    """Play round 1 (Ben 11 ties Kali, Ana 7 lands on dung, two rams, Kali's penalty
    to Caro), every step told at once; give the start time of each step."""
    show.update(view_of(game), 0.0, whole=True)
    for message in play_round(game, CARDS, view_of, pause_ms):
        show.update(message, 100.0)
    starts, t = [], 100.0
    for step in show.steps:
        starts.append(t)
        t += step.seconds
    return starts


CARDS = {"Ana": 7, "Ben": 11, "Caro": 3}


def at(starts: list[float], show_steps: list[float], step: int, u: float) -> float:
    return starts[step] + u * show_steps[step]


def kinds(show: Show) -> list[str]:
    return [type(step).__name__ for step in show.steps]


def test_key_frames_of_a_round() -> None:
    show = Show(12)
    game = new_game()
    starts = round_one(show, game)
    seconds = [step.seconds for step in show.steps]
    assert kinds(show) == ["RevealStep", "MoveStep", "StayStep", "MoveStep", "DungStep",
                           "PenaltyStep", "RhinoStep", "PenaltyStep", "MoveStep",
                           "RhinoStep", "PenaltyStep", "RoundEndStep"]
    expected = [
        (1, 0.0, "MABCK.d..d.."),   # Ben's move starts: the picture before the round
        (1, 0.6, "MAbCKBd..d.."),   # Ben arrived on 5; a fading trail behind
        (2, 0.0, "MA.CkBd..d.."),   # Kali stays (tie with Ben): blinks
        (3, 0.65, "M..CKBA..d.."),  # Ana on the heap at 6
        (3, 0.75, "M..CKBa..d.."),  # ...blinking, so the players move her figure
        (4, 0.0, "M..CKBW..d.."),   # dung: a white flash on the heap...
        (4, 0.5, "M..CKBAssd.."),   # ...then a splat spreading from 6
        (5, 0.1, "aaaaaaAaaaaa"),   # Ana pays: flash in Ana's colour
        (5, 0.3, "M..CKBA..d.."),   # ...and off again
        (6, 0.3, "mM.CKBA..d.."),   # Mambo runs 0 -> 2: a streak behind him
        (6, 0.95, "mmMxKBA..d.."),  # arrived; Caro rammed
        (7, 0.1, "cccCcccccccc"),   # Caro pays, in her colour, brightest where she stands
        (10, 0.1, "ccccCccccccc"),  # Kali rammed on 4: Caro (lowest card) pays for her
    ]
    for step, u, frame in expected:
        assert picture(show, at(starts, seconds, step, u)) == frame, (step, u)
    show.advance(starts[-1] + seconds[-1] + 0.01)
    assert not show.playing
    assert picture(show, 1000.0) == "...MKBAC.d.."  # the view's steady picture


def test_kali_penalty_flash_uses_every_payers_colour() -> None:
    """The table's step is the whole run of one hit's penalties: one flash for all."""
    show = Show(12)
    game = new_game()
    show.update(view_of(game), 0.0, whole=True)
    events = [{"type": "penalty", "player": "Ana", "points": 2, "cause": "rammed",
               "figure": "Kali", "total": 2, "for_kali": True},
              {"type": "penalty", "player": "Ben", "points": 2, "cause": "rammed",
               "figure": "Kali", "total": 2, "for_kali": True}]
    step = {"type": "step_shown", "round": 1, "step": 1, "steps": 1, "kind": "penalty",
            "first": 0, "count": 2, "seconds": 1.0, "replay": False}
    show.update(told({**view_of(game), "playback": {"shown": events}}, step), 0.0)
    assert len(show.steps) == 1  # one flash for both payers
    assert picture(show, 0.05) == "ababAbababab"  # Kali's space full


def test_buzzer_cues_come_as_their_steps_begin() -> None:
    show = Show(12)
    starts = round_one(show, new_game())
    cues = []
    for t in [*starts, starts[-1] + 5]:
        cues += show.advance(t + 0.001)
    assert cues == ["dung", "rhino", "rhino", "round_end"]


def test_a_long_pause_is_never_squeezed() -> None:
    """The strip holds each step as long as the table says (the table's cursor holds it
    as long): a move the whole pause, however many steps the round has, and the round's
    end the table's own short time."""
    show = Show(12)
    round_one(show, new_game(), pause_ms=5000)
    moves = [step.seconds for step in show.steps if type(step).__name__ == "MoveStep"]
    assert moves and all(s == pytest.approx(5.0) for s in moves)
    assert [step.seconds for step in show.steps
            if type(step).__name__ == "RoundEndStep"] == [END_SECONDS]


def test_the_strip_plays_each_step_it_is_sent_to_its_end() -> None:
    """The table's cursor says when a step comes (in step pacing too): the strip never
    holds one back, so it cannot fall behind the board page."""
    show = Show(12)
    game = new_game()
    round_one(show, game)
    assert len(show.steps) == 12
    show.advance(500.0)
    assert not show.playing
    assert picture(show, 500.0) == "...MKBAC.d.."


def test_undo_during_the_playback_drops_the_animation_and_shows_the_earlier_state() -> None:
    show = Show(12)
    game = new_game()
    show.update(view_of(game), 0.0, whole=True)
    messages = play_round(game, CARDS, view_of)
    for message in messages[:4]:  # the undo comes in the middle of the playback
        show.update(message, 100.0)
    assert show.playing
    game.undo()
    show.update(told(view_of(game), {"type": "round_undone", "round": 1,
                                     "stopped_playback": True},
                     {"type": "round_opened", "round": 1}), 101.0)
    assert not show.playing
    assert picture(show, 101.0) == "MABCK.d..d.."


def test_the_playback_ending_right_after_its_last_step_keeps_the_animation() -> None:
    """The table sends the last step (history still without the round), then at once
    the end of the playback: the round's end is queued behind what plays, and nothing
    of it is dropped."""
    show = Show(12)
    game = new_game()
    show.update(view_of(game), 0.0, whole=True)
    *steps, end = play_round(game, CARDS, view_of)
    for message in steps:
        show.update(message, 100.0)
    queued = kinds(show)
    show.update(end, 100.0)
    assert kinds(show) == [*queued, "RoundEndStep"]


def test_a_view_alike_but_told_nothing_changes_nothing_that_plays() -> None:
    """Only what the table says counts: a refresh (the lights' status, say) leaves the
    animation alone, however the board in it differs from the one playing."""
    show = Show(12)
    game = new_game()
    show.update(view_of(game), 0.0, whole=True)
    messages = play_round(game, CARDS, view_of)
    show.update(messages[0], 100.0)
    show.update(messages[1], 100.0)
    queued = kinds(show)
    show.update(whole(view_of(game)), 100.2)  # a refresh of the end state
    assert kinds(show) == queued


def test_a_skip_during_an_animation_draws_the_cursor_at_once() -> None:
    """The host skips while a step is animated: the table says each step left was
    skipped, and the strip drops what it was animating and shows the board as the view
    has it."""
    show = Show(12)
    game = new_game()
    show.update(view_of(game), 0.0, whole=True)
    messages = play_round(game, CARDS, view_of, skip_from=2)
    show.update(messages[0], 100.0)
    show.update(messages[1], 100.0)
    assert show.playing  # animating the second step
    show.update(messages[2], 100.1)  # skipped
    assert not show.playing
    assert picture(show, 100.1) == "".join(letter(c) for c in show.target.draw()[0])
    for message in messages[3:]:
        show.update(message, 100.2)
    assert not show.playing  # the skipped round's end is not swept either
    assert picture(show, 100.2) == "...MKBAC.d.."


def test_setup_intro_places_heaps_then_mambo_then_figures() -> None:
    show = Show(12)
    game = new_game()
    show.update(told(view_of(game), {"type": "game_started", "players": PLAYERS},
                     {"type": "round_opened", "round": 1}), 0.0)
    step, = show.steps
    assert picture(show, 0.0) == "......d....."
    assert picture(show, step.seconds * 0.99) == "MABCK.d..d.."
    show.advance(step.seconds + 0.01)
    assert not show.playing
    show.update(whole(view_of(game)), 50.0)  # the same game again: no second intro
    assert not show.playing


def test_the_end_of_a_game_celebrates_the_winners() -> None:
    show = Show(12)
    show.update({"phase": "lobby", "seats": []}, 0.0, whole=True)
    assert show.animated()
    assert picture(show, 0.0) != picture(show, 1.0)
    game = new_game()
    for _ in range(11):
        game.play_round({p: game.hand(p)[0] for p in PLAYERS})
    show.update(view_of(game), 5.0, whole=True)
    messages = play_round(game, {p: game.hand(p)[0] for p in PLAYERS},
                          lambda g: view_of(g, "finished" if g.finished else "picking"))
    for message in messages:
        show.update(message, 10.0)
    *_, end = messages
    show.update(told(end, {"type": "game_over", "winners": game.winners()}), 10.0)
    assert kinds(show)[-1] == "RoundEndStep"
    assert show.steps[-1].cue == "win"
    show.advance(1000.0)
    assert show.animated()
    shown = {letter(colour).upper() for colour in show.draw(1000.3)[0]}
    winners = set(game.winners())
    assert winners and {w[0] for w in winners} <= shown
    assert not {p[0] for p in PLAYERS if p not in winners} & shown


def test_the_cursors_step_cuts_the_strips_own_flourishes_short() -> None:
    """The set-up's intro and the round's end sweep are the strip's own; a step of the
    table's cursor that comes meanwhile begins at once, never after them."""
    show = Show(12)
    game = new_game()
    show.update(told(view_of(game), {"type": "game_started", "players": PLAYERS}), 0.0)
    assert kinds(show) == ["SetupStep"]
    reveal, *rest, end = play_round(game, CARDS, view_of, pause_ms=2000)
    show.update(reveal, 0.5)   # the reveal comes while the intro plays
    assert kinds(show) == ["RevealStep"]
    assert show.step_start == 0.5
    for message in rest:
        show.update(message, 2.5)
    show.update(end, 2.6)   # the round's end, behind the last step
    assert kinds(show)[-1] == "RoundEndStep"
    second = play_round(game, {"Ana": 6, "Ben": 10, "Caro": 2}, view_of, pause_ms=2000)
    show.update(second[0], 3.0)   # the next round's reveal
    assert "RoundEndStep" not in kinds(show)
    assert kinds(show)[-1] == "RevealStep"
