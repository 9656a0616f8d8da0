"""The table as a pure state machine: lobby, picking, playing, finished.

Pure so that the table's rules (who may sit, what a pick may be, when a round
resolves, how the playback's cursor moves, what undo and a new game keep) are tested
on their own, without Flask, threads, a store or a clock (tests/core/test_state.py).

A command that must be saved comes in two halves: ``plan_*`` checks it against the
state and returns a frozen plan, or raises ``Refusal`` having changed nothing;
``apply(plan, now)`` carries the plan out and returns what happened as typed events
(``kalimambo.web.core.happenings``).  The table (``web/table/table.py``) writes the plan to
the store in between, so nothing is applied that is not on disk.  The playback's
commands (next, skip, the clock's tick) save nothing and act at once.  Time comes in
as ``now``, chance as seeds and fresh ids: nothing here reads a clock or does I/O.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kalimambo.engine.errors import PlayError, SetupError
from kalimambo.engine.game import Game, shuffled_deck
from kalimambo.engine.players import DEFAULT_LEVEL
from kalimambo.engine.setup import check_setup, check_track_length, random_setup
from kalimambo.engine.timeline import BoardState
from kalimambo.engine.values import is_int
from kalimambo.web.core.happenings import (
    GameFinished,
    GameStarted,
    LobbyOpened,
    PickMade,
    PiecesPlaced,
    RoundOpened,
    RoundPlayed,
    RoundResolved,
    RoundUndone,
    SeatsChanged,
    Settings,
    SettingsChanged,
    TableEvent,
)
from kalimambo.web.core.names import fold
from kalimambo.web.core.placing import Placing, jump, restarted, set_up
from kalimambo.web.core.plans import (
    AddSeats,
    ChangeSettings,
    OpenLobby,
    PickCard,
    Plan,
    ResolveRound,
    SetSeats,
    StartGame,
    UndoRound,
    check_settings,
)
from kalimambo.web.core.playback import Playback, playback_ended, step_shown
from kalimambo.web.core.refusals import Kind, Refusal, bad_input, conflict
from kalimambo.web.core.seats import (
    BOT_NAMES,
    MAX_SEATS,
    MIN_SEATS,
    NAME_MAX,
    Seat,
    clean_name,
    free_colour,
    new_seat_id,
    table_full,
)


def board_of(game: Game) -> BoardState:
    return BoardState(game.board.rhino, game.positions(), game.minus_points())


class StateMachine:
    """Seats, the game, the picks of the open round, the history and the playback."""

    def __init__(self, track_length: int, settings: Settings,
                 seats: Sequence[Seat] = ()) -> None:
        self.track_length = track_length
        self.settings = settings
        self.seats: list[Seat] = list(seats)
        self.game: Game | None = None
        self.history: list[RoundPlayed] = []
        self.picks: dict[str, int] = {}
        self.playback: Playback | None = None
        self.undone: int | None = None
        """The round just taken back, for every display to say so (until the next one)."""
        self.placing: Placing | None = None
        """The wooden pieces to move by hand after the board jumped (an undo, a skip, a
        restart mid-round, a set-up), until the next reveal or the host's "Done"."""
        self._skipped_from: BoardState | None = None
        """The board on the displays when the host began skipping the playback."""
        self.epoch = 0
        """Grows on every undo and new game: a bot's late pick for an older state is
        dropped."""
        self.revision = 0
        """Grows on every change: a plan is applied only to the state it was made for."""

    @classmethod
    def restore(cls, track_length: int, settings: Settings, seats: Sequence[Seat],
                game: Game | None, rounds: Sequence[tuple[Mapping[str, int], int]],
                picks: Mapping[str, int], play_last_again: bool, now: float,
                placing: Placing | None = None) -> StateMachine:
        """The state as saved: ``game`` fresh from its set-up, then ``rounds`` (cards,
        Kali's card) played on it; ``play_last_again`` plays the last round back again from
        its first step (the table stopped mid-playback: its pieces go back to where the
        round found them), else ``picks`` are the open round's.  ``placing``: the pieces
        that were waiting to be moved by hand."""
        state = cls(track_length, settings, seats)
        if game is None:
            return state
        state.placing = placing
        before = None
        for i, (cards, kali) in enumerate(rounds):
            if i == len(rounds) - 1:
                before = board_of(game)
            state.history.append(RoundPlayed.of(game, game.play_round(cards, kali)))
        state.game = game
        if before is not None and play_last_again:
            state._begin_playback(before, now)
            state.placing = restarted(len(rounds), before, board_of(game)) or placing
        elif not game.finished:
            state.picks = dict(picks)
        return state

    # -- what the state is ------------------------------------------------------------
    @property
    def phase(self) -> str:
        if self.game is None:
            return "lobby"
        if self.playing:
            return "playing"
        return "finished" if self.game.finished else "picking"

    @property
    def playing(self) -> bool:
        return self.playback is not None and not self.playback.done

    @property
    def due(self) -> float | None:
        """When auto pacing shows the next step (``tick`` then), else None."""
        return self.playback.due if self.playing and self.playback else None

    def waiting_bots(self) -> list[Seat]:
        """The computer players still to pick in the open round."""
        game = self.game
        if game is None or game.finished or self.playing:
            return []
        return [seat for seat in self.seats if seat.bot and seat.name not in self.picks]

    def snapshot(self) -> tuple[Any, ...]:
        """Everything the state holds, as plain comparable values (tests, logs)."""
        game = self.game
        playback = self.playback
        return (
            self.track_length, self.settings,
            tuple((s.name, s.colour, s.token_hash, s.hosted, s.bot_level, s.id)
                  for s in self.seats),
            None if game is None else (game.record(), [sorted(h) for h in game.hands],
                                       list(game.kali_deck), game.positions(),
                                       game.minus_points()),
            tuple(self.history), dict(self.picks),
            None if playback is None else (playback.round, playback.step, playback.total,
                                           playback.pacing, playback.pause_ms,
                                           playback.due),
            self.undone, self.placing, self.epoch, self.revision,
        )

    # -- seats ------------------------------------------------------------------------
    def seat_by_hash(self, hashed: str) -> Seat | None:
        return next((seat for seat in self.seats if seat.token_hash == hashed), None)

    def seat_named(self, name: object) -> Seat:
        """The seat whose name folds (``kalimambo.web.core.names.fold``) as ``name`` does."""
        # A string far longer than any name is no seat's name: it is not even folded.
        if isinstance(name, str) and len(name) <= 4 * NAME_MAX:
            folded = fold(name.strip())
            for seat in self.seats:
                if fold(seat.name) == folded:
                    return seat
            raise Refusal(Kind.NOT_FOUND, "no_such_seat",
                          f"Nobody called {name.strip()} sits at the table.")
        raise Refusal(Kind.NOT_FOUND, "no_such_seat", "Nobody by that name sits at the table.")

    def seat_with_id(self, seat_id: object) -> Seat:
        if isinstance(seat_id, str):
            for seat in self.seats:
                if seat.id == seat_id:
                    return seat
        raise Refusal(Kind.NOT_FOUND, "no_such_seat", "That seat is not at the table (any more).")

    def _check_lobby(self) -> None:
        if self.game is not None:
            raise conflict("already_started", "The game has already started: seats are "
                                              "fixed until the next game.")

    def plan_join(self, name: object, *, hosted: bool, token_hash: str,
                  new_id: Callable[[set[str]], str] = new_seat_id) -> AddSeats:
        """A person's seat (``token_hash``: of the token only their phone gets)."""
        self._check_lobby()
        clean = clean_name(name, [s.name for s in self.seats])
        if len(self.seats) >= MAX_SEATS:
            raise table_full()
        seat = Seat(clean, free_colour(self.seats), token_hash, hosted=hosted,
                    id=new_id({s.id for s in self.seats}))
        return AddSeats(self.revision, (seat,), len(self.seats))

    def plan_bots(self, count: object, level: object, levels: Sequence[str], *,
                  new_hash: Callable[[], str],
                  new_id: Callable[[set[str]], str] = new_seat_id) -> AddSeats:
        """``count`` computer players (None: fill the table) at ``level``."""
        self._check_lobby()
        free = MAX_SEATS - len(self.seats)
        if count is None:
            count = free
        if not is_int(count) or count < 1:
            raise bad_input("bad_count", "Say how many computer players: 1 or more.")
        if level is None:
            level = DEFAULT_LEVEL
        if level not in levels:
            raise bad_input("bad_level", "The computer players' levels are "
                                           + ", ".join(levels) + ".")
        if count > free:
            raise conflict("table_full", f"Only {free} seats are free.")
        taken = {fold(s.name) for s in self.seats}
        new: list[Seat] = []
        for name in [n for n in BOT_NAMES if fold(n) not in taken][:count]:
            new.append(Seat(name, free_colour(self.seats + new), new_hash(),
                            bot_level=str(level),
                            id=new_id({s.id for s in self.seats + new})))
        return AddSeats(self.revision, tuple(new), len(self.seats))

    def plan_remove(self, name: object = None, seat_id: object = None) -> SetSeats:
        """A seat leaves the lobby, named by its id or (folded) name."""
        self._check_lobby()
        seat = self.seat_with_id(seat_id) if seat_id is not None else self.seat_named(name)
        return SetSeats(self.revision, tuple(s for s in self.seats if s is not seat))

    # -- the game ---------------------------------------------------------------------
    def plan_start(self, setup: object, setup_seed: int, deck_seed: int) -> StartGame:
        """The game with ``setup`` (None: a random one from ``setup_seed``) and Kali's
        deck shuffled by ``deck_seed``."""
        self._check_lobby()
        players = [s.name for s in self.seats]
        if len(players) < MIN_SEATS:
            raise conflict("too_few_players", f"The game needs at least {MIN_SEATS} "
                                              f"explorers; {len(players)} sit at the table.")
        try:
            check_track_length(self.track_length, len(players), 0)
            if setup is None:
                chosen = random_setup(players, self.track_length, random.Random(setup_seed))
            else:
                chosen = check_setup(setup, players, self.track_length)
            game = Game(players, chosen, self.track_length,
                        kali_deck=shuffled_deck(deck_seed))
        except SetupError as error:
            raise bad_input("bad_setup", f"That set-up does not work: {error}") from None
        return StartGame(self.revision, game, chosen)

    def plan_pick(self, player: str, round_no: object, card: object) -> PickCard | ResolveRound:
        """``player`` picks ``card`` for ``round_no``; the last pick resolves the round."""
        game = self.game
        if game is None:
            raise conflict("not_started", "The game has not started yet.")
        if self.playing and self.playback is not None:
            raise conflict("playing", f"Round {self.playback.round} is still being played "
                                      "on the board: pick when it ends.")
        if game.finished:
            raise conflict("game_over", "The game is over: no more cards to play.")
        if not is_int(round_no):
            raise bad_input("bad_round", "Say which round the card is for.")
        if round_no != game.current_round:
            raise conflict("wrong_round", f"Round {round_no} is not being picked: "
                                          f"round {game.current_round} is.")
        try:
            checked = game.check_card(player, card)
        except PlayError as error:
            kind = Kind.BAD_INPUT if error.code == "bad_card" else Kind.CONFLICT
            raise Refusal(kind, error.code, str(error)) from None
        picks = {**self.picks, player: checked}
        if len(picks) < len(self.seats):
            return PickCard(self.revision, round_no, player, checked)
        return ResolveRound(self.revision, round_no, player, checked,
                            {s.name: picks[s.name] for s in self.seats}, game.kali_deck[-1])

    def plan_undo(self) -> UndoRound:
        """Take the last round back (during its playback too)."""
        game = self.game
        if game is None:
            raise conflict("not_started", "The game has not started yet.")
        if not game.rounds:
            raise conflict("nothing_to_undo", "No round has been played yet.")
        return UndoRound(self.revision, game.rounds_played, self.playback is not None)

    def plan_new_game(self, keep_seats: object = True) -> OpenLobby:
        """A new lobby with the same seats (people and computer players) unless asked
        to clear them."""
        if not isinstance(keep_seats, bool):
            raise bad_input("bad_keep_seats", "keep_seats is true or false.")
        return OpenLobby(self.revision, tuple(self.seats) if keep_seats else (),
                         self.playback is not None)

    def plan_settings(self, data: Mapping[str, Any]) -> ChangeSettings:
        return ChangeSettings(self.revision, check_settings(data, self.settings))

    # -- carrying a plan out ------------------------------------------------------------
    def apply(self, plan: Plan, now: float) -> list[TableEvent]:
        """Carry out a plan made for this very state; what happened, in order."""
        if plan.at != self.revision:
            raise RuntimeError(f"a plan for revision {plan.at} applied at {self.revision}")
        self.revision += 1
        match plan:
            case AddSeats(seats=seats):
                self.seats = [*self.seats, *seats]
                return [SeatsChanged(self._names())]
            case SetSeats(seats=seats):
                self.seats = list(seats)
                return [SeatsChanged(self._names())]
            case StartGame(game=game):
                self.game, self.picks, self.history, self.undone = game, {}, [], None
                self.placing = set_up(board_of(game), tuple(game.setup.dung))
                return [GameStarted(tuple(game.players)), *self._opened()]
            case PickCard(round=round_no, player=player, card=card):
                self.picks = {**self.picks, player: card}
                return [PickMade(round_no, player)]
            case ResolveRound():
                return self._resolve(plan, now)
            case UndoRound(round=round_no, stops_playback=stops):
                assert self.game is not None
                shown = self.shown_board()
                self.game.undo()
                # nothing moved on the displays: what was still to be placed still is
                self.placing = jump("undo", round_no, shown, board_of(self.game)) \
                    or self.placing
                self.history.pop()
                self.picks, self.playback, self.undone = {}, None, round_no
                self.epoch += 1
                return [RoundUndone(round_no, stops), *self._opened()]
            case OpenLobby(seats=seats, stops_playback=stops):
                self.seats = list(seats)
                self.game, self.history, self.picks = None, [], {}
                self.playback, self.undone, self.placing = None, None, None
                self.epoch += 1
                return [LobbyOpened(bool(seats), stops)]
            case ChangeSettings(settings=settings):
                self.settings = settings
                if self.playback is not None and not self.playback.done:
                    self.playback.set_pacing(settings.pacing, settings.pause_ms, now)
                return [SettingsChanged(settings)]
        raise TypeError(f"not a plan: {plan!r}")  # pragma: no cover

    def shown_board(self) -> BoardState:
        """The board the displays show (and the people have): as of the playback's
        cursor while a round is played back, else the game's."""
        assert self.game is not None
        if self.playback is not None and not self.playback.done:
            return self.playback.board()
        return board_of(self.game)

    def _names(self) -> tuple[str, ...]:
        return tuple(seat.name for seat in self.seats)

    def _resolve(self, plan: ResolveRound, now: float) -> list[TableEvent]:
        game = self.game
        assert game is not None
        before = board_of(game)
        played = RoundPlayed.of(game, game.play_round(plan.cards, plan.kali))
        self.history.append(played)
        self.picks = {}
        self.undone = None
        self._begin_playback(before, now)
        happened: list[TableEvent] = [PickMade(plan.round, plan.player),
                                      RoundResolved(played)]
        return happened + self.tick(now)  # auto pacing shows the reveal at once

    def _opened(self) -> list[TableEvent]:
        """A round opens for picking, or the game is over."""
        game = self.game
        if game is None:
            return []
        if game.finished:
            return [GameFinished(tuple(game.winners()))]
        return [RoundOpened(game.current_round)]

    # -- the playback ---------------------------------------------------------------------
    def _begin_playback(self, before: BoardState, now: float) -> None:
        played = self.history[-1]
        last = self.playback.until if self.playback is not None else None
        self.playback = Playback.begin(played.round, played.events, played.public_events,
                                       before, self.settings.pacing, self.settings.pause_ms,
                                       now, not_before=last)

    def _not_playing(self) -> Playback:
        playback = self.playback
        if playback is None or playback.done:
            raise conflict("not_playing", "No round is being played right now.")
        return playback

    def tick(self, now: float) -> list[TableEvent]:
        """The table's clock: the next step if its time has come (auto pacing)."""
        playback = self.playback
        if playback is None or playback.done or not playback.advance(now):
            return []
        return self._stepped()

    def next_step(self, now: float) -> list[TableEvent]:
        """"Next" (any pacing): one more step."""
        self._not_playing().next(now)
        return self._stepped()

    def skip_step(self) -> list[TableEvent]:
        """"Skip", one step at a time: the next step, shown as a jump.  Skipping is
        calling this until the playback has ended (the table does it at once, under
        its lock): each step is a change of its own, so no message carries the rest of
        the round."""
        playback = self._not_playing()
        if not playback.skipped:
            self._skipped_from = playback.board()
        playback.jump()
        return self._stepped()

    def _stepped(self) -> list[TableEvent]:
        playback = self.playback
        assert playback is not None
        self.revision += 1
        if playback.step == 1:
            self.placing = None  # the reveal: the people's board is the displays' again
        happened: list[TableEvent] = [step_shown(playback)]
        if playback.done:
            if playback.skipped and self._skipped_from is not None:
                self.placing = jump("skip", playback.round, self._skipped_from,
                                    playback.board())
                self._skipped_from = None
            happened += [playback_ended(playback), *self._opened()]
        return happened

    def placed(self) -> list[TableEvent]:
        """The host's "Done": the pieces are where the displays say; the strip stops
        marking them."""
        if self.placing is None:
            raise conflict("nothing_to_place", "There are no pieces to move by hand "
                                               "right now.")
        self.placing = None
        self.revision += 1
        return [PiecesPlaced()]

    def check_hint(self) -> Game:
        """The game a hint is asked for (hints on, a round to pick)."""
        if not self.settings.hints:
            raise Refusal(Kind.NOT_ALLOWED, "hints_off", "Hints are switched off at this table.")
        game = self.game
        if game is None or game.finished:
            raise conflict("no_round", "There is no round to pick for right now.")
        return game
