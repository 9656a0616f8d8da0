"""Light backends: one small interface, swapped like gpiozero's pin factories.

``sim`` keeps the frame in memory (and is the test double), ``pio`` writes the
Pi 5 kernel driver's device file, ``ws281x`` drives rpi-ws281x on older Pis.
rpi-ws281x is imported only inside its backend: off a Pi it is not installed,
and a ``PixelStrip`` that was built but never begun crashes the process at exit.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from kalimambo.firmware.board import BoardConfig
from kalimambo.firmware.scene import RGB

log = logging.getLogger(__name__)

DEVICE_TREE_MODEL = "/proc/device-tree/model"
PI5_MODEL = re.compile(r"Raspberry Pi (5|500|Compute Module 5)\b")


class BackendError(RuntimeError):
    """The strip could not be started or written; the message says what to check."""


class Backend(Protocol):
    """What every light backend does: start, show a frame (strip order), close."""

    name: str

    def start(self) -> None: ...

    def show(self, frame: Sequence[RGB]) -> None: ...

    def close(self) -> None: ...


class SimBackend:
    """Keeps the last frame in memory: the strip off a Pi, and the tests' strip."""

    name = "sim"

    def __init__(self, board: BoardConfig) -> None:
        self.frame: list[RGB] = [(0, 0, 0)] * board.led_count
        self.shown = 0

    def start(self) -> None:
        pass

    def show(self, frame: Sequence[RGB]) -> None:
        self.frame = list(frame)
        self.shown += 1

    def close(self) -> None:
        pass


def pio_slots(colour_order: str) -> tuple[int, int, int]:
    """Which channel (0 R, 1 G, 2 B) goes in each of the driver's R, G, B bytes.

    The driver always sends its bytes as G, R, B on the wire, so to get the
    strip's own order on the wire the channels are swapped here first.

    >>> pio_slots("GRB"), pio_slots("RGB")
    ((0, 1, 2), (1, 0, 2))
    """
    wire = ["RGB".index(letter) for letter in colour_order[:3]]
    return (wire[1], wire[0], wire[2])


class PioBackend:
    """The Pi 5's ``ws2812-pio-rp1`` driver: 4 bytes per LED (R, G, B, W) at offset 0."""

    name = "pio"

    def __init__(self, board: BoardConfig) -> None:
        self.device = board.device
        self.led_count = board.led_count
        self.slots = pio_slots(board.colour_order)
        self.fd: int | None = None

    def start(self) -> None:
        try:
            self.fd = os.open(self.device, os.O_WRONLY)
        except FileNotFoundError:
            raise BackendError(
                f"{self.device} does not exist: add 'dtoverlay=ws2812-pio,gpio=18,"
                f"num_leds={self.led_count}' to /boot/firmware/config.txt and reboot") from None
        except PermissionError:
            raise BackendError(f"{self.device}: permission denied (run as root, or give "
                               f"your user write access with a udev rule)") from None
        except OSError as error:
            raise BackendError(f"{self.device}: {error.strerror}") from None
        # One byte at offset 0 sets the driver's brightness; 0 means "pass values
        # through untouched", since gamma and limiting are done here.
        self._write(b"\x00")

    def encode(self, frame: Sequence[RGB]) -> bytes:
        """The bytes the driver wants for ``frame``."""
        a, b, c = self.slots
        out = bytearray(4 * self.led_count)
        for i, colour in enumerate(frame[:self.led_count]):
            out[4 * i] = colour[a]
            out[4 * i + 1] = colour[b]
            out[4 * i + 2] = colour[c]
        return bytes(out)

    def show(self, frame: Sequence[RGB]) -> None:
        self._write(self.encode(frame))

    def _write(self, data: bytes) -> None:
        if self.fd is None:
            raise BackendError(f"{self.device} is not open")
        try:
            os.pwrite(self.fd, data, 0)
        except OSError as error:
            raise BackendError(f"writing {self.device} failed: {error.strerror}") from None

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)


def ws281x_strip_type(module: Any, board: BoardConfig) -> int:
    """rpi-ws281x's strip-type constant for the board's chip and colour order.

    rpi-ws281x reorders the channels itself from this constant.
    """
    ws = module.ws
    if board.strip_type == "sk6812w":
        return int(getattr(ws, f"SK6812_STRIP_{board.colour_order}W"))
    return int(getattr(ws, f"WS2811_STRIP_{board.colour_order}"))


class Ws281xBackend:
    """rpi-ws281x on Pi 1-4 and Zero 2 W (GPIO 18/12 PWM, 21 PCM or 10 SPI)."""

    name = "ws281x"

    def __init__(self, board: BoardConfig) -> None:
        self.board = board
        self.strip: Any = None
        self.module: Any = None

    def start(self) -> None:
        board = self.board
        try:
            module = importlib.import_module("rpi_ws281x")
        except ImportError:
            raise BackendError("rpi-ws281x is not installed: run ./setup.sh on the Pi "
                               "(it installs the 'pi' extra)") from None
        strip = module.PixelStrip(board.led_count, board.gpio, board.frequency_hz, board.dma,
                                  board.invert, 255, board.pwm_channel,
                                  ws281x_strip_type(module, board))
        try:
            strip.begin()
        except Exception as error:
            # An unbegun PixelStrip crashes the process in its exit handler.
            cleanup = getattr(strip, "_cleanup", None)
            if cleanup is not None:
                atexit.unregister(cleanup)
            hint = (" (GPIO 18 and 12 need root; GPIO 10 needs SPI enabled)"
                    if board.gpio != 10 else " (enable SPI with raspi-config)")
            raise BackendError(f"rpi-ws281x could not start the strip on GPIO "
                               f"{board.gpio}: {error}{hint}") from None
        self.module, self.strip = module, strip

    def show(self, frame: Sequence[RGB]) -> None:
        strip, color = self.strip, self.module.Color
        try:
            for i, (r, g, b) in enumerate(frame[:self.board.led_count]):
                strip.setPixelColor(i, color(r, g, b))
            strip.show()
        except Exception as error:
            raise BackendError(f"rpi-ws281x failed to show a frame: {error}") from None

    def close(self) -> None:
        strip, self.strip = self.strip, None
        if strip is not None:
            try:
                for i in range(self.board.led_count):
                    strip.setPixelColor(i, 0)
                strip.show()
            except Exception as error:  # closing must not fail the table
                log.warning("lights: could not blank the strip: %s", error)


def detect_backend(model_path: str | Path = DEVICE_TREE_MODEL) -> str:
    """``pio`` on a Pi 5, ``ws281x`` on other Pis, ``sim`` elsewhere (from the
    device-tree model string)."""
    try:
        model = Path(model_path).read_bytes().decode("utf-8", "replace").rstrip("\x00\n ")
    except OSError:
        return "sim"
    if PI5_MODEL.search(model):
        return "pio"
    if model.startswith("Raspberry Pi"):
        return "ws281x"
    return "sim"


def make_backend(name: str, board: BoardConfig,
                 model_path: str | Path = DEVICE_TREE_MODEL) -> Backend:
    """A backend by name (``auto`` picks from the device tree); not started yet."""
    if name == "auto":
        name = detect_backend(model_path)
    if name == "sim":
        return SimBackend(board)
    if name == "pio":
        return PioBackend(board)
    if name == "ws281x":
        return Ws281xBackend(board)
    raise ValueError(f"unknown strip backend {name!r} (auto, sim, ws281x or pio)")
