"""The table's service: the lock, the store, the clock, the computer players and the
listeners around the pure state machine (``kalimambo.web.core.state``).

One ``Table`` per app.  Every command runs under one lock: the machine checks it and
plans it, the plan is committed to the store, and only then applied to the machine (so
a refused or failed write changes nothing, and every pick and every resolved round is
on disk before the answer).  Each command ends in ``_changed``: a new public view
(``kalimambo.web.core.view``), its JSON made once, handed to the listeners (event
streams, lights) with what happened as typed events.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import orjson

from kalimambo.engine.game import Game
from kalimambo.engine.pacing import DEFAULT_PACING, DEFAULT_PAUSE_MS
from kalimambo.engine.players import DEFAULT_LEVEL
from kalimambo.engine.setup import Setup
from kalimambo.web.core.happenings import (
    LobbyOpened,
    PlaybackEnded,
    RoundOpened,
    RoundUndone,
    Settings,
    TableEvent,
    public_events,
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
from kalimambo.web.core.playback import Playback
from kalimambo.web.core.refusals import ApiError, conflict
from kalimambo.web.core.seats import Seat, new_seat_id, new_token, token_hash
from kalimambo.web.core.state import TableState
from kalimambo.web.core.view import Surroundings, lights_summary, private_view, public_view
from kalimambo.web.core.viewdiff import diff
from kalimambo.web.storage.archive import stored_record
from kalimambo.web.storage.store import SeatRow, SettingKey, StorageError, Store
from kalimambo.web.table import bots
from kalimambo.web.table.day import Day
from kalimambo.web.table.hints import HintDesk
from kalimambo.web.table.hostlogin import HostAuth
from kalimambo.web.table.replay import SETTINGS as BOOTH_SETTINGS
from kalimambo.web.table.replay import Replays, check_settings
from kalimambo.web.table.tasks import InlineRunner

__all__ = ["VERSION_EPOCH", "Change", "Listener", "Table", "lights_summary"]

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
    happened: tuple[TableEvent, ...] = ()
    """What the command did, in order (empty for a refresh); the view's ``happened``
    is their public form."""


Listener = Callable[[Change], None]


def _seed(*parts: object) -> int:
    """A seed that is the same in every process (``hash`` of a str is not)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def _row(pos: int, seat: Seat) -> SeatRow:
    return SeatRow(pos, seat.name, seat.colour, seat.token_hash, seat.hosted,
                   seat.bot_level, seat.id)


def _rows(seats: Iterable[Seat], first: int = 0) -> list[SeatRow]:
    return [_row(first + i, seat) for i, seat in enumerate(seats)]


