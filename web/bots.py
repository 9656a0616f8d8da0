"""Computer players and hints, through ``kalimambo.engine.players`` (docs/CONTRACTS.md).

``kalimambo.engine.players`` is written by another part of the project; until it is there the
table still runs: bots then play a random card from their hand and hints are off.
"""

from __future__ import annotations

import importlib
import logging
import random
from dataclasses import dataclass
from typing import Any

from kalimambo.engine.game import Game

DEFAULT_LEVELS = ("random", "easy", "medium", "hard")
log = logging.getLogger(__name__)


def _players() -> Any | None:
    try:
        return importlib.import_module("kalimambo.engine.players")
    except ImportError:
        return None


def levels() -> tuple[str, ...]:
    module = _players()
    found = getattr(module, "LEVELS", None) if module is not None else None
    return tuple(found) if found else DEFAULT_LEVELS


def choose_card(level: str, game: Game, player: str, seed: int) -> int:
    """The bot's card; always one still in its hand."""
    hand = game.hand(player)
    module = _players()
    if module is not None and hasattr(module, "choose_card"):
        try:
            card = int(module.choose_card(level, game, player, seed))
        except Exception:  # a failing bot must not stall the table: play a random card
            log.exception("computer player %s (%s) failed", player, level)
        else:
            if card in hand:
                return card
    return random.Random(seed).choice(hand)


@dataclass(frozen=True, slots=True)
class Hint:
    card: int
    code: str
    params: dict[str, Any]


def suggest(game: Game, player: str, seed: int) -> Hint | None:
    """A suggested card with a reason key the pages translate, or None if unavailable."""
    module = _players()
    if module is None or not hasattr(module, "suggest"):
        return None
    found = module.suggest(game, player, seed)
    return Hint(int(found.card), str(found.code), dict(found.params or {}))
