"""What lives on the app (``app.extensions["kalimambo"]``): table, stream fan-out, lights."""

from __future__ import annotations

import logging
import threading
from typing import Any

from kalimambo.web.errors import ApiError
from kalimambo.web.events import Broadcaster
from kalimambo.web.lights import Lights, guarded
from kalimambo.web.store import Store
from kalimambo.web.table import Change, Table, lights_summary

log = logging.getLogger(__name__)


class TableService:
    """Wires the table to its listeners: every change goes to the streams and the strip."""

    def __init__(self, table: Table, store: Store, lights: Lights, broadcaster: Broadcaster,
                 pin: str | None) -> None:
        self.table = table
        self.store = store
        self.lights = lights
        self.broadcaster = broadcaster
        self.pin = pin
        self.controls: Any = None
        """The board's buttons and buzzer (``kalimambo.web.buttons``), when it has any."""
        guarded(lights, "set_pacing", table.pacing, table.pause_ms)
        table.listeners.append(broadcaster.publish)
        table.listeners.append(self._to_lights)
        guarded(lights, "update", table.current.view, None)
        self._stop = threading.Event()
        self._watcher = threading.Thread(target=self._watch_lights, name="lights-watch",
                                         daemon=True)
        self._watcher.start()

    WATCH_EVERY_S = 0.5

    def _watch_lights(self) -> None:
        """Send a new view when the strip's status changes between changes of the game:
        a strip that dies mid-game shows on the host page at once, and a press of the
        board's "next" button moves the board page along in step pacing."""
        while not self._stop.wait(self.WATCH_EVERY_S):
            try:
                status = lights_summary(self.lights.status())
            except Exception as error:
                status = lights_summary({"ok": False, "error": str(error)})
            shown = self.table.current.view.get("lights") or {}
            if any(shown.get(key) != value for key, value in status.items()):
                self.table.refresh()

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
        self._stop.set()
        if self.controls is not None:
            self.controls.close()
        guarded(self.lights, "close")
        self.store.close()
