"""What the strip shows: key frames of a real round's events, pacing, phases.

Frames are written as one letter per space: a figure's initial (upper case at
full colour, lower case dimmed), M Mambo, d a heap, s splat, x the impact of a
ram, . dark, ? anything else.
"""

from __future__ import annotations

from typing import Any

import pytest

from kalimambo.engine import Game, Setup
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


def round_one(show: Show, game: Game) -> list[float]:
    """Play round 1 (Ben 11 ties Kali, Ana 7 lands on dung, two rams, Kali's penalty
    to Caro); give the start time of each step."""
    show.update(view_of(game), None, 0.0)
    show.steps.clear()  # skip the set-up intro here (tested on its own)
    events = [e.to_dict() for e in game.play_round({"Ana": 7, "Ben": 11, "Caro": 3})]
    show.update(view_of(game), events, 100.0)
    starts, t = [], 100.0
    for _, seconds in show.steps:
        starts.append(t)
        t += seconds
    return starts


def at(starts: list[float], show_steps: list[float], step: int, u: float) -> float:
    return starts[step] + u * show_steps[step]


def test_key_frames_of_a_round() -> None:
    show = Show(12, 1000)
    game = new_game()
    starts = round_one(show, game)
    seconds = [s for _, s in show.steps]
    kinds = [type(step).__name__ for step, _ in show.steps]
    assert kinds == ["RevealStep", "MoveStep", "StayStep", "MoveStep", "DungStep",
                     "PenaltyStep", "RhinoStep", "PenaltyStep", "MoveStep", "RhinoStep",
                     "PenaltyStep", "RoundEndStep"]
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
    show = Show(12, 1000)
    game = new_game()
    show.update(view_of(game), None, 0.0)
    show.steps.clear()
    events = [{"type": "penalty", "player": "Ana", "points": 2, "cause": "rammed",
               "figure": "Kali", "total": 2, "for_kali": True},
              {"type": "penalty", "player": "Ben", "points": 2, "cause": "rammed",
               "figure": "Kali", "total": 2, "for_kali": True}]
    show.update(view_of(game), events, 0.0)
    assert len(show.steps) == 1  # one flash for both payers
    assert picture(show, 0.05) == "ababAbababab"  # Kali's space full


def test_buzzer_cues_come_as_their_steps_begin() -> None:
    show = Show(12, 1000)
    starts = round_one(show, new_game())
    cues = []
    for t in [*starts, starts[-1] + 5]:
        cues += show.advance(t + 0.001)
    assert cues == ["dung", "rhino", "rhino", "round_end"]


def test_a_long_pause_is_never_squeezed() -> None:
    """The strip holds each step as long as the table's cursor does: a move the whole
    pause, however many steps the round has (the round's end is a short sweep)."""
    show = Show(12, 5000)
    round_one(show, new_game())
    moves = [s for step, s in show.steps if type(step).__name__ == "MoveStep"]
    assert moves and all(s == pytest.approx(5.0) for s in moves)
    assert [s for step, s in show.steps if type(step).__name__ == "RoundEndStep"] == [1.0]


def test_the_strip_plays_each_step_it_is_sent_to_its_end() -> None:
    """The table's cursor says when a step comes (in step pacing too): the strip never
    holds one back, so it cannot fall behind the board page."""
    show = Show(12, 1000)
    game = new_game()
    round_one(show, game)
    assert len(show.steps) == 12
    show.advance(500.0)
    assert not show.playing
    assert picture(show, 500.0) == "...MKBAC.d.."


def test_undo_drops_the_animation_and_shows_the_earlier_state() -> None:
    show = Show(12, 1000)
    game = new_game()
    round_one(show, game)
    game.undo()
    show.update(view_of(game), None, 101.0)
    assert not show.playing
    assert picture(show, 101.0) == "MABCK.d..d.."


