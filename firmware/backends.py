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
import platform
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from kalimambo.firmware.hardware import HardwareConfig
from kalimambo.firmware.scene import RGB

log = logging.getLogger(__name__)

DEVICE_TREE_MODEL = "/proc/device-tree/model"
SYSFS_MODEL = "/sys/firmware/devicetree/base/model"
"""The same file on a Pi; an emulated Pi can fake it with a tmpfs on /sys/firmware."""
DEV_MEM = "/dev/mem"
REVISION_FILES = ("/proc/device-tree/system/linux,revision",
                  "/sys/firmware/devicetree/base/system/linux,revision")
CPUINFO = "/proc/cpuinfo"
PI5_MODEL = re.compile(r"Raspberry Pi (5|500|Compute Module 5)\b")
ARMV6_MODEL = re.compile(r"Raspberry Pi (Model [AB]|Zero(?! 2)|Compute Module( Rev|$))")
"""Pi 1, Zero, Zero W and the first Compute Module: armv6l, for which rpi-ws281x has
neither a wheel nor a build that works."""


def read_model(model_path: str | Path | None = None) -> str | None:
    """The device-tree model string ("Raspberry Pi 4 Model B Rev 1.5"), None off a Pi.

    ``model_path`` None reads /proc/device-tree/model, else /sys/firmware/devicetree."""
    paths = [model_path] if model_path is not None else [DEVICE_TREE_MODEL, SYSFS_MODEL]
    for path in paths:
        try:
            return Path(path).read_bytes().decode("utf-8", "replace").rstrip("\x00\n ")
        except OSError:
            continue
    return None


def is_armv6(model: str | None, machine: str | None = None) -> bool:
    machine = platform.machine() if machine is None else machine
    return machine == "armv6l" or bool(model and ARMV6_MODEL.match(model))


def has_pi_revision(revision_files: Sequence[str | Path] = REVISION_FILES,
                    cpuinfo: str | Path = CPUINFO) -> bool:
    """Whether the board revision rpi-ws281x picks its hardware from can be read (the
    device tree, else a "Revision" line in /proc/cpuinfo): a faked model string alone
    (an emulated Pi) does not make a Pi."""
    if any(Path(path).is_file() for path in revision_files):
        return True
    try:
        text = Path(cpuinfo).read_text(errors="replace")
    except OSError:
        return False
    return any(line.startswith("Revision") for line in text.splitlines())


def ws281x_refusal(model: str | None, dev_mem: str | Path = DEV_MEM,
                   machine: str | None = None, revision: bool | None = None) -> str | None:
    """Why rpi-ws281x must not be started here, or None on a Pi 2-4 / Zero 2 W with
    /dev/mem.  Checked before a ``PixelStrip`` is built: one built off a Pi, or never
    begun, crashes the process at exit."""
    if model is None or not model.startswith("Raspberry Pi"):
        return ("this is not a Raspberry Pi (no device-tree model): the ws281x strip "
                "needs a Pi 2-4 or Zero 2 W (use the sim strip elsewhere)")
    if PI5_MODEL.search(model):
        return (f"{model}: rpi-ws281x does not work on a Pi 5; set backend = \"pio\" "
                "(or \"auto\") in the board file")
    if is_armv6(model, machine):
        return (f"{model}: rpi-ws281x is not available for the Pi 1 / Zero / Zero W "
                "(armv6l); drive the strip from a Pi 2-4, Zero 2 W or Pi 5")
    if not (has_pi_revision() if revision is None else revision):
        return (f"{model}: no board revision in the device tree or /proc/cpuinfo, so "
                "this is not a real Raspberry Pi (an emulated one?): no ws281x strip")
    if not Path(dev_mem).exists():
        return f"{dev_mem} is missing: rpi-ws281x needs it on a Pi 2-4 or Zero 2 W"
    if not os.access(dev_mem, os.R_OK | os.W_OK):
        return (f"{dev_mem}: permission denied (rpi-ws281x on a Pi 2-4 or Zero 2 W needs "
                "root, except on GPIO 10: SPI)")
    return None


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

    def __init__(self, hardware: HardwareConfig) -> None:
        self.frame: list[RGB] = [(0, 0, 0)] * hardware.led_count
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

    def __init__(self, hardware: HardwareConfig) -> None:
        self.device = hardware.device
        self.led_count = hardware.led_count
        self.slots = pio_slots(hardware.colour_order)
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


