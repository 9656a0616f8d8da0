"""Power the builder cannot see: the Pi's own supply, and the strip's estimated current.

A sagging supply is the most common fault of an LED build (a strip that flickers, a Pi
that restarts), and nothing on the table shows it, so the lights process watches:

- **The Pi's supply**, as its kernel lays it out under ``/sys`` (``root`` is a parameter,
  so the tests lay out a fake tree the same way):

  - the hwmon device named ``rpi_volt`` (``/sys/class/hwmon/hwmonN/name``; the kernel's
    drivers/hwmon/raspberrypi-hwmon.c): ``in0_lcrit_alarm`` is ``1`` after the firmware
    saw under-voltage.  The kernel asks the firmware every 2 s and clears its sticky bits
    each time, so the alarm means "under-voltage in the last 2 s".  Every Raspberry Pi OS
    kernel has it: Bookworm's (6.6, then 6.12) and Trixie's (6.12).
  - ``get_throttled`` of the firmware device (``/sys/devices/platform/soc/soc:firmware/``
    up to the Pi 4; found through ``/sys/bus/platform/drivers/raspberrypi-firmware/``): the
    firmware's flag word in hex (``THROTTLED_BITS``).  Pi OS's 6.6 kernels have it,
    deprecated; its 6.12 kernels dropped it in March 2025 (raspberrypi/linux#6697).  Its
    first read writes a kernel warning with a backtrace to the log, and without the hwmon
    driver nothing refreshes it, so it is read only where ``rpi_volt`` is missing.

  Neither there (not a Pi, a container, another kernel): it "cannot know", and says so.
- **The strip's current**, estimated from every frame as the limiter estimates it
  (``output.ma_of_sum``): what the picture asks before the limiter, against
  ``power.supply_ma``, and whether the limiter is dimming it.

The status is small and changes only when a builder would care (a sag begins or ends,
the limiter starts or stops dimming, the highest current asked grows by 100 mA), since
each change goes to the table and every phone; the log says each change once, in words.
"""

from __future__ import annotations

import contextlib
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kalimambo.firmware.hardware import HardwareConfig
from kalimambo.firmware.output import channel_budget, ma_of_sum

log = logging.getLogger(__name__)

UNDER_VOLTAGE = 1 << 0
FREQ_CAPPED = 1 << 1
THROTTLED = 1 << 2
SOFT_TEMP_LIMIT = 1 << 3
OCCURRED = 16
"""Bits 16-19 are bits 0-3 "has occurred" (since the last time they were cleared)."""
THROTTLED_BITS = {UNDER_VOLTAGE: "under-voltage", FREQ_CAPPED: "arm frequency capped",
                  THROTTLED: "throttled", SOFT_TEMP_LIMIT: "soft temperature limit"}

HWMON = "sys/class/hwmon"
HWMON_NAME = "rpi_volt"
FIRMWARE_DRIVER = "sys/bus/platform/drivers/raspberrypi-firmware"
FIRMWARE_DEVICE = "sys/devices/platform/soc/soc:firmware"
READ_EVERY_S = 2.0
"""The kernel refreshes the alarm every 2 s: reading more often learns nothing new."""
LOW_HOLD_S = 10.0
"""A sag stays "low" this long after the last reading that saw it, so a supply that
flickers on the edge is one long sag, not a status message every 2 s."""
DIM_HOLD_S = 5.0
"""The limiter counts as dimming until this long after the last frame it dimmed."""
ASKED_STEP_MA = 100
CANNOT_KNOW = ("no rpi_volt hwmon and no firmware get_throttled under /sys: not a "
               "Raspberry Pi, or its kernel does not say")


@dataclass(frozen=True, slots=True)
class PiSupply:
    """What the Pi's firmware says of its supply, from one reading."""

    source: str | None
    """The file read; None: there is none here, so nothing can be known."""
    flags: int = 0
    """get_throttled's bits (from rpi_volt's alarm: ``UNDER_VOLTAGE`` alone)."""
    whole: bool = False
    """The flags are get_throttled's whole word (else only the under-voltage bit)."""

    @property
    def known(self) -> bool:
        return self.source is not None

    @property
    def low(self) -> bool:
        """Under-voltage now, or since the last reading (the sticky bit)."""
        return bool(self.flags & (UNDER_VOLTAGE | UNDER_VOLTAGE << OCCURRED))

    @property
    def throttled(self) -> bool | None:
        """The Pi slows itself down (throttled or its clock capped, now or since the last
        reading); None where the source does not say (rpi_volt)."""
        if not self.whole:
            return None
        bits = THROTTLED | FREQ_CAPPED
        return bool(self.flags & (bits | bits << OCCURRED))

    def describe(self) -> str:
        """The flags in words, for ``kalimambo doctor``."""
        if not self.known:
            return "cannot know"
        now = [name for bit, name in THROTTLED_BITS.items() if self.flags & bit]
        since = [name for bit, name in THROTTLED_BITS.items()
                 if self.flags & bit << OCCURRED and not self.flags & bit]
        words = (["now: " + ", ".join(now)] if now else []) + (
            ["lately: " + ", ".join(since)] if since else [])
        return "; ".join(words) or "no flag set"


def hwmon_alarm(root: str | Path = "/") -> Path | None:
    """The ``in0_lcrit_alarm`` of the ``rpi_volt`` hwmon device, if this kernel has one."""
    base = Path(root, HWMON)
    try:
        entries = sorted(base.iterdir())
    except OSError:
        return None
    for entry in entries:
        try:
            if (entry / "name").read_text().strip() == HWMON_NAME:
                alarm = entry / "in0_lcrit_alarm"
                return alarm if alarm.is_file() else None
        except OSError:
            continue
    return None


