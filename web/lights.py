"""The table's side of the lights: ``kalimambo.firmware.lights`` when it is there, else a stand-in.

The firmware is written by another part of the project (docs/CONTRACTS.md).  If it is
missing or fails to start, the table still runs and says why in ``lights.error``, so a
broken strip never stops a game.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any, Protocol

log = logging.getLogger(__name__)


class Lights(Protocol):
    def update(self, view: dict[str, Any], new_events: list[dict[str, Any]] | None = None
               ) -> None: ...
    def next_step(self) -> None: ...
    def set_pacing(self, mode: str, pause_ms: int) -> None: ...
    def frame(self) -> list[tuple[int, int, int]]: ...
    def status(self) -> dict[str, Any]: ...
    def retry(self) -> None: ...
    def close(self) -> None: ...


class NoLights:
    """Stands in when the firmware cannot drive a strip: dark LEDs and the reason."""

    def __init__(self, led_count: int, error: str) -> None:
        self.led_count = led_count
        self.error = error

    def update(self, view: dict[str, Any], new_events: list[dict[str, Any]] | None = None
               ) -> None:
        pass

    def next_step(self) -> None:
        pass

    def set_pacing(self, mode: str, pause_ms: int) -> None:
        pass

    def frame(self) -> list[tuple[int, int, int]]:
        return [(0, 0, 0)] * self.led_count

    def status(self) -> dict[str, Any]:
        return {"backend": "none", "ok": False, "error": self.error}

    def retry(self) -> None:
        pass

    def close(self) -> None:
        pass


def open_lights(board: Any, strip: str, led_count: int) -> Lights:
    """``kalimambo.firmware.lights.create_lights(board, strip)``, or ``NoLights`` saying why not."""
    try:
        module = importlib.import_module("kalimambo.firmware.lights")
    except ImportError:
        return NoLights(led_count, "The light firmware is not installed.")
    try:
        lights: Lights = module.create_lights(board, strip)
    except Exception as error:  # a strip that fails must not stop the table
        log.warning("lights: %s", error)
        return NoLights(led_count, f"The light strip did not start: {error}")
    return lights


def guarded(lights: Lights, method: str, *args: Any) -> str | None:
    """Call a lights method; a failure is logged and returned, never raised."""
    try:
        getattr(lights, method)(*args)
    except Exception as error:
        log.warning("lights.%s: %s", method, error)
        return str(error) or type(error).__name__
    return None
