"""What lives on the app (``app.extensions["kalimambo"]``): table, stream fan-out, lights."""

from __future__ import annotations

import logging
from typing import Any

from web.errors import ApiError
from web.events import Broadcaster
from web.lights import Lights, guarded
from web.store import Store
from web.table import Change, Table

log = logging.getLogger(__name__)


class TableService:
    """Wires the table to its listeners: every change goes to the streams and the strip."""

    def __init__(self, table: Table, store: Store, lights: Lights, broadcaster: Broadcaster,
                 pin: str) -> None:
        self.table = table
        self.store = store
        self.lights = lights
        self.broadcaster = broadcaster
        self.pin = pin
        self.controls: Any = None
        """The board's buttons and buzzer (``web.buttons``), when it has any."""
        guarded(lights, "set_pacing", table.pacing, table.pause_ms)
        table.listeners.append(broadcaster.publish)
        table.listeners.append(self._to_lights)
        guarded(lights, "update", table.current.view, None)

    def _to_lights(self, change: Change) -> None:
        guarded(self.lights, "update", change.view, change.events)

    def lights_frame(self) -> list[tuple[int, int, int]]:
        try:
            return list(self.lights.frame())
        except Exception as error:
            log.warning("lights.frame: %s", error)
            raise ApiError(503, "lights_failed", "The lights cannot say what they show "
                                                 "right now.") from None

    def lights_action(self, method: str) -> dict[str, Any]:
        """Retry a failed strip, or step to the next event; answers the lights' status."""
        error = guarded(self.lights, method)
        if error is not None:
            raise ApiError(409, "lights_failed", f"The lights did not respond: {error}")
        self.table.refresh()
        lights: dict[str, Any] = self.table.current.view["lights"]
        return lights

    def settings(self, data: dict[str, Any]) -> dict[str, Any]:
        result = self.table.settings(data)
        guarded(self.lights, "set_pacing", result["pacing"], result["pause_ms"])
        return result

    def close(self) -> None:
        if self.controls is not None:
            self.controls.close()
        guarded(self.lights, "close")
        self.store.close()
