"""The table's replay: at most one stored game played back, the host's or attract mode's.

A replay plays a stored game (``storedgame``) back round by round with the very steps
of a live round (``engine.timeline`` through ``web.core.playback.Playback``), on its
own board: it never touches the table's game, the store's rows or any statistic.  The
view carries it as ``replay`` (``replay.board`` is shaped like the live view's board
part, so the strip and the board page draw it with the code that draws a live round).
It stops when the table's game, phase or seats change.  No clock and no threads here:
the table passes ``now`` and its hub wakes the table at ``due()`` (the same timer
as the live playback), so tests drive it with an injected clock.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from kalimambo.engine.values import is_int
from kalimambo.web.core.happenings import ReplayStarted, ReplayStopped, TableEvent
from kalimambo.web.core.playback import Playback, playback_ended, step_shown
from kalimambo.web.core.refusals import Kind, Refusal, bad_input, conflict
from kalimambo.web.core.viewtypes import ReplayView
from kalimambo.web.storage.store import SettingKey, Store
from kalimambo.web.table.attract import AttractMode
from kalimambo.web.table.highlights import Highlight
from kalimambo.web.table.storedgame import ReplayGame, load_game

ROUND_GAP_S = 2.0
"""Auto pacing: the pause between one replayed round's end and the next one's reveal."""
END_HOLD_S = 10.0
"""The last round's end stays on screen this long before the replay goes (or attract
mode picks again)."""
GAME_ID_MAX = 2**63 - 1
"""The largest id the store can hold (SQLite's INTEGER): a bigger one is no game."""


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
        self.playback = Playback.begin(played.number, played.events, played.public,
                                       played.before, self.pacing, self.pause_ms, now)
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

    def to_view(self, last_step: bool = False) -> ReplayView:
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
                "dung": list(game.setup["dung"]),
                "setup": game.setup,
                "playback": playback.to_view(last_step),
                "history": [r.entry for r in game.rounds[:rounds_done]],
                "last_round": game.rounds[rounds_done - 1].entry if rounds_done else None,
                "winners": game.winners if done else [],
                "undone": None,
            },
        }



@dataclass(slots=True)
class Replays:
    """The table's replay (at most one), and when attract mode starts one."""

    store: Store
    attract_mode: AttractMode
    settings: dict[str, Any]
    """The booth's settings (``booth``): whether attract mode is on, and its wait."""
    running: Running | None = None
    _signature: Hashable = None

    # -- settings ---------------------------------------------------------------------
    def apply(self, settings: dict[str, Any], now: float) -> None:
        """Checked booth settings (``booth.check_booth_settings``) take effect; the idle
        timer starts again."""
        self.settings.update(settings)
        self.attract_mode.settings_changed(now)
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
        self.attract_mode.watch(idle, now)
        return stopped

    @property
    def active(self) -> bool:
        return self.running is not None

    def view(self, last_step: bool = False) -> ReplayView | None:
        return self.running.to_view(last_step) if self.running is not None else None

    def due(self) -> float | None:
        """When the table's clock must call ``tick``: the replay's next step, or the end
        of the lobby's idle time; None when nothing is waiting."""
        if self.running is not None:
            return self.running.due
        if self.settings[SettingKey.ATTRACT]:
            return self.attract_mode.due(float(self.settings[SettingKey.ATTRACT_AFTER_S]))
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
        picked = self.attract_mode.pick()
        if picked is None:  # nothing finished today: the strip's idle animation stays
            return []
        game, reason = picked
        self.running = Running(game, True, reason, "auto", pause_ms)
        self.running.start(now)
        return [ReplayStarted(game.game_id, True)]

    # -- the host ---------------------------------------------------------------------
    def start(self, game_id: object, phase: str, pacing: str, pause_ms: int,
              now: float) -> list[TableEvent]:
        """The host's replay of stored game ``game_id``; 4xx and nothing changed if it
        cannot be. Answers what happened: its start, at step 0 (the reveal comes next)."""
        if not is_int(game_id) or game_id < 1:
            raise bad_input("bad_game_id", "game_id is the number of a game in the "
                                             "archive (GET /api/v1/games).")
        if phase not in ("lobby", "finished"):
            raise conflict("game_in_progress", "A game is being played: replays wait "
                                               "until it is over.")
        row = self.store.game(game_id) if game_id <= GAME_ID_MAX else None
        if row is None:
            raise Refusal(Kind.NOT_FOUND, "no_such_game", f"There is no game {game_id} to replay.")
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
        self.attract_mode.wait_again(now)  # an idle lobby: attract mode after another wait
        return [ReplayStopped()]

    def next(self, now: float) -> list[TableEvent]:
        assert self.running is not None
        return self.running.next(now)

    def skip_step(self, now: float) -> list[TableEvent]:
        assert self.running is not None
        return self.running.skip_step(now)
