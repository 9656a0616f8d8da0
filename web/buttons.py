"""The board's buttons and buzzer, wired to the table (``kalimambo.firmware.controls``).

Next steps the strip's animation, a hold undoes the last round, a long hold opens
a new lobby; the buzzer plays the strip's cues.  Only built when the board file
names a button or a buzzer pin, so a plain development machine never asks
gpiozero for a pin.
"""

from __future__ import annotations

import logging
from typing import Any

from kalimambo.web.errors import ApiError
from kalimambo.web.lights import Lights, guarded
from kalimambo.web.table import Table

log = logging.getLogger(__name__)


def open_controls(board: Any, lights: Lights, table: Table, pin_factory: Any = None) -> Any:
    """``kalimambo.firmware.controls.Controls`` for this table, or None without controls."""
    wanted = [getattr(board, key, None) for key in ("button_next", "button_undo",
                                                     "buzzer_pin")]
    if board is None or all(pin is None for pin in wanted):
        return None
    from kalimambo.firmware.controls import Controls

    def undo() -> None:
        try:
            table.undo()
        except ApiError as error:
            log.info("undo button: %s", error.message)

    def new_game() -> None:
        table.new_game(False)

    controls = Controls(board, lambda: guarded(lights, "next_step"), undo, new_game,
                        pin_factory=pin_factory)
    for problem in controls.errors:
        log.warning("buttons/buzzer: %s", problem)
    if controls.buzzer is not None and hasattr(lights, "on_cue"):
        lights.on_cue = controls.cue
    return controls
