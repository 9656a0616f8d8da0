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
from tests.playback_views import play_round, split, told, whole

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


def tell(show: Show, message: dict[str, Any], now: float, whole: bool = False) -> None:
    """A message of the table's: its view, with what its change did beside it."""
    view, happened = split(message)
    show.update(view, now, whole, happened)


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


CARDS = {"Ana": 7, "Ben": 11, "Caro": 3}


def step_seconds(message: dict[str, Any]) -> float:
    """The table's time for the step a message tells (0 for the playback's end)."""
    told_ = message["happened"][0]
    return float(told_.get("seconds") or 0.0) if told_["type"] == "step_shown" else 0.0


class Paced:
    """A round's messages sent to the show as auto pacing sends them: each step when
    the one before has had its time (``starts``), the playback's end with the last."""

    def __init__(self, show: Show, messages: list[dict[str, Any]], start: float = 100.0
                 ) -> None:
        self.show, self.messages, self.sent = show, messages, 0
        self.starts: list[float] = []
        t = start
        for message in messages:
            ending = message["happened"][0]["type"] == "playback_ended"
            self.starts.append(self.starts[-1] if ending else t)
            t += step_seconds(message)
        self.seconds = [step_seconds(m) for m in messages]

    def at(self, step: int, u: float) -> float:
        return self.starts[step] + u * self.seconds[step]

    def send(self, now: float) -> None:
        """Send every message whose time has come by ``now``."""
        while self.sent < len(self.messages) and self.starts[self.sent] <= now:
            tell(self.show, self.messages[self.sent], self.starts[self.sent])
            self.sent += 1

    def picture(self, now: float) -> str:
        self.send(now)
        return picture(self.show, now)


def round_one(show: Show, game: Game, pause_ms: int = 1000) -> Paced:
    """Round 1 (Ben 11 ties Kali, Ana 7 lands on dung, two rams, Kali's penalty to
    Caro), paced as the table's clock paces it."""
    tell(show, view_of(game), 0.0, whole=True)
    return Paced(show, play_round(game, CARDS, view_of, pause_ms))


def kind(show: Show) -> str | None:
    return type(show.step).__name__ if show.step is not None else None


def test_key_frames_of_a_round() -> None:
    show = Show(12)
    game = new_game()
    paced = round_one(show, game)
    kinds = []
    for i in range(len(paced.messages)):
        paced.picture(paced.at(i, 0.0))
        kinds.append(kind(show))
    assert kinds == ["RevealStep", "MoveStep", "StayStep", "MoveStep", "DungStep",
                     "PenaltyStep", "RhinoStep", "PenaltyStep", "MoveStep",
                     "RhinoStep", "PenaltyStep", "PenaltyStep"]  # the end sweeps over it
    show = Show(12)
    paced = round_one(show, new_game())
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
        assert paced.picture(paced.at(step, u)) == frame, (step, u)
    end = paced.at(len(paced.messages) - 2, 1.0) + END_SECONDS
    paced.picture(end + 0.01)
    assert not show.playing
    assert picture(show, 1000.0) == "...MKBAC.d.."  # the view's steady picture


def test_kali_penalty_flash_uses_every_payers_colour() -> None:
    """The table's step is the whole run of one hit's penalties: one flash for all."""
    show = Show(12)
    game = new_game()
    tell(show, view_of(game), 0.0, whole=True)
    events = [{"type": "penalty", "player": "Ana", "points": 2, "cause": "rammed",
               "figure": "Kali", "total": 2, "for_kali": True},
              {"type": "penalty", "player": "Ben", "points": 2, "cause": "rammed",
               "figure": "Kali", "total": 2, "for_kali": True}]
    step = {"type": "step_shown", "round": 1, "step": 1, "steps": 1, "kind": "penalty",
            "first": 0, "count": 2, "seconds": 1.0, "replay": False}
    tell(show, told({**view_of(game), "playback": {"shown": events}}, step), 0.0)
    assert kind(show) == "PenaltyStep"  # one flash for both payers
    assert picture(show, 0.05) == "ababAbababab"  # Kali's space full


def test_buzzer_cues_come_as_their_steps_begin() -> None:
    show = Show(12)
    paced = round_one(show, new_game())
    cues: list[str] = []
    for t in [*paced.starts, paced.starts[-1] + 5]:
        paced.send(t)
        cues += show.advance(t + 0.001)
    assert cues == ["dung", "rhino", "rhino", "round_end"]


