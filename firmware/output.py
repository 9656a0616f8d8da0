"""From space colours to the bytes' worth the strip gets: layout, gamma, power limit.

The limiter estimates current as WLED does (sum of channel values x mA per LED
at full white / (255 x 3), plus each LED's idle current) and scales the frame
down so the estimate never exceeds the supply.  The bound is worked out once in
exact arithmetic and the per-frame check is integer-only, so "never" holds
without rounding slack and a frame costs a few hundred microseconds at most.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from kalimambo.firmware.hardware import HardwareConfig
from kalimambo.firmware.scene import DARK, RGB

FULL_WHITE_SUM = 255 * 3


def gamma_lut(gamma: float, max_brightness: float) -> tuple[int, ...]:
    """Channel value 0..255 -> output value, with gamma and the brightness cap.

    >>> gamma_lut(1.0, 1.0)[200], gamma_lut(2.0, 0.5)[255], gamma_lut(2.2, 1.0)[0]
    (200, 127, 0)
    """
    return tuple(int(255 * max_brightness * (v / 255) ** gamma) for v in range(256))


def channel_budget(hardware: HardwareConfig) -> int:
    """The largest sum of all channel values whose estimated current fits the supply."""
    idle = Fraction(hardware.idle_ma_per_led) * hardware.led_count
    spare = Fraction(hardware.supply_ma) - idle
    if spare <= 0:
        return 0
    return math.floor(spare * FULL_WHITE_SUM / Fraction(hardware.ma_per_led))


def estimate_ma(frame: Sequence[RGB], hardware: HardwareConfig) -> Fraction:
    """The estimated current of a frame in mA, exactly (WLED's estimate)."""
    total = sum(r + g + b for r, g, b in frame)
    return (Fraction(total) * Fraction(hardware.ma_per_led) / FULL_WHITE_SUM
            + Fraction(hardware.idle_ma_per_led) * hardware.led_count)


def channel_sum(frame: Sequence[RGB]) -> int:
    """The sum of every channel value of a frame: what the current estimate counts."""
    total = 0
    for r, g, b in frame:
        total += r + g + b
    return total


def ma_of_sum(total: int, hardware: HardwareConfig) -> float:
    """The estimated current (mA) of a frame whose channels add up to ``total``."""
    return (total * hardware.ma_per_led / FULL_WHITE_SUM
            + hardware.idle_ma_per_led * hardware.led_count)


def worst_case_ma(hardware: HardwareConfig) -> float:
    """The most the strip can ask: every LED full white, after gamma and the brightness
    cap (``max_brightness``) but before the limiter, as the limiter estimates it."""
    top = gamma_lut(hardware.gamma, hardware.max_brightness)[255]
    return ma_of_sum(3 * top * hardware.led_count, hardware)


def supply_warning(hardware: HardwareConfig) -> str | None:
    """A sentence when ``power.supply_ma`` is below the strip's worst case (the limiter
    will dim bright pictures to fit), else None.  Not an error: a builder may choose it."""
    worst = worst_case_ma(hardware)
    if hardware.supply_ma >= worst:
        return None
    return (f"power.supply_ma is {hardware.supply_ma:g} mA, below the strip's worst case of "
            f"about {worst:.0f} mA ({hardware.led_count} LEDs at full white, max_brightness "
            f"{hardware.max_brightness:g}): the limiter will dim bright pictures to fit. "
            "Fine if that is all your supply gives; otherwise set supply_ma to what it "
            "really gives")


def limit_power(frame: list[RGB], budget: int, total: int | None = None) -> list[RGB]:
    """``frame`` scaled down, if needed, so its channel sum is at most ``budget``
    (``total``: its channel sum, when already known)."""
    if total is None:
        total = channel_sum(frame)
    if total <= budget:
        return frame
    return [(r * budget // total, g * budget // total, b * budget // total)
            for r, g, b in frame]


class Output:
    """Turns a drawn scene into the frame sent to the strip, for one board."""

    def __init__(self, hardware: HardwareConfig) -> None:
        self.hardware = hardware
        self.led_count = hardware.led_count
        self.layout = hardware.layout
        self.lut = gamma_lut(hardware.gamma, hardware.max_brightness)
        self.budget = channel_budget(hardware)
        self.asked = 0
        """The channel sum of the last finished frame before the limiter: what the picture
        asked (the power watch and ``leds test`` compare it with ``budget``)."""

    def leds_from_spaces(self, top: Sequence[RGB], under: Sequence[RGB | None] = ()
                         ) -> list[RGB]:
        """One colour per LED from one per space; a space with two or more LEDs shows
        the heap under a figure on its last LED."""
        leds = [DARK] * self.led_count
        layout = self.layout
        for space, colour in enumerate(top):
            space_leds = layout[space]
            for led in space_leds:
                leds[led] = colour
            if under and len(space_leds) > 1:
                below = under[space]
                if below is not None:
                    leds[space_leds[-1]] = below
        return leds

    def finish(self, leds: Sequence[RGB]) -> list[RGB]:
        """Gamma and brightness cap, then the power limit: what the strip shows."""
        lut = self.lut
        out = [(lut[r], lut[g], lut[b]) for r, g, b in leds]
        self.asked = total = channel_sum(out)
        return limit_power(out, self.budget, total)