def test_the_playback_ending_right_after_its_last_step_keeps_the_animation() -> None:
    """The table sends the last step (history still without the round), then at once
    the end of the playback (the round in the history) with no events of its own."""
    show = Show(12, 1000)
    game = new_game()
    show.update(view_of(game), None, 0.0)
    show.steps.clear()
    events = [e.to_dict() for e in game.play_round({"Ana": 7, "Ben": 11, "Caro": 3})]
    last_step = {**view_of(game, phase="playing"), "history": []}
    show.update(last_step, events[-2:], 100.0)
    queued = len(show.steps)
    show.update(view_of(game), None, 100.0)
    assert show.playing and len(show.steps) == queued
    game.undo()  # but an undo still drops what was playing
    show.update(view_of(game), None, 100.1)
    assert not show.playing


def test_a_skip_draws_the_cursor_at_once() -> None:
    """A step the host skipped to comes with no events and ``current.skipped``: the
    strip drops the step it was animating and shows the board as the view has it."""
    show = Show(12, 1000)
    game = new_game()
    show.update(view_of(game), None, 0.0)
    show.steps.clear()
    events = [e.to_dict() for e in game.play_round({"Ana": 7, "Ben": 11, "Caro": 3})]
    playing = {**view_of(game, phase="playing"), "history": []}
    step = {"round": 1, "step": 2, "steps": 9, "pacing": "auto", "shown": events[:2]}
    show.update({**playing, "playback": {**step, "current": {
        "kind": "move", "first": 1, "skipped": False}}}, events[1:2], 100.0)
    assert show.playing  # an animated step
    show.update({**playing, "playback": {**step, "step": 3, "current": {
        "kind": "move", "first": 2, "skipped": True}}}, None, 100.1)
    assert not show.playing
    assert picture(show, 100.1) == "".join(letter(c) for c in show.target.draw()[0])


def test_setup_intro_places_heaps_then_mambo_then_figures() -> None:
    show = Show(12, 1000)
    game = new_game()
    show.update(view_of(game), None, 0.0)
    (_, seconds), = show.steps
    assert picture(show, 0.0) == "......d....."
    assert picture(show, seconds * 0.99) == "MABCK.d..d.."
    show.advance(seconds + 0.01)
    assert not show.playing
    show.update(view_of(game), None, 50.0)  # the same game again: no second intro
    assert not show.playing


def test_lobby_attract_moves_and_finished_celebrates_the_winners() -> None:
    show = Show(12, 1000)
    show.update({"phase": "lobby", "seats": []}, None, 0.0)
    assert show.animated()
    assert picture(show, 0.0) != picture(show, 1.0)
    game = new_game()
    for _ in range(12):
        hand = {p: game.hand(p)[0] for p in PLAYERS}
        game.play_round(hand)
    view = view_of(game, "finished")
    show.update(view, None, 10.0)
    show.steps.clear()
    assert show.animated()
    shown = {letter(colour).upper() for colour in show.draw(10.3)[0]}
    winners = set(game.winners())
    assert winners and {w[0] for w in winners} <= shown
    assert not {p[0] for p in PLAYERS if p not in winners} & shown


def test_the_cursors_step_cuts_the_strips_own_flourishes_short() -> None:
    """The set-up's intro and the last round's end sweep are the strip's own; a step of
    the table's cursor that comes meanwhile begins at once, never after them."""
    show = Show(12, 2000)
    game = new_game()
    show.update(view_of(game), None, 0.0)
    assert [type(step).__name__ for step, _ in show.steps] == ["SetupStep"]
    events = [e.to_dict() for e in game.play_round({"Ana": 7, "Ben": 11, "Caro": 3})]
    reveal, *rest = events
    show.update(view_of(game), [reveal], 0.5)   # the reveal comes while the intro plays
    assert [type(step).__name__ for step, _ in show.steps] == ["RevealStep"]
    assert show.step_start == 0.5
    show.update(view_of(game), rest[:-1], 2.5)
    show.update(view_of(game), rest[-1:], 2.6)   # the round's end, behind the last step
    assert type(show.steps[-1][0]).__name__ == "RoundEndStep"
    show.update(view_of(game), [reveal], 3.0)   # the next round's reveal
    assert "RoundEndStep" not in [type(step).__name__ for step, _ in show.steps]
    assert type(show.steps[-1][0]).__name__ == "RevealStep"