class Table:
    """The game at the table and everything around it (seats, host, settings)."""

    def __init__(self, store: Store, track_length: int, host: HostAuth, *,
                 join_url: str | Callable[[], str] = "", runner: InlineRunner | None = None,
                 lights_status: Callable[[], dict[str, Any]] | None = None,
                 default_pacing: str = DEFAULT_PACING,
                 default_pause_ms: int = DEFAULT_PAUSE_MS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.host = host
        self.join_url: Callable[[], str] = (join_url if callable(join_url)
                                            else lambda: join_url)
        self.runner = runner or InlineRunner()
        self.lights_status = lights_status or (lambda: {"backend": "none", "ok": False,
                                                        "error": None})
        self.clock = clock
        self.lock = threading.RLock()
        self.hint_desk = HintDesk()
        self.listeners: list[Listener] = []
        self._streams: dict[str, int] = {}
        epoch = int(store.setting(SettingKey.RESTARTS, 0)) + 1
        with contextlib.suppress(StorageError):  # a full disk at start: run, and say so
            store.set_settings({SettingKey.RESTARTS: epoch})
        self.version = epoch * VERSION_EPOCH
        settings = Settings(bool(store.setting(SettingKey.HINTS, False)),
                            str(store.setting(SettingKey.PACING, default_pacing)),
                            int(store.setting(SettingKey.PAUSE_MS, default_pause_ms)))
        self.day = Day(store)
        self.replays = Replays(store, self.day.start)  # replays and attract mode
        self.state = self._restore(track_length, settings)
        self._last = self._rebuild()
        self._ask_bots()  # after a restart mid-round, computer players pick again

    # -- restoring from the store --------------------------------------------------
    def _restore(self, track_length: int, settings: Settings) -> TableState:
        row = self.store.current_game()
        if row is None:
            self.store.new_game(track_length)
            row = self.store.current_game()
            assert row is not None
        self.game_id = row.id
        seats = [Seat(s.name, s.colour, s.token_hash, s.hosted, s.bot_level, s.id or "")
                 for s in self.store.seats(row.id)]
        if any(not seat.id for seat in seats):  # seats kept before seat ids
            taken = {seat.id for seat in seats}
            for seat in seats:
                if not seat.id:
                    seat.id = new_seat_id(taken)
                    taken.add(seat.id)
            with contextlib.suppress(StorageError):
                self.store.replace_seats(row.id, _rows(seats))
        if row.started is None or row.setup is None or row.players is None:
            return TableState(track_length, settings, seats)
        game = Game(row.players, Setup(row.setup["rhino"], tuple(row.setup["order"]),
                                       tuple(row.setup["dung"])),
                    row.track_length, kali_deck=row.kali_deck)
        rounds = [(played.cards, played.kali) for played in self.store.rounds(row.id)]
        replay_last = self.store.setting(SettingKey.PLAYBACK, None) == [row.id, len(rounds)]
        picks = self.store.picks(row.id, len(rounds) + 1)  # used only if a round is open
        return TableState.restore(row.track_length, settings, seats, game, rounds, picks,
                                  replay_last, self.clock())

    # -- what the machine holds (read-only here: change it through commands) ----------
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
    def playback(self) -> Playback | None:
        return self.state.playback

    @property
    def seats(self) -> list[Seat]:
        return self.state.seats

    @property
    def track_length(self) -> int:
        return self.state.track_length

    @property
    def hints(self) -> bool:
        return self.state.settings.hints

    @property
    def pacing(self) -> str:
        return self.state.settings.pacing

    @property
    def pause_ms(self) -> int:
        return self.state.settings.pause_ms

    # -- views ---------------------------------------------------------------------
    def _rebuild(self, happened: tuple[TableEvent, ...] = (), last_step: bool = False
                 ) -> Change:
        self.version += 1
        state = self.state
        happened += tuple(self.replays.observe(
            (self.game_id, state.phase, tuple(s.id for s in state.seats)),
            state.phase == "lobby" and not state.seats, self.clock()))
        replaying = self.replays.active  # then ``last_step`` is the replayed round's
        view = public_view(self.state, Surroundings(
            self.version, self.game_id, self.join_url(), self.lights_status(),
            self._storage_status(), self.day.start(),
            lambda name: self._streams.get(name, 0) > 0),
            last_step=last_step and not replaying)
        view["replay"] = self.replays.view(last_step and replaying)  # web/table/replay.py
        view["booth"] = dict(self.replays.settings)
        view["happened"] = public_events(happened)
        before = getattr(self, "_last", None)
        patch = orjson.dumps(diff(before.view, view)) if before is not None else None
        return Change(self.version, view, orjson.dumps(view), patch, happened)

    def _changed(self, happened: list[TableEvent] | None = None,
                 last_step: bool = False) -> None:
        """Make the new public view and tell every listener (under the lock);
        ``last_step``: the view as the playback's last step shows it, before it ends
        (the table's, or during a replay the replayed round's)."""
        change = self._last = self._rebuild(tuple(happened or ()), last_step)
        for listener in list(self.listeners):
            listener(change)

    def _commit(self, plan: Plan, game_id: int | None = None) -> list[TableEvent]:
        """Apply a plan the store has already kept (``game_id``: the new game's)."""
        happened = self.state.apply(plan, self.clock())
        if game_id is not None:
            self.game_id = game_id
        self._after(happened)
        return happened

    def _after(self, happened: list[TableEvent]) -> None:
        """After the machine moved: note in the store which round is being played (so a
        restart plays it again), tell the listeners, then ask the computer players."""
        for event in happened:  # a resolved round was marked with the round itself
            if isinstance(event, PlaybackEnded) or (
                    isinstance(event, RoundUndone | LobbyOpened) and event.stopped_playback):
                self._mark_playing(None)
        self._told(happened)
        if any(isinstance(event, RoundOpened) for event in happened):
            self._ask_bots()

    def _told(self, happened: list[TableEvent]) -> None:
        """Tell the listeners; a playback's last step, then its end, come as two small
        messages rather than one (the table's, or a replayed round's)."""
        ending = next((i for i, event in enumerate(happened)
                       if isinstance(event, PlaybackEnded)), 0)
        if ending:
            self._changed(happened[:ending], last_step=True)
            happened = happened[ending:]
        self._changed(happened)

    @property
    def current(self) -> Change:
        return self._last

    def _storage_status(self) -> dict[str, Any]:
        """Whether the store keeps changes: the host page warns when it does not."""
        problem = self.store.problem
        return {"ok": problem is None, "error": problem}

    def public_view(self) -> dict[str, Any]:
        """The current public view (the same dict every listener got: do not change it)."""
        return self._last.view

    def me(self, token: str | None) -> dict[str, Any]:
        """The seat's private view: the public view plus its hand and pick."""
        with self.lock:
            return private_view(self.state, self._last.view, self.seat_for(token))

    def hosted_me(self, seat_id: str) -> dict[str, Any]:
        """A hosted seat's private view, asked for by the host page."""
        with self.lock:
            return private_view(self.state, self._last.view, self._hosted_seat(seat_id))

    def hosted_pick(self, seat_id: str, round_no: object, card: object) -> dict[str, Any]:
        with self.lock:
            return self._pick(self._hosted_seat(seat_id), round_no, card)

    def _hosted_seat(self, seat_id: str) -> Seat:
        seat = self.state.seat_with_id(seat_id)
        if not seat.hosted:
            raise ApiError(403, "not_hosted", f"{seat.name} picks on their own phone.")
        return seat

    # -- seats -----------------------------------------------------------------------
    def seat_for(self, token: str | None) -> Seat:
        if not token:
            raise ApiError(401, "no_token", "Join the table first: this needs your seat.")
        seat = self.state.seat_by_hash(token_hash(token))
        if seat is None:
            raise ApiError(401, "unknown_token", "This phone has no seat at the table "
                                                 "(any more): please join again.")
        return seat

    def _add_seats(self, plan: AddSeats) -> None:
        self.store.add_seats(self.game_id, _rows(plan.seats, plan.first))
        self._commit(plan)

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
            self.store.replace_seats(self.game_id, _rows(plan.seats))
            self._commit(plan)

    def add_bots(self, count: object, level: object) -> list[str]:
        with self.lock:
            plan = self.state.plan_bots(count, level, bots.levels(),
                                        new_hash=lambda: token_hash(new_token()))
            self._add_seats(plan)
            return [seat.name for seat in plan.seats]

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
            plan: StartGame = self.state.plan_start(
                setup, seed if seed is not None else secrets.randbits(64),
                seed if seed is not None else secrets.randbits(64))
            self.store.start_game(self.game_id, list(plan.game.players),
                                  plan.setup.to_dict(), list(plan.game.kali_deck),
                                  _rows(self.state.seats))
            self._commit(plan)

    def pick(self, token: str | None, round_no: object, card: object) -> dict[str, Any]:
        """Record a pick (or change it); the last pick resolves the round at once."""
        with self.lock:
            seat = self.seat_for(token)
            if seat.bot:
                raise ApiError(403, "bot_seat", "A computer player picks its own cards.")
            return self._pick(seat, round_no, card)

    def _pick(self, seat: Seat, round_no: object, card: object) -> dict[str, Any]:
        plan = self.state.plan_pick(seat.name, round_no, card)
        if isinstance(plan, PickCard):
            self.store.set_pick(self.game_id, plan.round, plan.player, plan.card)
        else:
            self.store.add_round(self.game_id, plan.round, plan.cards, plan.kali,  # one fsync
                                 finished=plan.finishes,
                                 settings={SettingKey.PLAYBACK: [self.game_id, plan.round]})
        self._commit(plan)
        return {"round": plan.round, "card": plan.card,
                "resolved": isinstance(plan, ResolveRound)}

    # -- the playback ----------------------------------------------------------------
    def _mark_playing(self, value: list[int] | None) -> None:
        """Keep in the store which round is being played, so a restart plays it again."""
        with contextlib.suppress(StorageError):  # the round itself is stored already
            self.store.set_settings({SettingKey.PLAYBACK: value})

    def due(self) -> float | None:
        """When the table's clock should call ``tick`` (auto pacing, a replay's next
        step, the empty lobby's attract time), else None."""
        with self.lock:
            due = [self.state.due, self.replays.due()]
            return min((d for d in due if d is not None), default=None)

    def tick(self) -> bool:
        """The clock: show the next step if its time has come (auto pacing)."""
        with self.lock:
            happened = self.state.tick(self.clock())
            if happened:
                self._after(happened)
                return True
            moved, replayed = self.replays.tick(self.clock(), self.pause_ms)
            if moved:
                self._told(replayed)
            return moved

    def next_step(self) -> dict[str, Any]:
        """"Next" (any pacing): show one more step; answers the playback."""
        with self.lock:
            if self.replays.active:
                self._told(self.replays.next(self.clock()))
                return self._last.view["replay"]["board"]["playback"] or {}
            self._after(self.state.next_step(self.clock()))
            return self._last.view["playback"] or {}

    def skip(self) -> dict[str, Any]:
        """End the playback at once: every step left, each a jump of its own (the
        displays draw it without animating it), so no message carries the whole rest
        of the round.  They are made together under the lock: no request ever answers
        with a step in between."""
        with self.lock:
            if self.replays.active:
                self._told(self.replays.skip_step(self.clock()))
                while not self.replays.round_done():
                    self._told(self.replays.skip_step(self.clock()))
                return self._last.view["replay"]["board"]["playback"] or {}
            skipping = self.state.playback
            self._after(self.state.skip_step())
            # (computer players may have played the next round by now: not skipped)
            while self.state.playing and self.state.playback is skipping:
                self._after(self.state.skip_step())
            return self._last.view["playback"] or {}

    def undo(self) -> None:
        with self.lock:
            plan: UndoRound = self.state.plan_undo()
            self.store.undo_round(self.game_id, plan.round)
            self._commit(plan)

    def new_game(self, keep_seats: object = True) -> None:
        """Archive this game and open a new lobby, with the same seats (people and
        computer players) unless asked to clear them."""
        with self.lock:
            plan: OpenLobby = self.state.plan_new_game(keep_seats)
            game_id = self.store.new_game(self.state.track_length, archive=self.game_id,
                                          seats=_rows(plan.seats))
            self._streams = {name: n for name, n in self._streams.items()
                             if any(s.name == name for s in plan.seats)}
            self._commit(plan, game_id)

    # -- computer players -------------------------------------------------------------
    def _ask_bots(self) -> None:
        """Ask every computer player still to pick for its card (at once, or in the
        background)."""
        game = self.state.game
        for seat in self.state.waiting_bots():
            assert game is not None
            self._schedule_bot(seat, game)

    def _schedule_bot(self, seat: Seat, game: Game) -> None:
        key = (self.game_id, self.state.epoch, game.current_round)
        snapshot = copy.deepcopy(game)
        seed = _seed(self.game_id, game.current_round, seat.name)
        level = seat.bot_level or DEFAULT_LEVEL
        name = seat.name

        def think() -> None:
            card = self.runner.compute(lambda: bots.choose_card(level, snapshot, name, seed))
            with self.lock:
                state = self.state
                if key != (self.game_id, state.epoch,
                           state.game.current_round if state.game else 0):
                    return
                current = next((s for s in state.seats if s.name == name), None)
                if current is None or name in state.picks:
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
            plan: ChangeSettings = self.state.plan_settings(
                {key: value for key, value in data.items() if key not in BOOTH_SETTINGS})
            booth = check_settings(data)  # the booth's (web/table/replay.py)
            answer = plan.settings.to_dict()
            self.store.set_settings({SettingKey.HINTS: plan.settings.hints,
                                     SettingKey.PACING: plan.settings.pacing,
                                     SettingKey.PAUSE_MS: plan.settings.pause_ms, **booth})
            self.replays.apply(booth, self.clock())
            self.replays.set_pacing(plan.settings.pacing, plan.settings.pause_ms,
                                    self.clock())
            self._commit(plan)
            return {**answer, **self.replays.settings}

    def new_day(self) -> float:
        """The host's "new day": the leaderboard counts games from now on."""
        with self.lock:
            start = self.day.begin()
            self._changed()
            return start

    def replay(self, game_id: object) -> dict[str, Any]:
        """The host's replay of a stored game on the strip and the board (web/table/replay.py)."""
        with self.lock:
            self._told(self.replays.start(game_id, self.phase, self.pacing, self.pause_ms,
                                          self.clock()))
            return dict(self._last.view["replay"])

    def stop_replay(self) -> None:
        """The host stops the replay (attract mode comes back after another idle wait)."""
        with self.lock:
            self._changed(self.replays.stop(self.clock()))

    def refresh(self) -> None:
        """Something outside the game changed (the lights): send a new view."""
        with self.lock:
            self._changed()

    def hint(self, token: str | None) -> dict[str, Any]:
        with self.lock:
            seat = self.seat_for(token)
            game = self.state.check_hint()
            key = (self.game_id, self.state.epoch, game.current_round, seat.id)
            snapshot = copy.deepcopy(game)
            seed = _seed(self.game_id, game.current_round, seat.name, "hint")
        found = self.hint_desk.get(key, lambda: self.runner.compute(
            lambda: bots.suggest(snapshot, seat.name, seed)))
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
        """The archive and the current game, oldest first (two queries, whatever its size:
        the lock is held while they run)."""
        with self.lock:
            counts = self.store.round_counts()
            return [{"id": row.id, "created": row.created, "started": row.started,
                     "finished": row.finished, "current": row.id == self.game_id,
                     "players": row.players or [], "rounds": counts.get(row.id, 0)}
                    for row in self.store.games()]

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
