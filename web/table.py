"""The table: lobby, start, picking, resolving, undo and new game, kept in the store.

One ``Table`` per app.  Every change runs under one lock, is committed to the store
before it is applied in memory (so a refused or failed write changes nothing), and
ends in ``_changed``: a new public view, its JSON made once, handed to the listeners
(event streams, lights).  While a round is open the public view says only *whether*
each seat has picked.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import random
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from kalimambo.engine.errors import PlayError, SetupError
from kalimambo.engine.game import Game, shuffled_deck
from kalimambo.engine.pacing import (
    DEFAULT_PACING,
    DEFAULT_PAUSE_MS,
    PACINGS,
    PAUSE_MS_MAX,
    PAUSE_MS_MIN,
)
from kalimambo.engine.players import DEFAULT_LEVEL
from kalimambo.engine.rules import ROUNDS
from kalimambo.engine.setup import Setup, check_setup, check_track_length, random_setup
from kalimambo.engine.timeline import BoardState
from kalimambo.web import bots
from kalimambo.web.archive import stored_record
from kalimambo.web.day import Day
from kalimambo.web.errors import ApiError, bad_request, conflict
from kalimambo.web.hints import HintDesk
from kalimambo.web.host import HostAuth
from kalimambo.web.names import fold
from kalimambo.web.playback import Playback
from kalimambo.web.seats import (
    BOT_NAMES,
    MAX_SEATS,
    MIN_SEATS,
    Seat,
    clean_name,
    free_colour,
    new_seat_id,
    new_token,
    table_full,
    token_hash,
)
from kalimambo.web.store import SeatRow, StorageError, Store
from kalimambo.web.tasks import InlineRunner
from kalimambo.web.viewdiff import diff

NAME_LOOKUP_MAX = 20
"""Longer strings are no seat's name: they are not even folded."""
VERSION_EPOCH = 1_000_000
"""``version`` is restarts x 10^6 + changes since: it keeps growing across restarts."""


@dataclass(frozen=True, slots=True)
class Change:
    """What listeners get after every change."""

    version: int
    view: dict[str, Any]
    view_json: bytes
    patch_json: bytes | None
    """The JSON Patch from the view before (None for the first view)."""
    events: list[dict[str, Any]] | None
    """The events of the step just shown (the strip animates them), else None."""


Listener = Callable[[Change], None]


def lights_summary(status: dict[str, Any]) -> dict[str, Any]:
    """What the public view says of the strip (the pacing is the table's setting)."""
    return {"backend": status.get("backend"), "ok": bool(status.get("ok")),
            "error": status.get("error"), "playing": bool(status.get("playing", False)),
            "connected": bool(status.get("connected", False)),
            "next_presses": int(status.get("next_presses", 0))}