def test_a_long_pause_is_never_squeezed() -> None:
    """The strip holds each step as long as the table says (the table's cursor holds it
    as long): a move the whole pause, however many steps the round has, and the round's
    end the table's own short time."""
    show = Show(12)
    paced = round_one(show, new_game(), pause_ms=5000)
    moves, ends = [], []
    for i in range(len(paced.messages)):
        paced.picture(paced.at(i, 0.0))
        if kind(show) == "MoveStep" and show.step is not None:
            moves.append(show.step.seconds)
    if show.ending is not None:
        ends.append(show.ending.seconds)
    assert moves and all(s == pytest.approx(5.0) for s in moves)
    assert ends == [END_SECONDS]


def test_a_next_ends_the_step_playing_at_once() -> None:
    """Step pacing at the host's thumb: a step told while another plays ends that one at
    once (its figures where it leaves them) and begins now; steps never queue, so five
    quick Nexts show the fifth step with the board as the fifth leaves it."""
    show = Show(12)
    game = new_game()
    tell(show, view_of(game), 0.0, whole=True)
    messages = play_round(game, CARDS, view_of, pause_ms=3000)
    for i, message in enumerate(messages[:5]):
        tell(show, message, 10.0 + 0.1 * i)   # a Next every 0.1 s
        show.advance(10.0 + 0.1 * i)
    assert kind(show) == "DungStep" and show.step_start == pytest.approx(10.4)
    assert show.moment == "g1/1/5"
    # Ana stands on the heap at 6 (step 4 done), Ben on 5 (step 2 done), not where
    # the round began: the steps cut short are drawn as they end
    assert picture(show, 10.4) == "M..CKBW..d.."
    for message in messages[5:]:
        tell(show, message, 10.5)
    assert kind(show) == "PenaltyStep" and show.ending is not None
    assert show.moment == "g1/1/11"
    show.advance(10.5 + 3.0)
    assert not show.playing
    assert picture(show, 20.0) == "...MKBAC.d.."


def test_the_rounds_end_sweeps_over_the_last_step_at_once() -> None:
    """The end of the playback comes right after its last step: its sweep begins at
    once over the last step as it plays, and nothing of the last step is cut."""
    show = Show(12)
    game = new_game()
    tell(show, view_of(game), 0.0, whole=True)
    *steps, end = play_round(game, CARDS, view_of)
    for message in steps:
        tell(show, message, 100.0)
    last = show.step
    tell(show, end, 100.0)
    assert show.step is last and show.ending is not None
    assert show.ending_start == 100.0 and show.ending.cue == "round_end"


def test_undo_during_the_playback_drops_the_animation_and_shows_the_earlier_state() -> None:
    show = Show(12)
    game = new_game()
    tell(show, view_of(game), 0.0, whole=True)
    messages = play_round(game, CARDS, view_of)
    for message in messages[:4]:  # the undo comes in the middle of the playback
        tell(show, message, 100.0)
    assert show.playing
    game.undo()
    tell(show, told(view_of(game), {"type": "round_undone", "round": 1,
                                     "stopped_playback": True},
                     {"type": "round_opened", "round": 1}), 101.0)
    assert not show.playing
    assert picture(show, 101.0) == "MABCK.d..d.."


def test_pieces_to_move_by_hand_blink_on_their_targets() -> None:
    """After a jump (an undo here) the view's placing names each piece to move: each
    blinks in its colour on its target, the others stay lit; the blinking ends with
    the placing (the next reveal, or the host's Done)."""
    show = Show(12)
    game = new_game()
    view = view_of(game)
    placing = {"reason": "undo", "round": 1,   # the public view's placing
               "moves": [{"piece": "explorer", "name": "Ana", "from": 5, "to": 1},
                         {"piece": "mambo", "from": 7, "to": 0}]}
    tell(show, told({**view, "placing": placing}, {"type": "round_undone", "round": 1,
                                                     "stopped_playback": False}), 0.0)
    assert show.animated()
    picked = {**view, "seats": [{**seat, "picked": True} for seat in view["seats"]]}
    tell(show, told({**picked, "placing": placing}, {"type": "round_undone", "round": 1,
                                                       "stopped_playback": False}), 0.0)
    assert show.animated()
    assert picture(show, 0.1) == "MABCK.d..d.."   # full: every piece where it goes
    assert picture(show, 0.7) == "maBCK.d..d.."   # dim, never dark: Mambo's and Ana's
    tell(show, told(picked, {"type": "pieces_placed"}), 1.0)
    assert picture(show, 1.7) == "MABCK.d..d.."   # steady again