def get_throttled_file(root: str | Path = "/") -> Path | None:
    """The firmware device's ``get_throttled``, if this kernel has it."""
    candidates = [Path(root, FIRMWARE_DEVICE, "get_throttled")]
    with contextlib.suppress(OSError):
        candidates += [device / "get_throttled"
                       for device in sorted(Path(root, FIRMWARE_DRIVER).iterdir())]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def read_pi_supply(root: str | Path = "/") -> PiSupply:
    """The Pi's supply as its kernel says it now (see the module's docstring)."""
    alarm = hwmon_alarm(root)
    if alarm is not None:
        try:
            value = int(alarm.read_text().strip() or "0")
        except (OSError, ValueError):
            return PiSupply(None)
        return PiSupply(_shown(alarm, root), UNDER_VOLTAGE if value else 0)
    throttled = get_throttled_file(root)
    if throttled is not None:
        try:  # "%x\n", no 0x (drivers/firmware/raspberrypi.c, get_throttled_show)
            return PiSupply(_shown(throttled, root), int(throttled.read_text().strip(), 16),
                            whole=True)
        except (OSError, ValueError):
            return PiSupply(None)
    return PiSupply(None)


def _shown(path: Path, root: str | Path) -> str:
    """``path`` as it is on the Pi (without the test's root)."""
    return "/" + str(path.relative_to(Path(root)))


def _amps(ma: float) -> str:
    return f"{ma / 1000:.1f} A"


class PowerWatch:
    """The lights' watch on power: ``frame()`` for every frame drawn, ``status()``."""

    def __init__(self, hardware: HardwareConfig, root: str | Path = "/",
                 reader: Callable[[str | Path], PiSupply] = read_pi_supply) -> None:
        self.hardware = hardware
        self.root = root
        self.reader = reader
        self.budget = channel_budget(hardware)
        self.pi = PiSupply(None)
        self._next_read = -math.inf
        self._low_until = -math.inf
        self._low = False
        self._sags = 0
        self._throttled: bool | None = None
        self._asked_peak = 0
        self._dim_until = -math.inf
        self._dimming = False
        self._first = True

    # -- the Pi's supply -----------------------------------------------------------------
    def read_pi(self, now: float) -> None:
        """Read the Pi's flags (every ``READ_EVERY_S`` from ``frame``); log what changed."""
        self._next_read = now + READ_EVERY_S
        pi = self.reader(self.root)
        if pi.known != self.pi.known or self._first:
            if pi.known:
                log.info("power: watching the Pi's own supply (%s)", pi.source)
            else:
                log.info("power: cannot see the Pi's own supply here (%s)", CANNOT_KNOW)
        self._first = False
        self.pi = pi
        if pi.low:
            self._low_until = now + LOW_HOLD_S
            if not self._low:
                self._low = True
                self._sags += 1
                log.warning("power: the Pi's own supply is sagging (under-voltage, from %s):"
                            " the Pi may slow down, the strip flicker or the Pi restart. "
                            "Give the Pi its official supply and a short cable; the strip "
                            "must never hang on the Pi's 5 V pin", pi.source)
        elif self._low and now >= self._low_until:
            self._low = False
            log.info("power: the Pi's supply is steady again (it sagged %d time%s since the "
                     "lights started)", self._sags, "" if self._sags == 1 else "s")
        throttled = pi.throttled
        if throttled != self._throttled:
            if throttled:
                log.warning("power: the Pi is slowing itself down (throttled: too little "
                            "power, or too hot)")
            elif self._throttled:
                log.info("power: the Pi runs at full speed again")
            self._throttled = throttled

    # -- the strip's current -------------------------------------------------------------
    def frame(self, asked: int, now: float) -> None:
        """One frame drawn; ``asked`` is its channel sum before the limiter."""
        if now >= self._next_read:
            self.read_pi(now)
        if asked > self._asked_peak:
            self._asked_peak = asked
        if asked > self.budget:
            self._dim_until = now + DIM_HOLD_S
            if not self._dimming:
                self._dimming = True
                log.warning("power: the picture asks about %s but power.supply_ma is %g mA: "
                            "the limiter dims it to fit. A bigger strip supply (and "
                            "supply_ma to match) or a lower strip.max_brightness ends this",
                            _amps(ma_of_sum(asked, self.hardware)), self.hardware.supply_ma)
        elif self._dimming and now >= self._dim_until:
            self._dimming = False
            log.info("power: the limiter no longer dims the picture (the strip has asked "
                     "at most %s of the supply's %s)", _amps(self.asked_ma()),
                     _amps(self.hardware.supply_ma))

    def asked_ma(self) -> int:
        """The most the picture has asked since the lights started, up to 100 mA."""
        ma = ma_of_sum(self._asked_peak, self.hardware)
        return int(math.ceil(ma / ASKED_STEP_MA - 1e-9) * ASKED_STEP_MA)

    def status(self) -> dict[str, Any]:
        """The lights status's ``power`` (docs/LIGHTS-PROTOCOL.md)."""
        if not self.pi.known:
            pi = "unknown"
        elif self._low:
            pi = "low"
        else:
            pi = "sagged" if self._sags else "ok"
        return {"pi": pi, "pi_sags": self._sags, "throttled": self._throttled,
                "supply_ma": round(self.hardware.supply_ma), "asked_ma": self.asked_ma(),
                "dimming": self._dimming}