def _seed(*parts: object) -> int:
    """A seed that is the same in every process (``hash`` of a str is not)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big")


class Table:
    """The game at the table and everything around it (seats, host, settings)."""

    def __init__(self, store: Store, track_length: int, host: HostAuth, *,
                 join_url: str | Callable[[], str] = "", runner: InlineRunner | None = None,
                 lights_status: Callable[[], dict[str, Any]] | None = None,
                 default_pacing: str = DEFAULT_PACING,
                 default_pause_ms: int = DEFAULT_PAUSE_MS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.track_length = track_length
        self.host = host
        self.join_url: Callable[[], str] = (join_url if callable(join_url)
                                            else lambda: join_url)
        self.runner = runner or InlineRunner()
        self.lights_status = lights_status or (lambda: {"backend": "none", "ok": False,
                                                        "error": None})
        self.clock = clock
        self.playback: Playback | None = None
        self._closing = False
        """True while the last step is published, before the playback ends (own message)."""
        self.undone: int | None = None
        """The round just taken back, for every display to say so (until the next round)."""
        self.lock = threading.RLock()
        self.hint_desk = HintDesk()
        self.listeners: list[Listener] = []
        self._streams: dict[str, int] = {}
        self._epoch = 0
        """Grows on every undo and new game: a bot's late pick for an older state is dropped."""
        epoch = int(store.setting("restarts", 0)) + 1
        with contextlib.suppress(StorageError):  # a full disk at start: run, and say so
            store.set_settings({"restarts": epoch})
        self.version = epoch * VERSION_EPOCH
        self.hints = bool(store.setting("hints", False))
        self.pacing = str(store.setting("pacing", default_pacing))
        self.pause_ms = int(store.setting("pause_ms", default_pause_ms))
        self.day = Day(store)
        self._restore()
        self._rebuild()
        if self.playback is None:
            self._round_opened()  # after a restart mid-round, computer players pick again

    # -- restoring from the store --------------------------------------------------
    def _restore(self) -> None:
        row = self.store.current_game()
        if row is None:
            self.game_id = self.store.new_game(self.track_length)
            row = self.store.current_game()
            assert row is not None
        self.game_id = row.id
        rows = self.store.seats(row.id)
        self.seats = [Seat(s.name, s.colour, s.token_hash, s.hosted, s.bot_level, s.id or "")
                      for s in rows]
        if any(not seat.id for seat in self.seats):  # seats kept before seat ids
            taken = {seat.id for seat in self.seats}
            for seat in self.seats:
                if not seat.id:
                    seat.id = new_seat_id(taken)
                    taken.add(seat.id)
            with contextlib.suppress(StorageError):
                self.store.replace_seats(row.id, [self._row(i, s)
                                                  for i, s in enumerate(self.seats)])
        self.game: Game | None = None
        self.history: list[dict[str, Any]] = []
        self.picks: dict[str, int] = {}
        self.playback = None
        if row.started is None or row.setup is None or row.players is None:
            return
        self.track_length = row.track_length
        game = Game(row.players, Setup(row.setup["rhino"], tuple(row.setup["order"]),
                                       tuple(row.setup["dung"])),
                    row.track_length, kali_deck=row.kali_deck)
        rounds = self.store.rounds(row.id)
        playing = self.store.setting("playback", None)
        before = None
        for i, played in enumerate(rounds):
            if i == len(rounds) - 1:
                before = self._board_now(game)
            events = game.play_round(played.cards, played.kali)
            self.history.append(self._history_entry(game, events))
        self.game = game
        if before is not None and playing == [row.id, game.rounds_played]:
            # stopped mid-playback: the round (already stored) plays again from step 0
            self._begin_playback(before)
        elif not game.finished:
            self.picks = self.store.picks(row.id, game.current_round)

    # -- views ---------------------------------------------------------------------
    @property
    def phase(self) -> str:
        if self.game is None:
            return "lobby"
        if self.playing:
            return "playing"
        return "finished" if self.game.finished else "picking"

    @property
    def playing(self) -> bool:
        return self.playback is not None and (not self.playback.done or self._closing)

    @staticmethod
    def _board_now(game: Game) -> BoardState:
        return BoardState(game.board.rhino, game.positions(), game.minus_points())

    def _rebuild(self, events: list[dict[str, Any]] | None = None) -> Change:
        self.version += 1
        view = self._public_view()
        before = getattr(self, "_last", None)
        patch = orjson.dumps(diff(before.view, view)) if before is not None else None
        change = Change(self.version, view, orjson.dumps(view), patch, events)
        self._last = change
        return change

    def _changed(self, events: list[dict[str, Any]] | None = None) -> None:
        """Make the new public view and tell every listener (under the lock)."""
        change = self._rebuild(events)
        for listener in list(self.listeners):
            listener(change)

    @property
    def current(self) -> Change:
        return self._last

    def _public_view(self) -> dict[str, Any]:
        game = self.game
        playback = self.playback
        playing = self.playing
        lights = {**lights_summary(self.lights_status()), "pacing": self.pacing,
                  "pause_ms": self.pause_ms}
        if playing and playback is not None:  # the board as of the cursor, nothing after
            board = playback.board()
            minus, rhino, positions = board.minus_points, board.rhino, board.positions
            history = self.history[:-1]
            round_no = playback.round
        else:
            minus = game.minus_points() if game else {}
            rhino = game.board.rhino if game else None
            positions = game.positions() if game else {}
            history = list(self.history)
            round_no = (game.current_round if not game.finished else game.rounds_played) \
                if game else 0
        return {
            "version": self.version,
            "phase": self.phase,
            "round": round_no,
            "track_length": self.track_length,
            "seats": [{"id": s.id, "name": s.name, "colour": s.colour, "bot": s.bot,
                       "bot_level": s.bot_level, "hosted": s.hosted,
                       "connected": s.bot or s.hosted or self._streams.get(s.name, 0) > 0,
                       "picked": s.name in self.picks, "minus_points": minus.get(s.name, 0)}
                      for s in self.seats],
            "rhino": rhino,
            "positions": positions,
            "dung": list(game.setup.dung) if game else [],
            "setup": game.setup.to_dict() if game else None,
            "playback": playback.to_view() if playback else None,
            "history": history,
            "last_round": history[-1] if history else None,
            "winners": game.winners() if game and game.finished and not playing else [],
            "undone": self.undone,
            "game_id": self.game_id,
            "join_url": self.join_url(),
            "hints": self.hints,
            "lights": lights,
            "storage": self._storage_status(),
            "day_start": self.day.start(),
        }

    def _storage_status(self) -> dict[str, Any]:
        """Whether the store keeps changes: the host page warns when it does not."""
        problem = self.store.problem
        return {"ok": problem is None, "error": problem}

    @staticmethod
    def _history_entry(game: Game, events: list[Any]) -> dict[str, Any]:
        played = game.rounds[-1]
        return {"round": game.rounds_played,
                "cards": dict(zip(game.players, played.cards, strict=True)),
                "kali": played.kali, "events": [e.to_dict() for e in events],
                "minus_points": game.minus_points()}

    def public_view(self) -> dict[str, Any]:
        """The current public view (the same dict every listener got: do not change it)."""
        return self._last.view

    def me(self, token: str | None) -> dict[str, Any]:
        """The seat's private view: the public view plus its hand and pick."""
        with self.lock:
            return self._private_view(self.seat_for(token))

    def hosted_me(self, seat_id: str) -> dict[str, Any]:
        """A hosted seat's private view, asked for by the host page."""
        with self.lock:
            return self._private_view(self._hosted_seat(seat_id))

    def hosted_pick(self, seat_id: str, round_no: object, card: object) -> dict[str, Any]:
        with self.lock:
            return self._pick(self._hosted_seat(seat_id), round_no, card)

    def _hosted_seat(self, seat_id: str) -> Seat:
        seat = self._seat_with_id(seat_id)
        if not seat.hosted:
            raise ApiError(403, "not_hosted", f"{seat.name} picks on their own phone.")
        return seat

    def _private_view(self, seat: Seat) -> dict[str, Any]:
        view = dict(self._last.view)
        hand = self.game.hand(seat.name) if self.game else list(range(12))
        view["me"] = {"id": seat.id, "name": seat.name, "colour": seat.colour, "hand": hand,
                      "pick": self.picks.get(seat.name), "hosted": seat.hosted,
                      "bot": seat.bot}
        return view

    # -- seats -----------------------------------------------------------------------
    def seat_for(self, token: str | None) -> Seat:
        if not token:
            raise ApiError(401, "no_token", "Join the table first: this needs your seat.")
        hashed = token_hash(token)
        for seat in self.seats:
            if seat.token_hash == hashed:
                return seat
        raise ApiError(401, "unknown_token", "This phone has no seat at the table (any more): "
                                             "please join again.")

    def _seat_named(self, name: object) -> Seat:
        """The seat whose name folds to the same form (``kalimambo.web.names.fold``) as ``name``."""
        if isinstance(name, str) and len(name) <= 4 * NAME_LOOKUP_MAX:
            folded = fold(name.strip())
            for seat in self.seats:
                if fold(seat.name) == folded:
                    return seat
            raise ApiError(404, "no_such_seat", f"Nobody called {name.strip()} sits at "
                                                "the table.")
        raise ApiError(404, "no_such_seat", "Nobody by that name sits at the table.")

    def _seat_with_id(self, seat_id: object) -> Seat:
        if isinstance(seat_id, str):
            for seat in self.seats:
                if seat.id == seat_id:
                    return seat
        raise ApiError(404, "no_such_seat", "That seat is not at the table (any more).")

    def _check_lobby(self) -> None:
        if self.game is not None:
            raise conflict("already_started", "The game has already started: seats are "
                                              "fixed until the next game.")

    def join(self, name: object, hosted: bool = False) -> tuple[Seat, str]:
        """A new seat and its token (only the phone gets it)."""
        with self.lock:
            self._check_lobby()
            clean = clean_name(name, [s.name for s in self.seats])
            if len(self.seats) >= MAX_SEATS:
                raise table_full()
            token = new_token()
            seat = Seat(clean, free_colour(self.seats), token_hash(token), hosted=hosted,
                        id=new_seat_id({s.id for s in self.seats}))
            self.store.add_seats(self.game_id, [self._row(len(self.seats), seat)])
            self.seats.append(seat)
            self._changed()
            return seat, token

    def _row(self, pos: int, seat: Seat) -> SeatRow:
        return SeatRow(pos, seat.name, seat.colour, seat.token_hash, seat.hosted,
                       seat.bot_level, seat.id)

    def remove_seat(self, name: object = None, seat_id: object = None) -> None:
        """Remove a seat before the start, named by its id or (folded) name."""
        with self.lock:
            self._check_lobby()
            seat = self._seat_with_id(seat_id) if seat_id is not None else \
                self._seat_named(name)
            self._renumber([s for s in self.seats if s is not seat])
            self._changed()

    def _renumber(self, seats: list[Seat]) -> None:
        """Keep seats in the store at positions 0..n-1, in table order."""
        self.store.replace_seats(self.game_id, [self._row(i, s) for i, s in enumerate(seats)])
        self.seats = seats

    def add_bots(self, count: object, level: object) -> list[str]:
        with self.lock:
            self._check_lobby()
            free = MAX_SEATS - len(self.seats)
            if count is None:
                count = free
            if not isinstance(count, int) or isinstance(count, bool) or count < 1:
                raise bad_request("bad_count", "Say how many computer players: 1 or more.")
            if level is None:
                level = DEFAULT_LEVEL
            if level not in bots.levels():
                raise bad_request("bad_level", "The computer players' levels are "
                                               + ", ".join(bots.levels()) + ".")
            if count > free:
                raise conflict("table_full", f"Only {free} seats are free.")
            taken = {fold(s.name) for s in self.seats}
            names = [n for n in BOT_NAMES if fold(n) not in taken][:count]
            new: list[Seat] = []
            for name in names:
                seat = Seat(name, free_colour(self.seats + new), token_hash(new_token()),
                            bot_level=str(level),
                            id=new_seat_id({s.id for s in self.seats + new}))
                new.append(seat)
            self.store.add_seats(self.game_id, [self._row(len(self.seats) + i, s)
                                                for i, s in enumerate(new)])
            self.seats.extend(new)
            self._changed()
            return names

    def stream_opened(self, token: str | None) -> None:
        """An event stream with a seat's token is open: that seat counts as connected."""
        self._stream_count(token, +1)

    def stream_closed(self, token: str | None) -> None:
        self._stream_count(token, -1)

    def _stream_count(self, token: str | None, step: int) -> None:
        if not token:
            return
        with self.lock:
            try:
                name = self.seat_for(token).name
            except ApiError:
                return
            before = self._streams.get(name, 0)
            after = max(0, before + step)
            self._streams[name] = after
            if (before > 0) != (after > 0):
                self._changed()

    # -- the game ----------------------------------------------------------------------
    def start(self, setup: object, seed: int | None = None) -> None:
        with self.lock:
            self._check_lobby()
            players = [s.name for s in self.seats]
            if len(players) < MIN_SEATS:
                raise conflict("too_few_players", f"The game needs at least {MIN_SEATS} "
                                                  f"explorers; {len(players)} sit at the table.")
            try:
                check_track_length(self.track_length, len(players), 0)
                if setup is None:
                    rng = random.Random(seed if seed is not None else secrets.randbits(64))
                    chosen = random_setup(players, self.track_length, rng)
                else:
                    chosen = check_setup(setup, players, self.track_length)
                deck = shuffled_deck(seed if seed is not None else secrets.randbits(64))
                game = Game(players, chosen, self.track_length, kali_deck=deck)
            except SetupError as error:
                raise bad_request("bad_setup", f"That set-up does not work: {error}") from None
            self.store.start_game(self.game_id, players, chosen.to_dict(), list(game.kali_deck),
                                  [self._row(i, s) for i, s in enumerate(self.seats)])
            self.game = game
            self.picks = {}
            self.history = []
            self.undone = None
            self._changed()
            self._round_opened()

    def pick(self, token: str | None, round_no: object, card: object) -> dict[str, Any]:
        """Record a pick (or change it); the last pick resolves the round at once."""
        with self.lock:
            seat = self.seat_for(token)
            if seat.bot:
                raise ApiError(403, "bot_seat", "A computer player picks its own cards.")
            return self._pick(seat, round_no, card)

    def _pick(self, seat: Seat, round_no: object, card: object) -> dict[str, Any]:
        game = self.game
        if game is None:
            raise conflict("not_started", "The game has not started yet.")
        if self.playing and self.playback is not None:
            raise conflict("playing", f"Round {self.playback.round} is still being played "
                                      "on the board: pick when it ends.")
        if game.finished:
            raise conflict("game_over", "The game is over: no more cards to play.")
        if not isinstance(round_no, int) or isinstance(round_no, bool):
            raise bad_request("bad_round", "Say which round the card is for.")
        if round_no != game.current_round:
            raise conflict("wrong_round", f"Round {round_no} is not being picked: "
                                          f"round {game.current_round} is.")
        try:
            checked = game.check_card(seat.name, card)
        except PlayError as error:
            raise ApiError(400 if error.code == "bad_card" else 409, error.code,
                           str(error)) from None
        picks = {**self.picks, seat.name: checked}
        if len(picks) < len(self.seats):
            self.store.set_pick(self.game_id, round_no, seat.name, checked)
            self.picks = picks
            self._changed()
            return {"round": round_no, "card": checked, "resolved": False}
        self._resolve(picks)
        return {"round": round_no, "card": checked, "resolved": True}

    def _resolve(self, picks: dict[str, int]) -> None:
        game = self.game
        assert game is not None
        round_no = game.current_round
        kali = game.kali_deck[-1]
        cards = {s.name: picks[s.name] for s in self.seats}
        self.store.add_round(self.game_id, round_no, cards, kali,  # one commit, one fsync
                             finished=round_no >= ROUNDS,
                             settings={"playback": [self.game_id, round_no]})
        before = self._board_now(game)
        events = game.play_round(cards, kali)
        self.history.append(self._history_entry(game, events))
        self.picks = {}
        self.undone = None
        self._begin_playback(before)
        if not self.tick():  # auto pacing shows the reveal at once; step pacing waits
            self._changed()

    # -- the playback ----------------------------------------------------------------
    def _begin_playback(self, before: BoardState) -> None:
        entry = self.history[-1]
        self.playback = Playback.begin(entry["round"], entry["events"], before,
                                       self.pacing, self.pause_ms, self.clock())

    def _mark_playing(self, value: list[int] | None) -> None:
        """Keep in the store which round is being played, so a restart plays it again."""
        with contextlib.suppress(StorageError):  # the round itself is stored already
            self.store.set_settings({"playback": value})

    def due(self) -> float | None:
        """When the table's clock should call ``tick`` (auto pacing), else None."""
        with self.lock:
            return self.playback.due if self.playing and self.playback else None

    def tick(self) -> bool:
        """The clock: show the next step if its time has come (auto pacing)."""
        with self.lock:
            playback = self.playback
            if playback is None or playback.done or not playback.advance(self.clock()):
                return False
            self._stepped()
            return True

    def next_step(self) -> dict[str, Any]:
        """"Next" (any pacing): show one more step; answers the playback."""
        with self.lock:
            playback = self.playback
            if playback is None or playback.done:
                raise conflict("not_playing", "No round is being played right now.")
            playback.next(self.clock())
            self._stepped()
            return self._last.view["playback"] or {}

    def skip(self) -> dict[str, Any]:
        """End the playback at once."""
        with self.lock:
            playback = self.playback
            if playback is None or playback.done:
                raise conflict("not_playing", "No round is being played right now.")
            playback.skip()
            self._stepped()
            return self._last.view["playback"] or {}

    def _stepped(self) -> None:
        playback = self.playback
        assert playback is not None
        current = playback.current()
        events = [dict(e) for e in current.events] if current else None
        if not playback.done:
            self._changed(events)
            return
        self._mark_playing(None)
        self._closing = True  # the last step, then the end: two small messages, not one
        try:
            self._changed(events)
        finally:
            self._closing = False
        self._changed()
        self._round_opened()

    def undo(self) -> None:
        with self.lock:
            game = self.game
            if game is None:
                raise conflict("not_started", "The game has not started yet.")
            if not game.rounds:
                raise conflict("nothing_to_undo", "No round has been played yet.")
            undone = game.rounds_played
            self.store.undo_round(self.game_id, undone)
            game.undo()
            self.history.pop()
            self.picks = {}
            if self.playback is not None:
                self._mark_playing(None)
            self.playback = None
            self.undone = undone
            self._epoch += 1
            self._changed()
            self._round_opened()

    def new_game(self, keep_seats: object = True) -> None:
        """Archive this game and open a new lobby, with the same seats (people and
        computer players) unless asked to clear them."""
        with self.lock:
            if not isinstance(keep_seats, bool):
                raise bad_request("bad_keep_seats", "keep_seats is true or false.")
            seats = self.seats if keep_seats else []
            self.game_id = self.store.new_game(
                self.track_length, archive=self.game_id,
                seats=[self._row(i, s) for i, s in enumerate(seats)])
            self.seats = list(seats)
            if self.playback is not None:
                self._mark_playing(None)
            self.game = None
            self.history = []
            self.picks = {}
            self.playback = None
            self.undone = None
            self._streams = {name: n for name, n in self._streams.items()
                             if any(s.name == name for s in self.seats)}
            self._epoch += 1
            self._changed()

    # -- computer players -------------------------------------------------------------
    def _round_opened(self) -> None:
        """Ask every computer player for its card (at once, or in the background)."""
        game = self.game
        if game is None or game.finished:
            return
        for seat in self.seats:
            if seat.bot and seat.name not in self.picks:
                self._schedule_bot(seat, game)

    def _schedule_bot(self, seat: Seat, game: Game) -> None:
        key = (self.game_id, self._epoch, game.current_round)
        snapshot = copy.deepcopy(game)
        seed = _seed(self.game_id, game.current_round, seat.name)
        level = seat.bot_level or DEFAULT_LEVEL
        name = seat.name

        def think() -> None:
            card = self.runner.compute(lambda: bots.choose_card(level, snapshot, name, seed))
            with self.lock:
                if key != (self.game_id, self._epoch,
                           self.game.current_round if self.game else 0):
                    return
                current = next((s for s in self.seats if s.name == name), None)
                if current is None or name in self.picks:
                    return
                try:
                    self._pick(current, key[2], card)
                except (ApiError, StorageError):
                    return

        self.runner.spawn(think)

    # -- host -----------------------------------------------------------------------------
    def settings(self, data: dict[str, Any]) -> dict[str, Any]:
        """Change hints and light pacing; unknown keys are refused, nothing half-set."""
        with self.lock:
            known = {"hints", "pacing", "pause_ms"}
            unknown = sorted(set(data) - known)
            if unknown:
                raise bad_request("bad_setting", f"There is no setting {unknown[0]!r}.")
            hints = data.get("hints", self.hints)
            pacing = data.get("pacing", self.pacing)
            pause = data.get("pause_ms", self.pause_ms)
            if not isinstance(hints, bool):
                raise bad_request("bad_setting", "hints is true or false.")
            if pacing not in PACINGS:
                raise bad_request("bad_setting", "pacing is 'auto' or 'step'.")
            if not isinstance(pause, int) or isinstance(pause, bool) or \
                    not PAUSE_MS_MIN <= pause <= PAUSE_MS_MAX:
                raise bad_request("bad_setting", "pause_ms is a whole number of "
                                                 f"milliseconds from {PAUSE_MS_MIN} to "
                                                 f"{PAUSE_MS_MAX}.")
            self.store.set_settings({"hints": hints, "pacing": pacing, "pause_ms": pause})
            self.hints, self.pacing, self.pause_ms = hints, str(pacing), pause
            if self.playback is not None and not self.playback.done:
                self.playback.set_pacing(self.pacing, pause, self.clock())
            self._changed()
            return {"hints": hints, "pacing": pacing, "pause_ms": pause}

    def new_day(self) -> float:
        """The host's "new day": the leaderboard counts games from now on."""
        with self.lock:
            start = self.day.begin()
            self._changed()
            return start

    def refresh(self) -> None:
        """Something outside the game changed (the lights): send a new view."""
        with self.lock:
            self._changed()

    def hint(self, token: str | None) -> dict[str, Any]:
        with self.lock:
            seat = self.seat_for(token)
            if not self.hints:
                raise ApiError(403, "hints_off", "Hints are switched off at this table.")
            game = self.game
            if game is None or game.finished:
                raise conflict("no_round", "There is no round to pick for right now.")
            key = (self.game_id, self._epoch, game.current_round, seat.id)
            snapshot = copy.deepcopy(game)
            seed = _seed(self.game_id, game.current_round, seat.name, "hint")
        found = self.hint_desk.get(key, lambda: self.runner.compute(
            lambda: bots.suggest(snapshot, seat.name, seed)))
        if found is None:
            raise ApiError(503, "no_hints", "Hints are not available on this table yet.")
        return {"round": snapshot.current_round, "card": found.card, "code": found.code,
                "params": found.params}

    # -- records -------------------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        with self.lock:
            if self.game is None:
                raise conflict("not_started", "The game has not started yet: there is "
                                              "no record.")
            return self.game.record()

    def games(self) -> list[dict[str, Any]]:
        """The archive and the current game, oldest first."""
        with self.lock:
            out = []
            for row in self.store.games():
                rounds = self.store.rounds(row.id)
                out.append({"id": row.id, "created": row.created, "started": row.started,
                            "finished": row.finished, "current": row.id == self.game_id,
                            "players": row.players or [], "rounds": len(rounds)})
            return out

    def game_record(self, game_id: int) -> dict[str, Any]:
        with self.lock:
            row = self.store.game(game_id)
            if row is None:
                raise ApiError(404, "no_such_game", f"There is no game {game_id}.")
            record = stored_record(self.store, row)
            if record is None:
                raise conflict("not_started", f"Game {game_id} never started: there is "
                                              "no record.")
            return record
