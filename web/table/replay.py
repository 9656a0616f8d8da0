"""Replays of archived games and the booth's attract mode: a pure object over the table.

A replay plays a stored game back round by round with the very steps of a live round
(``engine.timeline`` through ``web.core.playback.Playback``), on its own board: it never
touches the table's game, the store's rows or any statistic.  The view carries it as
``replay`` (``replay.board`` is shaped like the live view's board part, so the strip
and the board page draw it with the code that draws a live round).

Attract mode is a replay the table starts by itself when the lobby has sat empty for
``attract_after_s``: the day's most eventful finished game, with the reason it was
picked.  No clock and no threads here: the table passes ``now`` and its service wakes
the table at ``due()`` (the same timer as the live playback), so tests drive it with
an injected clock.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from kalimambo.engine.record import parse_record, replay
from kalimambo.engine.timeline import BoardState
from kalimambo.engine.values import is_int
from kalimambo.web.core.happenings import ReplayStarted, ReplayStopped, TableEvent
from kalimambo.web.core.playback import Playback, playback_ended, step_shown
from kalimambo.web.core.refusals import ApiError, bad_request, conflict
from kalimambo.web.core.seats import COLOURS
from kalimambo.web.storage.archive import stored_record
from kalimambo.web.storage.store import GameRow, SettingKey, Store

ROUND_GAP_S = 2.0
"""Auto pacing: the pause between one replayed round's end and the next one's reveal."""
END_HOLD_S = 10.0
"""The last round's end stays on screen this long before the replay goes (or attract
mode picks again)."""
DEFAULT_ATTRACT_AFTER_S = 120
ATTRACT_AFTER_MIN_S = 1
ATTRACT_AFTER_MAX_S = 3600
GAME_ID_MAX = 2**63 - 1
"""The largest id the store can hold (SQLite's INTEGER): a bigger one is no game."""
SETTINGS = {SettingKey.ATTRACT: True, SettingKey.ATTRACT_AFTER_S: DEFAULT_ATTRACT_AFTER_S,
            SettingKey.SOUND: False}
"""The booth's host settings and their defaults (kept in the store's settings)."""

WEIGHT_RHINO_SPACE = 1.0
WEIGHT_PENALTY_POINT = 2.0
WEIGHT_DUNG_HIT = 1.0
"""How eventful a game is: its most striking moment, weighed: one point per space of
Mambo's longest run, two per minus point of the biggest loss of one player in one
round, one per time an explorer stepped in dung over the game (a long run or a
heavy blow makes a better story than a game of many small splats)."""


@dataclass(frozen=True, slots=True)
class ReplayRound:
    """One stored round: its events (the steps are made from them) and the board before."""

    number: int
    events: list[dict[str, Any]]
    before: BoardState
    entry: dict[str, Any]
    """Its ``history`` entry without the events: round, cards, kali, minus_points."""


@dataclass(frozen=True, slots=True)
class ReplayGame:
    """A stored game ready to be played back."""

    game_id: int
    finished: float | None
    players: list[str]
    colours: dict[str, str]
    bots: dict[str, str]
    """Computer players and their levels."""
    track_length: int
    setup: dict[str, Any]
    rounds: list[ReplayRound]
    winners: list[str]


@dataclass(frozen=True, slots=True)
class Highlight:
    """Why a game was picked: a message code for the pages and its values."""

    score: float
    code: str
    params: dict[str, Any]

    def to_view(self) -> dict[str, Any]:
        return {"code": self.code, "params": dict(self.params)}


def load_game(store: Store, row: GameRow) -> ReplayGame | None:
    """The stored game ``row`` as rounds to play back; None if it never started or has no
    round yet."""
    record = stored_record(store, row)
    if record is None or not record["rounds"]:
        return None
    parsed = parse_record(record)
    result = replay(parsed, with_events=True)
    players = list(parsed.players)
    before = BoardState(parsed.setup.rhino, parsed.setup.positions(parsed.track_length),
                        dict.fromkeys(players, 0))
    rounds: list[ReplayRound] = []
    for played, snapshot in zip(record["rounds"], result["snapshots"], strict=True):
        number = int(snapshot["round"])
        entry = {"round": number, "cards": dict(played["cards"]), "kali": played["kali"],
                 "minus_points": dict(snapshot["minus_points"])}
        rounds.append(ReplayRound(number, snapshot["events"], before, entry))
        before = BoardState(snapshot["rhino"], dict(snapshot["positions"]),
                            dict(snapshot["minus_points"]))
    roster = row.roster or {}
    colours = {name: str(roster.get(name, {}).get("colour") or COLOURS[i % len(COLOURS)])
               for i, name in enumerate(players)}
    bots = {name: str(roster[name]["bot"]) for name in players
            if roster.get(name, {}).get("bot")}
    return ReplayGame(row.id, row.finished, players, colours, bots, parsed.track_length,
                      record["setup"], rounds, list(result["winners"]))


def highlight(game: ReplayGame) -> Highlight | None:
    """The game's most striking moment (see the weights above), or None for a quiet one."""
    found: list[Highlight] = []
    dung = 0
    for played in game.rounds:
        lost: dict[str, int] = {}
        for event in played.events:
            kind = event.get("type")
            if kind == "rhino_run" and int(event.get("spaces", 0)) > 0:
                spaces = int(event["spaces"])
                found.append(Highlight(spaces * WEIGHT_RHINO_SPACE, "rhino_run",
                                       {"spaces": spaces, "round": played.number}))
            elif kind == "dung":
                dung += 1
            elif kind == "penalty":
                name = str(event["player"])
                lost[name] = lost.get(name, 0) + int(event["points"])
        for name, points in lost.items():
            if points > 0:
                found.append(Highlight(points * WEIGHT_PENALTY_POINT, "penalty",
                                       {"name": name, "points": points,
                                        "round": played.number}))
    if dung:
        found.append(Highlight(dung * WEIGHT_DUNG_HIT, "dung", {"count": dung}))
    # the strongest moment; of equals, the earliest (the first one found)
    return max(found, key=lambda h: h.score, default=None)


def most_eventful(games: list[ReplayGame]) -> tuple[ReplayGame, Highlight] | None:
    """The game with the strongest moment (of equals, the latest finished), and it."""
    best: tuple[ReplayGame, Highlight] | None = None
    for game in games:
        found = highlight(game)
        if found is None:
            continue
        if best is None or (found.score, game.finished or 0) >= (best[1].score,
                                                                 best[0].finished or 0):
            best = (game, found)
    return best


@dataclass(slots=True)
class Running:
    """A replay under way: which round, its playback cursor, and the pause after it."""

    game: ReplayGame
    attract: bool
    reason: Highlight | None
    pacing: str
    pause_ms: int
    index: int = 0
    playback: Playback | None = None
    wait_until: float | None = None
    """Once a round's playback is done: when the next round begins (or the replay ends)."""

    @property
    def last(self) -> bool:
        return self.index >= len(self.game.rounds) - 1

    @property
    def done(self) -> bool:
        """The last round has been played to its end."""
        return self.last and self.playback is not None and self.playback.done

    @property
    def due(self) -> float | None:
        if self.playback is None:
            return None
        return self.playback.due if not self.playback.done else self.wait_until

    def begin(self, index: int, now: float) -> None:
        """Round ``index`` from its step 0 (in auto pacing its reveal is due at once)."""
        played = self.game.rounds[index]
        self.index = index
        self.playback = Playback.begin(played.number, played.events, played.before,
                                       self.pacing, self.pause_ms, now)
        self.wait_until = None

    def start(self, now: float) -> None:
        """At the first round's step 0: the replay's start is a message of its own, and
        its reveal comes in the next (at once in auto pacing, on the table's clock)."""
        self.begin(0, now)

    def _open(self, index: int, now: float) -> None:
        """Round ``index`` with its reveal shown at once, as a live round's."""
        self.begin(index, now)
        assert self.playback is not None
        self.playback.advance(now)
        self._after(now)

    def stepped(self) -> list[TableEvent]:
        """What the step just shown did: the step, and the round's end after its last."""
        playback = self.playback
        if playback is None or playback.current() is None:
            return []
        happened: list[TableEvent] = [step_shown(playback, replay=True)]
        if playback.done:
            happened.append(playback_ended(playback, replay=True))
        return happened

    def _after(self, now: float) -> None:
        playback = self.playback
        if playback is None or not playback.done:
            self.wait_until = None
        elif self.last:
            self.wait_until = now + END_HOLD_S
        else:
            self.wait_until = now + ROUND_GAP_S if self.pacing == "auto" else None

    def tick(self, now: float) -> tuple[str, list[TableEvent]]:
        """The clock: ``("moved", happened)``, ``("ended", [])`` or ``("", [])``."""
        playback = self.playback
        if playback is None:
            return "", []
        if not playback.done:
            if not playback.advance(now):
                return "", []
            self._after(now)
            return "moved", self.stepped()
        if self.wait_until is None or now < self.wait_until:
            return "", []
        if self.last:
            return "ended", []
        self._open(self.index + 1, now)
        return "moved", self.stepped()

    def _round_to_play(self, now: float) -> Playback:
        """The round that Next or Skip acts on: this one, or once it is done the next."""
        if self.playback is not None and self.playback.done:
            if self.last:
                raise conflict("not_playing", "The replay has ended.")
            self.begin(self.index + 1, now)
        assert self.playback is not None
        return self.playback

    def next(self, now: float) -> list[TableEvent]:
        """"Next": one more step, or the next round's reveal."""
        self._round_to_play(now).next(now)
        self._after(now)
        return self.stepped()

    def skip_step(self, now: float) -> list[TableEvent]:
        """"Skip", one step at a time: the next step of this round (between rounds: of
        the next one) as a jump.  Skipping is calling this until that round is done
        (``Table.skip``), a change for each step."""
        self._round_to_play(now).jump()
        self._after(now)
        return self.stepped()

    def set_pacing(self, pacing: str, pause_ms: int, now: float) -> None:
        if self.attract:  # nobody presses "next" for a booth's passers-by
            pacing = "auto"
        self.pacing, self.pause_ms = pacing, pause_ms
        if self.playback is not None and not self.playback.done:
            self.playback.set_pacing(pacing, pause_ms, now)
        elif self.playback is not None and not self.last:
            self._after(now)

    def to_view(self, last_step: bool = False) -> dict[str, Any]:
        """``replay`` in the public view; ``board`` has the live view's board keys.
        ``last_step``: as a round's last step shows it, before the round's end (its
        ``round_end`` and history entry come in a message of their own, as live)."""
        game = self.game
        playback = self.playback
        assert playback is not None
        board = playback.board()
        ended = playback.done and not last_step
        rounds_done = self.index + (1 if ended else 0)
        done = self.done and ended
        return {
            "game_id": game.game_id,
            "attract": self.attract,
            "reason": self.reason.to_view() if self.reason else None,
            "rounds": len(game.rounds),
            "done": done,
            "board": {
                "phase": "finished" if done else "playing",
                "game_id": f"replay-{game.game_id}",
                "round": playback.round,
                "track_length": game.track_length,
                "seats": [{"id": f"r{i}", "name": name, "colour": game.colours[name],
                           "bot": name in game.bots, "bot_level": game.bots.get(name),
                           "hosted": False,
                           "connected": True, "picked": False,
                           "minus_points": board.minus_points.get(name, 0)}
                          for i, name in enumerate(game.players)],
                "rhino": board.rhino,
                "positions": board.positions,
                "dung": list(game.setup.get("dung", [])),
                "setup": game.setup,
                "playback": playback.to_view(last_step),
                "history": [r.entry for r in game.rounds[:rounds_done]],
                "last_round": game.rounds[rounds_done - 1].entry if rounds_done else None,
                "winners": game.winners if done else [],
                "undone": None,
            },
        }


def check_settings(data: dict[str, Any]) -> dict[str, Any]:
    """The booth settings among ``data`` (others are the table's), checked; 400 if bad."""
    found = {key: data[key] for key in SETTINGS if key in data}
    for key in (SettingKey.ATTRACT, SettingKey.SOUND):
        if key in found and not isinstance(found[key], bool):
            raise bad_request("bad_setting", f"{key} is true or false.")
    after = found.get(SettingKey.ATTRACT_AFTER_S)
    if SettingKey.ATTRACT_AFTER_S in found and (
            not is_int(after)
            or not ATTRACT_AFTER_MIN_S <= after <= ATTRACT_AFTER_MAX_S):
        raise bad_request("bad_setting", "attract_after_s is a whole number of seconds from "
                                         f"{ATTRACT_AFTER_MIN_S} to {ATTRACT_AFTER_MAX_S}.")
    return found


@dataclass(slots=True)
class Replays:
    """The table's replay (at most one), the lobby's idle timer and the booth settings."""

    store: Store
    day_start: Callable[[], float]
    settings: dict[str, Any] = field(default_factory=dict)
    running: Running | None = None
    idle_since: float | None = None
    """When the lobby became empty (None while it is not, or attract mode gave up)."""
    _signature: Hashable = None
    _gave_up: bool = False
    _cache: dict[tuple[int, float | None], ReplayGame | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for key, default in SETTINGS.items():
            value = self.store.setting(key, default)
            self.settings[key] = value if type(value) is type(default) else default

    # -- settings ---------------------------------------------------------------------
    def apply(self, settings: dict[str, Any], now: float) -> None:
        """Checked settings (``check_settings``) take effect; the idle timer starts again."""
        self.settings.update(settings)
        self._gave_up = False
        if self.idle_since is not None:
            self.idle_since = now
        if (not self.settings[SettingKey.ATTRACT] and self.running is not None
                and self.running.attract):
            self.running = None

    def set_pacing(self, pacing: str, pause_ms: int, now: float) -> None:
        if self.running is not None:
            self.running.set_pacing(pacing, pause_ms, now)

    # -- the table's state ------------------------------------------------------------
    def observe(self, signature: Hashable, idle: bool, now: float) -> list[TableEvent]:
        """After every change of the table: a replay stops when the table's game, phase or
        seats change (a phone joining); the idle timer runs while ``idle``."""
        stopped: list[TableEvent] = []
        if signature != self._signature and self.running is not None:
            self.running = None
            stopped.append(ReplayStopped())
        self._signature = signature
        if not idle:
            self.idle_since, self._gave_up = None, False
        elif self.idle_since is None and not self._gave_up:
            self.idle_since = now
        return stopped

    @property
    def active(self) -> bool:
        return self.running is not None

    def view(self, last_step: bool = False) -> dict[str, Any] | None:
        return self.running.to_view(last_step) if self.running is not None else None

    def due(self) -> float | None:
        """When the table's clock must call ``tick``: the replay's next step, or the end
        of the lobby's idle time; None when nothing is waiting."""
        if self.running is not None:
            return self.running.due
        if self.settings[SettingKey.ATTRACT] and self.idle_since is not None:
            return self.idle_since + float(self.settings[SettingKey.ATTRACT_AFTER_S])
        return None

    def tick(self, now: float, pause_ms: int) -> list[TableEvent]:
        """The clock during a replay: its next step or round, or its end (and then
        attract mode may begin again); what happened (nothing: an empty list)."""
        assert self.running is not None
        outcome, happened = self.running.tick(now)
        if outcome != "ended":
            return happened
        self.running = None
        return [ReplayStopped(), *self.attract(now, pause_ms)]  # loop, or again

    def attract(self, now: float, pause_ms: int) -> list[TableEvent]:
        """Start attract mode if the lobby has been idle long enough; what that did."""
        due = self.due()
        if self.running is not None or due is None or now < due:
            return []
        picked = most_eventful(self._day_games())
        if picked is None:  # nothing finished today: the strip's idle animation stays
            self.idle_since, self._gave_up = None, True
            return []
        game, reason = picked
        self.running = Running(game, True, reason, "auto", pause_ms)
        self.running.start(now)
        return [ReplayStarted(game.game_id, True)]

    def _day_games(self) -> list[ReplayGame]:
        since = self.day_start()
        games = []
        for row in self.store.games():
            if row.finished is None or row.finished < since:
                continue
            key = (row.id, row.finished)
            if key not in self._cache:
                self._cache[key] = load_game(self.store, row)
            found = self._cache[key]
            if found is not None:
                games.append(found)
        return games

    # -- the host ---------------------------------------------------------------------
    def start(self, game_id: object, phase: str, pacing: str, pause_ms: int,
              now: float) -> list[TableEvent]:
        """The host's replay of stored game ``game_id``; 4xx and nothing changed if it
        cannot be. Answers what happened: its start, at step 0 (the reveal comes next)."""
        if not is_int(game_id) or game_id < 1:
            raise bad_request("bad_game_id", "game_id is the number of a game in the "
                                             "archive (GET /api/v1/games).")
        if phase not in ("lobby", "finished"):
            raise conflict("game_in_progress", "A game is being played: replays wait "
                                               "until it is over.")
        row = self.store.game(game_id) if game_id <= GAME_ID_MAX else None
        if row is None:
            raise ApiError(404, "no_such_game", f"There is no game {game_id} to replay.")
        game = load_game(self.store, row)
        if game is None:
            raise conflict("nothing_to_replay", f"Game {game_id} has no round played: "
                                                "there is nothing to replay.")
        running = Running(game, False, None, pacing, pause_ms)
        running.start(now)
        self.running = running
        return [ReplayStarted(game.game_id, False)]

    def stop(self, now: float) -> list[TableEvent]:
        if self.running is None:
            raise conflict("not_replaying", "No replay is running.")
        self.running = None
        if self.idle_since is not None:  # an idle lobby: attract mode after another wait
            self.idle_since = now
        return [ReplayStopped()]

    def next(self, now: float) -> list[TableEvent]:
        assert self.running is not None
        return self.running.next(now)

    def skip_step(self, now: float) -> list[TableEvent]:
        assert self.running is not None
        return self.running.skip_step(now)


STRIP_KEYS = ("version", "phase", "game_id", "track_length", "rhino", "positions", "dung",
              "setup", "winners", "happened")
"""What the strip draws from (docs/LIGHTS-PROTOCOL.md), besides the seats' names and
colours and the playback's ``shown``.  Nothing else goes to the lights process: not the
history, the join address or the host's settings, so its messages stay small."""


def strip_marks(placing: dict[str, Any] | None) -> list[list[Any]] | None:
    """The view's ``placing`` as the strip needs it, short: ``[piece, name, to]`` each."""
    if not placing:
        return None
    return [[move["piece"], move.get("name"), move["to"]] for move in placing["moves"]]


def strip_view(view: dict[str, Any]) -> dict[str, Any]:
    """What the strip draws: the board (during a replay the replay's, in the live
    view's shape), the playback's cursor (the moment it shows), what happened, the
    pieces to move by hand (the table's own, never during a replay), and whether a
    replay is on."""
    running = view.get("replay")
    board = {**view, **running["board"]} if running else view
    playback = board.get("playback")
    return {**{key: board.get(key) for key in STRIP_KEYS},
            "seats": [{"name": seat["name"], "colour": seat["colour"],
                       "picked": bool(seat.get("picked"))}
                      for seat in board.get("seats") or []],
            "playback": {"round": playback["round"], "step": playback["step"],
                         "shown": playback["shown"]} if playback else None,
            "placing": None if running else strip_marks(view.get("placing")),
            "replay": bool(running)}
