"""A stand-in for ``rpi_ws281x`` that records every call instead of touching DMA.

Tests put it in ``sys.modules["rpi_ws281x"]``; the real package must never be
constructed off a Pi (an unbegun PixelStrip crashes the process at exit).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

_ORDERS = ("RGB", "RBG", "GRB", "GBR", "BRG", "BGR")
ws = SimpleNamespace(
    **{f"WS2811_STRIP_{order}": 0x100 + i for i, order in enumerate(_ORDERS)},
    **{f"SK6812_STRIP_{order}W": 0x200 + i for i, order in enumerate(_ORDERS)},
)

instances: list[PixelStrip] = []
fail_begin: str | None = None
"""Set to a message to make ``begin()`` raise like on a PC or a Pi 5."""


def Color(red: int, green: int, blue: int, white: int = 0) -> int:
    return (white << 24) | (red << 16) | (green << 8) | blue


class PixelStrip:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs
        self.calls: list[tuple[Any, ...]] = []
        self.pixels: dict[int, int] = {}
        self.shown: list[dict[int, int]] = []
        instances.append(self)

    def begin(self) -> None:
        self.calls.append(("begin",))
        if fail_begin is not None:
            raise RuntimeError(fail_begin)

    def setPixelColor(self, n: int, color: int) -> None:
        self.pixels[n] = color

    def show(self) -> None:
        self.calls.append(("show",))
        self.shown.append(dict(self.pixels))

    def _cleanup(self) -> None:
        self.calls.append(("cleanup",))


def reset() -> None:
    global fail_begin
    instances.clear()
    fail_begin = None
