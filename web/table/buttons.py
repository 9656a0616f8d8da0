"""The board's buttons (through the lights process): one more client of the table's
commands, as a phone or the host page is."""

from __future__ import annotations

import logging

from kalimambo.web.core.refusals import Refusal
from kalimambo.web.table.table import Table

log = logging.getLogger(__name__)


def press(table: Table, name: str) -> None:
    """``next`` shows the next step, a hold (``undo``) takes the last round back, a long
    hold (``new_game``) opens a new game with the same seats. A command the table refuses
    (nothing to undo) is only logged: a button has no screen to say it on."""
    try:
        if name == "next":
            table.next_step()
        elif name == "undo":
            table.undo()
        elif name == "new_game":
            table.new_game(True)
    except Refusal as refused:
        log.info("%s button: %s", name, refused.message)