def test_the_figures_still_to_pick_breathe_and_never_go_dark() -> None:
    """While a round is picked the figures whose players have not picked yet breathe
    between 40 % and full; the others, Kali, Mambo and the heaps stay steady."""
    show = Show(12)
    game = new_game()
    seats = [{"name": n, "colour": c, "picked": n == "Ben"}
             for n, c in zip(PLAYERS, SEAT_COLOURS, strict=True)]
    tell(show, {**view_of(game), "seats": seats}, 0.0, whole=True)
    assert show.animated()
    frames = [show.draw(t / 10)[0] for t in range(21)]  # one breath
    for space, name in ((1, "Ana"), (3, "Caro")):
        levels = {max(frame[space]) for frame in frames}
        assert min(levels) >= int(0.4 * max(show.target.colour(name))) - 1 > 0
        assert len(levels) > 5   # it changes
    assert {picture_at(frames, s) for s in (0, 2, 4, 6)} == {"steady"}
    tell(show, {**view_of(game), "seats": [{**s, "picked": True} for s in seats]}, 3.0)
    assert picture(show, 3.0) == picture(show, 4.0) == "MABCK.d..d.."


def picture_at(frames: list[list[RGB]], space: int) -> str:
    return "steady" if len({tuple(frame[space]) for frame in frames}) == 1 else "changes"


def test_a_view_alike_but_told_nothing_changes_nothing_that_plays() -> None:
    """Only what the table says counts: a refresh (the lights' status, say) leaves the
    animation alone, however the board in it differs from the one playing."""
    show = Show(12)
    game = new_game()
    tell(show, view_of(game), 0.0, whole=True)
    messages = play_round(game, CARDS, view_of)
    tell(show, messages[0], 100.0)
    tell(show, messages[1], 100.0)
    playing = show.step
    tell(show, whole(view_of(game)), 100.2)  # a refresh of the end state
    assert show.step is playing


def test_a_skip_during_an_animation_draws_the_cursor_at_once() -> None:
    """The host skips while a step is animated: the table says each step left was
    skipped, and the strip drops what it was animating and shows the board as the view
    has it."""
    show = Show(12)
    game = new_game()
    tell(show, view_of(game), 0.0, whole=True)
    messages = play_round(game, CARDS, view_of, skip_from=2)
    tell(show, messages[0], 100.0)
    tell(show, messages[1], 100.0)
    assert show.playing  # animating the second step
    tell(show, messages[2], 100.1)  # skipped
    assert not show.playing
    assert picture(show, 100.1) == "".join(letter(c) for c in show.target.draw()[0])
    for message in messages[3:]:
        tell(show, message, 100.2)
    assert not show.playing  # the skipped round's end is not swept either
    assert picture(show, 100.2) == "...MKBAC.d.."


def test_setup_intro_lights_heaps_then_mambo_then_figures() -> None:
    show = Show(12)
    game = new_game()
    tell(show, told(view_of(game), {"type": "game_started", "players": PLAYERS},
                     {"type": "round_opened", "round": 1}), 0.0)
    step = show.step
    assert step is not None and kind(show) == "SetupStep"
    assert picture(show, 0.0) == "mabck.d..d.."   # all glow where they go; a heap lit
    for t in range(20):   # no piece is ever dark: lit, glowing or blinking dimly
        frame = picture(show, step.seconds * t / 20)
        assert all(frame[space] != "." for space in (0, 1, 2, 3, 4, 6, 9)), frame
    assert picture(show, step.seconds * 0.99) == "MABCK.d..d.."
    show.advance(step.seconds + 0.01)
    assert not show.playing
    tell(show, whole(view_of(game)), 50.0)  # the same game again: no second intro
    assert not show.playing


def test_the_end_of_a_game_celebrates_the_winners() -> None:
    show = Show(12)
    tell(show, {"phase": "lobby", "seats": []}, 0.0, whole=True)
    assert show.animated()
    assert picture(show, 0.0) != picture(show, 1.0)
    game = new_game()
    for _ in range(11):
        game.play_round({p: game.hand(p)[0] for p in PLAYERS})
    tell(show, view_of(game), 5.0, whole=True)
    messages = play_round(game, {p: game.hand(p)[0] for p in PLAYERS},
                          lambda g: view_of(g, "finished" if g.finished else "picking"))
    for message in messages:
        tell(show, message, 10.0)
    *_, end = messages
    tell(show, told(end, {"type": "game_over", "winners": game.winners()}), 10.0)
    assert show.ending is not None and show.ending.cue == "win"
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
    tell(show, told(view_of(game), {"type": "game_started", "players": PLAYERS}), 0.0)
    assert kind(show) == "SetupStep"
    reveal, *rest, end = play_round(game, CARDS, view_of, pause_ms=2000)
    tell(show, reveal, 0.5)   # the reveal comes while the intro plays
    assert kind(show) == "RevealStep"
    assert show.step_start == 0.5
    for message in rest:
        tell(show, message, 2.5)
    tell(show, end, 2.6)   # the round's end, over the last step
    assert show.ending is not None
    second = play_round(game, {"Ana": 6, "Ben": 10, "Caro": 2}, view_of, pause_ms=2000)
    tell(show, second[0], 3.0)   # the next round's reveal
    assert show.ending is None and kind(show) == "RevealStep"
