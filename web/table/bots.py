"""Computer players and hints for the table, from ``kalimambo.engine.players``.

The table never stops for a bot: if a computer player fails (a bug, not a bad move), the
failure is logged and the bot plays a random card from its hand instead. Hints are the
engine's ``suggest`` as it is.
"""

from __future__ import annotations

import logging
import random

from kalimambo.engine import players
from kalimambo.engine.game import Game
from kalimambo.engine.players import suggest

__all__ = ["choose_card", "levels", "suggest"]

log = logging.getLogger(__name__)


def levels() -> tuple[str, ...]:
    return players.LEVELS


def choose_card(level: str, game: Game, player: str, seed: int) -> int:
    """The bot's card; always one still in its hand."""
    hand = game.hand(player)
    try:
        card = players.choose_card(level, game, player, seed)
    except Exception:  # a failing bot must not stall the table: play a random card
        log.exception("computer player %s (%s) failed", player, level)
    else:
        if card in hand:
            return card
    return random.Random(seed).choice(hand)

