"""The running table: the lock, the store and the clock around the pure state machine
(``kalimambo.web.core.state``), and the table's commands.

One ``Table`` per app.  Every command runs under one lock: the machine checks it and
plans it, the plan is committed to the store, and only then applied to the machine (so
a refused or failed write changes nothing, and every pick and every resolved round is
on disk before the answer).  Each command ends in ``_after``: a new public view
(``kalimambo.web.core.view``) published with what happened as typed events
(``publisher``).  Around it: restoring from the store (``restore``), the computer
players and hints (``thinking``), the open streams (``streams``), replays and attract
mode as a mode of the table (``modes``, ``replay``, ``attract``), the booth's settings
(``booth``), the records (``records``) and the table's own clock (``clock``: its
timers, started by ``start_clock``).
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kalimambo.engine.game import Game
from kalimambo.engine.pacing import DEFAULT_PACING, DEFAULT_PAUSE_MS
from kalimambo.web.core.happenings import (
    LobbyOpened,
    PlaybackEnded,
    RoundOpened,
    RoundUndone,
    TableEvent,
)
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
)
from kalimambo.web.core.refusals import Kind, Refusal
from kalimambo.web.core.seats import Seat, new_token, token_hash
from kalimambo.web.core.view import Surroundings, own_view, private_view, public_view
from kalimambo.web.core.viewtypes import BoothView, PrivateView, PublicView, ReplayView
from kalimambo.web.storage.store import SettingKey, StorageError, Store
from kalimambo.web.table import bots
from kalimambo.web.table.attract import AttractMode
from kalimambo.web.table.booth import SETTINGS as BOOTH_SETTINGS
from kalimambo.web.table.booth import check_booth_settings, stored_booth_settings
from kalimambo.web.table.clock import TableClock, TimerFactory
from kalimambo.web.table.day import Day
from kalimambo.web.table.hostlogin import HostAuth, booth_mode
from kalimambo.web.table.modes import LiveMode, PlaybackMode, ReplayMode
from kalimambo.web.table.publisher import Change, Listener, Publisher
from kalimambo.web.table.records import Records
from kalimambo.web.table.replay import Replays
from kalimambo.web.table.restore import (
    count_restart,
    restore,
    seat_rows,
    stored_placing,
    stored_settings,
)
from kalimambo.web.table.streams import StreamCounter
from kalimambo.web.table.tasks import InlineRunner
from kalimambo.web.table.thinking import RoundKey, Thinking, round_key

__all__ = ["Change", "Listener", "Table"]


WRITE_BACK_EVERY_S = 10.0
"""How often a table whose store went into memory (a full disk) tries the disk again: each
try copies the whole store, so not at every change."""


class Table:
    """The game at the table and its commands (seats, the game, the playback, the host's)."""

    def __init__(self, store: Store, track_length: int, host: HostAuth, *,
                 join_url: str | Callable[[], str] = "", runner: InlineRunner | None = None,
                 lights_status: Callable[[], dict[str, Any]] | None = None,
                 default_pacing: str = DEFAULT_PACING,
                 default_pause_ms: int = DEFAULT_PAUSE_MS,
                 clock: Callable[[], float] = time.monotonic,
                 timer: TimerFactory = threading.Timer,
                 listeners: Sequence[Listener] = ()) -> None:
        """``clock``: the time its playback runs on; ``timer``: what its own clock's timers
        are made with (``start_clock``); ``listeners``: told of every change once the
        table is made (the view it starts with they find as ``current``). The table's
        one lock is its own (``lock``): the lights link welcomes a lights process under
        it; it is held while the table is made, so a computer player's pick from
        another thread waits until the table is whole."""
        self.lock = threading.RLock()
        with self.lock:
            self._make(store, track_length, host, join_url, runner, lights_status,
                       default_pacing, default_pause_ms, clock, timer, listeners)

    def _make(self, store: Store, track_length: int, host: HostAuth,
              join_url: str | Callable[[], str], runner: InlineRunner | None,
              lights_status: Callable[[], dict[str, Any]] | None, default_pacing: str,
              default_pause_ms: int, clock: Callable[[], float], timer: TimerFactory,
              listeners: Sequence[Listener]) -> None:
        self.store = store
        self.host = host
        self.join_url: Callable[[], str] = (join_url if callable(join_url)
                                            else lambda: join_url)
        self.lights_status = lights_status or (lambda: {"backend": "none", "ok": False,
                                                        "error": None})
        self.clock = clock
        self.timekeeper = TableClock(self, timer)
        self.thinking = Thinking(runner)
        self.streams = StreamCounter()
        self.publisher = Publisher(count_restart(store))
        self.day = Day(store)
        self.replays = Replays(store, AttractMode(store, self.day.start),
                               stored_booth_settings(store))  # replays and attract mode
        self.game_id, self.state = restore(
            store, track_length, stored_settings(store, default_pacing, default_pause_ms),
            clock())
        self.live = LiveMode(self.state, self.replays)
        self.replaying = ReplayMode(self.state, self.replays)
        self.records = Records(store, self.lock, lambda: (self.game_id, self.state.game))
        self._kept_placing = stored_placing(store, self.game_id)
        self._write_back_at: float | None = None
        """While the store lives in memory (the disk was full): when to try the disk again."""
        self._keep_placing()  # a restart mid-playback names the round's pieces
        self._after([])  # the first view; the replays learn the table they watch
        self._ask_bots()  # after a restart mid-round, computer players pick again
        self.publisher.listeners.extend([*listeners, self.timekeeper.changed])

    def start_clock(self) -> None:
        """The table's clock running: its next step, its midnight (``close_clock``)."""
        self.timekeeper.start()

    def close_clock(self) -> None:
        self.timekeeper.close()

    # -- what the machine holds (read-only here: change it through commands) ----------
    @property
    def listeners(self) -> list[Listener]:
        return self.publisher.listeners

    @property
    def current(self) -> Change:
        return self.publisher.current

    @property
    def mode(self) -> PlaybackMode:
        """What the clock, "next" and "skip" move: a replay while one runs, else the game."""
        return self.replaying if self.replays.active else self.live

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def playing(self) -> bool:
        return self.state.playing

    @property
    def game(self) -> Game | None:
        return self.state.game

    @property
    def view_json(self) -> bytes:
        """The current public view as JSON (made once per change, as every stream got it)."""
        return self.current.view_json

    def public_view(self) -> PublicView:
        """The current public view (the same dict every listener got: do not change it)."""
        return self.current.view

    def me(self, token: str | None) -> PrivateView:
        """The seat's private view: the public view plus its hand and pick."""
        with self.lock:
            return private_view(self.state, self.public_view(), self.seat_for(token))

    def hosted_me(self, seat_id: str) -> PrivateView:
        """A hosted seat's private view, asked for by the host page."""
        with self.lock:
            return private_view(self.state, self.public_view(), self._hosted_seat(seat_id))

    # -- views ---------------------------------------------------------------------
    def _changed(self, happened: tuple[TableEvent, ...] = (),
                 ending: PlaybackEnded | None = None) -> None:
        """Publish the new public view (under the lock).  ``ending``: the playback it
        ends, shown as its last step shows it before the end comes (the table's, or a
        replayed round's)."""
        state = self.state
        problem = self.store.problem
        view: PublicView = {
            **public_view(state, Surroundings(
                self.publisher.next_version(), self.game_id, self.join_url(),
                self.lights_status(), {"ok": problem is None, "error": problem,
                                       "in_memory": self.store.in_memory},
                self.day.start(), self.streams.connected),
                last_step=ending is not None and not ending.replay),
            "replay": self.replays.view(ending is not None and ending.replay),
            "booth": self._booth()}
        self.publisher.publish(view, happened,
                               {seat.id: own_view(state, seat) for seat in state.seats})

    def _booth(self) -> BoothView:
        """The booth's settings as the view shows them."""
        settings = self.replays.settings
        return {"attract": settings[SettingKey.ATTRACT],
                "attract_after_s": settings[SettingKey.ATTRACT_AFTER_S],
                "sound": settings[SettingKey.SOUND]}

    def _command(self, plan: Plan, save: Callable[[], object]) -> None:
        """Every stored command's one path: the plan (made by the machine, which checked
        it and changed nothing), saved (``save``: in the store before anything changes),
        applied, then what follows any change (``_after``)."""
        save()
        self._after(self.state.apply(plan, self.clock()))

    def _replay_stopped_by_change(self) -> list[TableEvent]:
        """A replay stops when the table's game, phase or seats change (a phone joining);
        the empty lobby's idle time starts or stops (attract mode)."""
        state = self.state
        return self.replays.observe(
            (self.game_id, state.phase, tuple(s.id for s in state.seats)),
            state.phase == "lobby" and not state.seats, self.clock())

    def _after(self, happened: list[TableEvent]) -> None:
        """After the machine (or the replay) moved: a replay the change stops, then the
        store's note of which round is being played (so a restart plays it again), the
        view published, the computer players asked.  A playback's last step, then its
        end, come as two small messages."""
        stopped = self._replay_stopped_by_change()
        for event in happened:  # a resolved round was marked with the round itself
            if (isinstance(event, PlaybackEnded) and not event.replay) or (
                    isinstance(event, RoundUndone | LobbyOpened) and event.stopped_playback):
                self._mark_playing(None)
        ending = next((i for i, event in enumerate(happened)
                       if isinstance(event, PlaybackEnded)), 0)
        self._keep_placing()
        if ending:
            last = happened[ending]
            assert isinstance(last, PlaybackEnded)
            self._changed((*happened[:ending], *stopped), last)
            happened, stopped = happened[ending:], []
        self._changed((*happened, *stopped))
        if any(isinstance(event, RoundOpened) for event in happened):
            self._ask_bots()

    def refresh(self) -> None:
        """Something outside the game changed (the lights, the day): send a new view."""
        with self.lock:
            self._changed()

    # -- seats -----------------------------------------------------------------------
    def seat_for(self, token: str | None) -> Seat:
        if not token:
            raise Refusal(Kind.UNKNOWN_CALLER, "no_token",
                          "Join the table first: this needs your seat.")
        seat = self.state.seat_by_hash(token_hash(token))
        if seat is None:
            raise Refusal(Kind.UNKNOWN_CALLER, "unknown_token",
                          "This phone has no seat at the table (any more): please join again.")
        return seat

    def _hosted_seat(self, seat_id: str) -> Seat:
        seat = self.state.seat_with_id(seat_id)
        if not seat.hosted:
            raise Refusal(Kind.NOT_ALLOWED, "not_hosted", f"{seat.name} picks on their own phone.")
        return seat

    def _add_seats(self, plan: AddSeats) -> None:
        self._command(plan, lambda: self.store.add_seats(self.game_id,
                                                         seat_rows(plan.seats, plan.first)))

    def join(self, name: object, hosted: bool = False) -> tuple[Seat, str]:
        """A new seat and its token (only the phone gets it)."""
        with self.lock:
            token = new_token()
            plan = self.state.plan_join(name, hosted=hosted, token_hash=token_hash(token))
            self._add_seats(plan)
            return plan.seats[0], token

    def remove_seat(self, name: object = None, seat_id: object = None) -> None:
        """Remove a seat before the start, named by its id or (folded) name."""
        with self.lock:
            plan: SetSeats = self.state.plan_remove(name, seat_id)
            self._command(plan, lambda: self.store.replace_seats(self.game_id,
                                                                 seat_rows(plan.seats)))

    def add_bots(self, count: object, level: object) -> list[str]:
        with self.lock:
            plan = self.state.plan_bots(count, level, bots.levels(),
                                        new_hash=lambda: token_hash(new_token()))
            self._add_seats(plan)
            return [seat.name for seat in plan.seats]

    def stream_opened(self, token: str | None) -> str | None:
        """An event stream with a seat's token is open: that seat counts as connected.
        The seat's id, whose own part the stream then carries (None: a public stream)."""
        return self._stream_count(token, +1)

    def stream_closed(self, token: str | None) -> None:
        self._stream_count(token, -1)

    def _stream_count(self, token: str | None, step: int) -> str | None:
        if not token:
            return None
        with self.lock:
            seat = self.state.seat_by_hash(token_hash(token))
            if seat is None:
                return None
            if self.streams.count(seat.name, step):
                self._changed()
            return seat.id

    # -- the game ----------------------------------------------------------------------
    def start(self, setup: object, seed: int | None = None) -> None:
        with self.lock:
            plan: StartGame = self.state.plan_start(
                setup, seed if seed is not None else secrets.randbits(64),
                seed if seed is not None else secrets.randbits(64))
            self._command(plan, lambda: self.store.start_game(
                self.game_id, list(plan.game.players), plan.setup.to_dict(),
                list(plan.game.kali_deck), seat_rows(self.state.seats)))

    def pick(self, token: str | None, round_no: object, card: object) -> dict[str, Any]:
        """Record a pick (or change it); the last pick resolves the round at once."""
        with self.lock:
            seat = self.seat_for(token)
            if seat.bot:
                raise Refusal(Kind.NOT_ALLOWED, "bot_seat",
                              "A computer player picks its own cards.")
            return self._pick(seat, round_no, card)

    def hosted_pick(self, seat_id: str, round_no: object, card: object) -> dict[str, Any]:
        with self.lock:
            return self._pick(self._hosted_seat(seat_id), round_no, card)

    def _pick(self, seat: Seat, round_no: object, card: object) -> dict[str, Any]:
        plan = self.state.plan_pick(seat.name, round_no, card)

        def save() -> None:
            if isinstance(plan, PickCard):
                self.store.set_pick(self.game_id, plan.round, plan.player, plan.card)
            else:  # the round, and that it is being played: one fsync
                self.store.add_round(self.game_id, plan.round, plan.cards, plan.kali,
                                     finished=plan.finishes,
                                     settings={SettingKey.PLAYBACK: [self.game_id, plan.round]})

        self._command(plan, save)
        return {"round": plan.round, "card": plan.card,
                "resolved": isinstance(plan, ResolveRound)}

    def undo(self) -> None:
        with self.lock:
            plan: UndoRound = self.state.plan_undo()
            self._command(plan, lambda: self.store.undo_round(self.game_id, plan.round))

    def new_game(self, keep_seats: object = True) -> None:
        """Archive this game and open a new lobby, with the same seats (people and
        computer players) unless asked to clear them."""
        with self.lock:
            plan: OpenLobby = self.state.plan_new_game(keep_seats)

            def save() -> None:  # this game archived, the next one's number
                self.game_id = self.store.new_game(self.state.track_length,
                                                   archive=self.game_id,
                                                   seats=seat_rows(plan.seats))
                self.streams.keep_only(seat.name for seat in plan.seats)

            self._command(plan, save)

    # -- the playback (the game's, or a replay's: ``mode``) --------------------------
    def _keep_placing(self) -> None:
        """Keep in the store the pieces waiting to be moved by hand (when they change),
        so a restart still names them."""
        placing = self.state.placing
        if placing == self._kept_placing:
            return
        self._kept_placing = placing
        with contextlib.suppress(StorageError):  # the displays say it all the same
            self.store.set_settings({SettingKey.PLACING: [self.game_id, placing.public()]
                                     if placing else None})

    def _mark_playing(self, value: list[int] | None) -> None:
        """Keep in the store which round is being played, so a restart plays it again."""
        with contextlib.suppress(StorageError):  # the round itself is stored already
            self.store.set_settings({SettingKey.PLAYBACK: value})

    def due(self) -> float | None:
        """When the table's clock should call ``tick`` (auto pacing, a replay's next
        step, the empty lobby's attract time, the next try to write a store kept in
        memory back to the disk), else None."""
        with self.lock:
            due = self.mode.due()
            if not self.store.in_memory:
                self._write_back_at = None
                return due
            if self._write_back_at is None:
                self._write_back_at = self.clock() + WRITE_BACK_EVERY_S
            return self._write_back_at if due is None else min(due, self._write_back_at)

    def tick(self) -> bool:
        """The clock: show the next step if its time has come, write a store kept in
        memory back if the disk has room again; whether anything did."""
        with self.lock:
            now = self.clock()
            written = False
            if self._write_back_at is not None and now >= self._write_back_at:
                self._write_back_at = None  # (due sets the next try)
                written = self.store.in_memory and self.store.write_back()
            happened = self.mode.tick(now)
            if happened:
                self._after(happened)
            elif written:
                self._changed()  # the host page: the table writes again
            return bool(happened) or written

    def next_step(self) -> Mapping[str, Any]:
        """"Next" (any pacing): show one more step; answers the playback."""
        with self.lock:
            mode = self.mode
            self._after(mode.next_step(self.clock()))
            return mode.answer(self.current.view)

    def screen_next(self) -> Mapping[str, Any]:
        """"Next" from the table's own screen: only while what plays waits for it (step
        pacing), else 409 ``not_step``; answers the playback as ``next_step``."""
        with self.lock:
            playback = self.mode.answer(self.current.view)
            if playback and playback.get("pacing") != "step":
                raise Refusal(Kind.CONFLICT, "not_step",
                              "The table plays this round by itself: \"Next\" is for step "
                              "pacing.")
            return self.next_step()

    def skip(self) -> Mapping[str, Any]:
        """End the playback at once: every step left, each a jump of its own (the
        displays draw it without animating it), so no message carries the whole rest
        of the round.  They are made together under the lock: no request ever answers
        with a step in between; the round's end stops it (computer players may have
        played the next round by then: that one is not skipped)."""
        with self.lock:
            mode = self.mode
            ended = False
            while not ended:
                happened = mode.skip_step(self.clock())
                ended = any(isinstance(event, PlaybackEnded) for event in happened)
                self._after(happened)
            return mode.answer(self.current.view)

    def placed(self) -> None:
        """The host's "Done": the wooden pieces stand where the displays say (409
        ``nothing_to_place`` when none were waiting)."""
        with self.lock:
            self._after(self.state.placed())

    # -- computer players and hints ------------------------------------------------------
    def _ask_bots(self) -> None:
        self.thinking.ask_bots(self.game_id, self.state, self._bot_played)

    def _bot_played(self, key: RoundKey, name: str, card: int) -> None:
        """A computer player's card, for the round it was asked in (else dropped)."""
        with self.lock:
            state = self.state
            if key != round_key(self.game_id, state) or name in state.picks:
                return
            seat = next((s for s in state.seats if s.name == name), None)
            if seat is None:
                return
            with contextlib.suppress(Refusal, StorageError):
                self._pick(seat, key[2], card)

    def hint(self, token: str | None) -> dict[str, Any]:
        with self.lock:
            seat = self.seat_for(token)
            search = self.thinking.hint_for(self.game_id, self.state, seat.id, seat.name)
        return search()  # off the lock: other requests go on meanwhile

    # -- the host -----------------------------------------------------------------------
    def check_host(self, token: str | None) -> None:
        """Raise 401/403 ``host_only`` unless ``token`` is a host's."""
        self.host.check(token)

    @property
    def has_host_pin(self) -> bool:
        """Whether the host may log in with a PIN (else only the host key or its link)."""
        return self.host.has_pin

    def host_login(self, secret: object, address: str) -> str:
        """A host token for the key, the PIN or the first-host code (``HostAuth.login``);
        the first-host code never opens anything in booth mode."""
        return self.host.login(secret, address, booth=booth_mode(self.current.view))

    def first_host_open(self) -> bool:
        """Whether the own screen may show the first-host QR code now."""
        return self.host.first_host_open(booth_mode(self.current.view))

    def first_host_code(self) -> str:
        """The first-host code, for the own screen's QR code (StorageError if unsaved)."""
        return self.host.first_code()

    def settings(self, data: dict[str, Any]) -> dict[str, Any]:
        """Change hints, light pacing and the booth's; unknown keys are refused, nothing
        half-set."""
        with self.lock:
            plan: ChangeSettings = self.state.plan_settings(
                {key: value for key, value in data.items() if key not in BOOTH_SETTINGS})
            booth = check_booth_settings(data)  # the booth's (web/table/booth.py)

            def save() -> None:  # in the store, then in the replays' own settings
                self.store.set_settings({SettingKey.HINTS: plan.settings.hints,
                                         SettingKey.PACING: plan.settings.pacing,
                                         SettingKey.PAUSE_MS: plan.settings.pause_ms, **booth})
                now = self.clock()
                self.replays.apply(booth, now)
                self.replays.set_pacing(plan.settings.pacing, plan.settings.pause_ms, now)

            self._command(plan, save)
            return {**plan.settings.to_dict(), **self.replays.settings}

    def new_day(self) -> float:
        """The host's "new day": the leaderboard counts games from now on."""
        with self.lock:
            start = self.day.begin()
            self._changed()
            return start

    def replay(self, game_id: object) -> ReplayView:
        """The host's replay of a stored game on the strip and the board (``replay``)."""
        with self.lock:
            settings = self.state.settings
            self._after(self.replays.start(game_id, self.phase, settings.pacing,
                                           settings.pause_ms, self.clock()))
            replay = self.public_view()["replay"]
            assert replay is not None, "the replay has just started"
            return {**replay}

    def stop_replay(self) -> None:
        """The host stops the replay (attract mode comes back after another idle wait)."""
        with self.lock:
            self._after(self.replays.stop(self.clock()))