def ws281x_strip_type(module: Any, hardware: HardwareConfig) -> int:
    """rpi-ws281x's strip-type constant for the board's chip and colour order.

    rpi-ws281x reorders the channels itself from this constant.
    """
    ws = module.ws
    if hardware.strip_type == "sk6812w":
        return int(getattr(ws, f"SK6812_STRIP_{hardware.colour_order}W"))
    return int(getattr(ws, f"WS2811_STRIP_{hardware.colour_order}"))


class Ws281xBackend:
    """rpi-ws281x on Pi 2-4 and Zero 2 W (GPIO 18/12 PWM0, 13/19 PWM1, 21 PCM or 10 SPI)."""

    name = "ws281x"

    def __init__(self, hardware: HardwareConfig, model_path: str | Path | None = None,
                 dev_mem: str | Path = DEV_MEM, revision: bool | None = None) -> None:
        self.hardware = hardware
        self.model_path = model_path
        self.dev_mem = dev_mem
        self.revision = revision
        """None: read it (``has_pi_revision``); the tests say True."""
        self.strip: Any = None
        self.module: Any = None

    def start(self) -> None:
        hardware = self.hardware
        refusal = ws281x_refusal(read_model(self.model_path), self.dev_mem,
                                 revision=self.revision)
        if refusal is not None:
            raise BackendError(refusal)
        try:
            module = importlib.import_module("rpi_ws281x")
        except ImportError:
            raise BackendError("rpi-ws281x is not installed: run ./setup.sh on the Pi "
                               "(it installs the 'pi' extra)") from None
        strip = module.PixelStrip(hardware.led_count, hardware.gpio, hardware.frequency_hz,
                                  hardware.dma, hardware.invert, 255, hardware.pwm_channel,
                                  ws281x_strip_type(module, hardware))
        try:
            strip.begin()
        except Exception as error:
            # An unbegun PixelStrip crashes the process in its exit handler.
            cleanup = getattr(strip, "_cleanup", None)
            if cleanup is not None:
                atexit.unregister(cleanup)
            hint = (" (GPIO 18 and 12 need root; GPIO 10 needs SPI enabled)"
                    if hardware.gpio != 10 else " (enable SPI with raspi-config)")
            raise BackendError(f"rpi-ws281x could not start the strip on GPIO "
                               f"{hardware.gpio}: {error}{hint}") from None
        self.module, self.strip = module, strip

    def show(self, frame: Sequence[RGB]) -> None:
        strip, color = self.strip, self.module.Color
        try:
            for i, (r, g, b) in enumerate(frame[:self.hardware.led_count]):
                strip.setPixelColor(i, color(r, g, b))
            strip.show()
        except Exception as error:
            raise BackendError(f"rpi-ws281x failed to show a frame: {error}") from None

    def close(self) -> None:
        strip, self.strip = self.strip, None
        if strip is not None:
            try:
                for i in range(self.hardware.led_count):
                    strip.setPixelColor(i, 0)
                strip.show()
            except Exception as error:  # closing must not fail the table
                log.warning("lights: could not blank the strip: %s", error)


def detect_backend(model_path: str | Path | None = None, machine: str | None = None) -> str:
    """``pio`` on a Pi 5, ``ws281x`` on the Pis it works on (2-4, Zero 2 W), ``sim``
    elsewhere, the Pi 1 / Zero / Zero W included (from the device-tree model string)."""
    model = read_model(model_path)
    if model is None:
        return "sim"
    if PI5_MODEL.search(model):
        return "pio"
    if model.startswith("Raspberry Pi") and not is_armv6(model, machine):
        return "ws281x"
    return "sim"


def make_backend(name: str, hardware: HardwareConfig,
                 model_path: str | Path | None = None) -> Backend:
    """A backend by name (``auto`` picks from the device tree); not started yet."""
    if name == "auto":
        name = detect_backend(model_path)
    if name == "sim":
        return SimBackend(hardware)
    if name == "pio":
        return PioBackend(hardware)
    if name == "ws281x":
        return Ws281xBackend(hardware, model_path)
    raise ValueError(f"unknown strip backend {name!r} (auto, sim, ws281x or pio)")
