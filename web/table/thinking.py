"""The table's thinking: computer players' cards and players' hints, worked out off the
table's lock on a copy of the game (``tasks`` says where: a thread, gevent's pool, or
inline in tests).

A computer player's card comes back to the table as a pick for the round it was asked
in (``RoundKey``); a round undone, a new game or a restart in between makes it stale
and the table drops it.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from typing import Any

from kalimambo.engine.game import Game
from kalimambo.engine.players import DEFAULT_LEVEL
from kalimambo.web.core.state import StateMachine
from kalimambo.web.table import bots
from kalimambo.web.table.hints import HintDesk
from kalimambo.web.table.tasks import InlineRunner

RoundKey = tuple[int, int, int]
"""The game's id, the state's epoch (undos and new lobbies move it) and the round."""

BotPlay = Callable[[RoundKey, str, int], None]
"""How a computer player's card reaches the table: the round it is for, its name, the card."""


def seed(*parts: object) -> int:
    """A seed that is the same in every process (``hash`` of a str is not)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def round_key(game_id: int, state: StateMachine) -> RoundKey:
    """The round being picked now, as a computer player's answer must match it."""
    return game_id, state.epoch, state.game.current_round if state.game else 0


class Thinking:
    """Runs the computer players and the hint searches for one table."""

    def __init__(self, runner: InlineRunner | None = None) -> None:
        self.runner = runner or InlineRunner()
        self.hint_desk = HintDesk()

    def ask_bots(self, game_id: int, state: StateMachine, play: BotPlay) -> None:
        """Every computer player still to pick works out its card (at once, or in the
        background) and hands it to ``play``."""
        game = state.game
        for seat in state.waiting_bots():
            assert game is not None
            self._think(round_key(game_id, state), seat.name,
                        seat.bot_level or DEFAULT_LEVEL, game, play)

    def _think(self, key: RoundKey, name: str, level: str, game: Game,
               play: BotPlay) -> None:
        snapshot = copy.deepcopy(game)
        chosen_with = seed(key[0], key[2], name)

        def think() -> None:
            card = self.runner.compute(
                lambda: bots.choose_card(level, snapshot, name, chosen_with))
            play(key, name, card)

        self.runner.spawn(think)

    def hint_for(self, game_id: int, state: StateMachine,
                 seat_id: str, name: str) -> Callable[[], dict[str, Any]]:
        """The search for ``name``'s hint, made under the table's lock and run outside
        it (one search per seat and round, shared: ``HintDesk``)."""
        game = state.check_hint()
        key = (*round_key(game_id, state), seat_id)
        snapshot = copy.deepcopy(game)
        hinted_with = seed(game_id, game.current_round, name, "hint")

        def search() -> dict[str, Any]:
            found = self.hint_desk.get(key, lambda: self.runner.compute(
                lambda: bots.suggest(snapshot, name, hinted_with)))
            return {"round": snapshot.current_round, "card": found.card,
                    "code": found.code, "params": found.params}

        return search
