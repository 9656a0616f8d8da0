"""The board file read into a ``HardwareConfig``: which LEDs sit under which space, and
the strip's hardware (in the code the board file read is "the hardware"; "board" is the
game's).

A builder writes it once (TOML, docs/CONTRACTS.md "Board file"); every key is
checked here, before any hardware is touched, and a mistake is refused with a
message naming the key, so ``kalimambo`` can exit 2 with one clear line.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kalimambo.engine.pacing import (
    DEFAULT_PACING,
    DEFAULT_PAUSE_MS,
    PACINGS,
    PAUSE_MS_MAX,
    PAUSE_MS_MIN,
)
from kalimambo.engine.rules import DEFAULT_TRACK_LENGTH, MAX_TRACK_LENGTH
from kalimambo.engine.values import is_int

BACKENDS = ("auto", "sim", "ws281x", "pio")
STRIP_TYPES = ("ws2812", "sk6812", "sk6812w")
WS281X_PINS = {10: "SPI", 12: "PWM0", 13: "PWM1", 18: "PWM0", 19: "PWM1", 21: "PCM"}
MAX_LEDS = 2000
BCM_PINS = range(0, 28)
MAX_FILE_BYTES = 1 << 20
"""A board file is a few KB (a calibrated map of 2000 LEDs is under 40 KB)."""

Layout = tuple[tuple[int, ...], ...]


class HardwareFileError(ValueError):
    """A board file with a mistake; the message names the key and what is wrong."""


@dataclass(frozen=True, slots=True)
class HardwareConfig:
    """Everything the board file says, checked and with defaults filled in."""

    spaces: int = DEFAULT_TRACK_LENGTH
    backend: str = "auto"
    led_count: int = DEFAULT_TRACK_LENGTH
    gpio: int = 18
    dma: int = 10
    pwm_channel: int = 0
    frequency_hz: int = 800_000
    invert: bool = False
    strip_type: str = "ws2812"
    colour_order: str = "GRB"
    device: str = "/dev/leds0"
    gamma: float = 2.2
    max_brightness: float = 0.5
    layout: Layout = field(
        default_factory=lambda: tuple((i,) for i in range(DEFAULT_TRACK_LENGTH)))
    explicit_layout: bool = False
    supply_ma: float = 3000.0
    ma_per_led: float = 60.0
    idle_ma_per_led: float = 1.0
    button_next: int | None = None
    button_undo: int | None = None
    undo_hold_s: float = 1.5
    new_game_hold_s: float = 5.0
    buzzer_pin: int | None = None
    buzzer_tonal: bool = True
    host_pin: str | None = None
    pacing: str = DEFAULT_PACING
    pause_ms: int = DEFAULT_PAUSE_MS
    fps: int = 30
    path: str | None = None

    def leds_of(self, space: int) -> tuple[int, ...]:
        """The LEDs under ``space`` (0..spaces-1)."""
        return self.layout[space]

    def space_of_led(self) -> dict[int, int]:
        """LED index -> the space it sits under (LEDs under no space are absent)."""
        return {led: space for space, leds in enumerate(self.layout) for led in leds}


def default_hardware() -> HardwareConfig:
    """32 spaces, LED *i* under space *i*, simulated-or-real strip picked automatically."""
    return HardwareConfig()


def helper_layout(spaces: int, led_count: int, first_led: int = 0, leds_per_space: int = 1,
                  reversed_: bool = False) -> Layout:
    """The layout the helpers describe: N LEDs per space from ``first_led`` on.

    >>> helper_layout(3, 8, first_led=7, leds_per_space=2, reversed_=True)
    ((7, 6), (5, 4), (3, 2))
    """
    step = -1 if reversed_ else 1
    return tuple(
        tuple((first_led + step * (space * leds_per_space + k)) % led_count
              for k in range(leds_per_space))
        for space in range(spaces))


# -- checking values ---------------------------------------------------------------

def _describe(value: object) -> str:
    return repr(value) if isinstance(value, str) else str(value).lower() if isinstance(
        value, bool) else str(value)


def _int(section: Mapping[str, Any], name: str, key: str, default: int, low: int,
         high: int) -> int:
    value = section.get(name, default)
    if not is_int(value) or not low <= value <= high:
        raise HardwareFileError(f"{key}: must be a whole number from {low} to {high} "
                                f"(got {_describe(value)})")
    return value


def _optional_pin(section: Mapping[str, Any], name: str, key: str) -> int | None:
    if name not in section:
        return None
    return _int(section, name, key, 0, BCM_PINS.start, BCM_PINS.stop - 1)


def _number(section: Mapping[str, Any], name: str, key: str, default: float, low: float,
            high: float, low_open: bool = False) -> float:
    value = section.get(name, default)
    ok = is_int(value) or isinstance(value, float)
    if ok and not math.isfinite(value):  # nan and inf pass every comparison check
        ok = False
    if ok and (value < low or value > high or (low_open and value == low)):
        ok = False
    if not ok:
        bound = f"more than {low:g}" if low_open else f"at least {low:g}"
        raise HardwareFileError(f"{key}: must be a number {bound} and at most {high:g} "
                                f"(got {_describe(value)})")
    return float(value)


def _bool(section: Mapping[str, Any], name: str, key: str, default: bool) -> bool:
    value = section.get(name, default)
    if not isinstance(value, bool):
        raise HardwareFileError(f"{key}: must be true or false (got {_describe(value)})")
    return value


def _choice(section: Mapping[str, Any], name: str, key: str, default: str,
            choices: tuple[str, ...]) -> str:
    value = section.get(name, default)
    if value not in choices:
        raise HardwareFileError(f"{key}: must be one of {', '.join(choices)} "
                                f"(got {_describe(value)})")
    assert isinstance(value, str)
    return value


def _section(data: Mapping[str, Any], name: str, known: tuple[str, ...]) -> Mapping[str, Any]:
    section = data.get(name, {})
    if not isinstance(section, dict):
        raise HardwareFileError(f"{name}: must be a table ([{name}])")
    for key in section:
        if key not in known:
            raise HardwareFileError(f"{name}.{key}: unknown key (known in [{name}]: "
                                    f"{', '.join(known)})")
    return section


SECTIONS: dict[str, tuple[str, ...]] = {
    "track": ("spaces",),
    "strip": ("backend", "led_count", "gpio", "dma", "pwm_channel", "frequency_hz", "invert",
              "strip_type", "colour_order", "device", "gamma", "max_brightness"),
    "layout": ("first_led", "leds_per_space", "reversed", "spaces"),
    "power": ("supply_ma", "ma_per_led", "idle_ma_per_led"),
    "buttons": ("next", "undo", "undo_hold_s", "new_game_hold_s"),
    "buzzer": ("pin", "tonal"),
    "host": ("pin",),
    "animation": ("pacing", "pause_ms", "fps"),
}
TOP_LEVEL_TEXT = ("name", "notes")


def _colour_order(strip: Mapping[str, Any], strip_type: str) -> str:
    value = strip.get("colour_order", "GRB")
    letters = value.upper() if isinstance(value, str) else ""
    rgb = letters[:3]
    ok = sorted(rgb) == ["B", "G", "R"] and (
        len(letters) == 3 or (len(letters) == 4 and letters[3] == "W"))
    if not ok:
        raise HardwareFileError(f"strip.colour_order: must be the letters R, G, B in the order "
                                f"the strip wants them, like \"GRB\" (got {_describe(value)})")
    if len(letters) == 4 and strip_type != "sk6812w":
        raise HardwareFileError(f"strip.colour_order: {letters} has a W channel, but "
                                f"strip.strip_type is {strip_type!r} (use \"sk6812w\")")
    return rgb


def _explicit_layout(value: object, spaces: int, led_count: int) -> Layout:
    if not isinstance(value, list):
        raise HardwareFileError("layout.spaces: must be a list with one entry per space, "
                                "each a list of LED numbers, like [[0], [1], [2, 3]]")
    if len(value) != spaces:
        raise HardwareFileError(f"layout.spaces: has {len(value)} entries but track.spaces "
                                f"is {spaces} (one entry per space)")
    seen: dict[int, int] = {}
    result = []
    for space, entry in enumerate(value):
        key = f"layout.spaces[{space}]"
        leds = entry if isinstance(entry, list) else [entry]
        if not leds:
            raise HardwareFileError(f"{key}: space {space} has no LED (every space needs one)")
        for led in leds:
            if not is_int(led) or not 0 <= led < led_count:
                raise HardwareFileError(f"{key}: {_describe(led)} is not an LED number "
                                        f"0 to {led_count - 1}")
            if led in seen:
                raise HardwareFileError(f"{key}: LED {led} is already under space {seen[led]}")
            seen[led] = space
        result.append(tuple(leds))
    return tuple(result)


def parse_hardware(data: Mapping[str, Any], path: str | None = None) -> HardwareConfig:
    """Check a board file's parsed TOML and give the ``HardwareConfig`` it describes."""
    for key, value in data.items():
        if key in TOP_LEVEL_TEXT:
            if not isinstance(value, str):
                raise HardwareFileError(f"{key}: must be text")
        elif key not in SECTIONS:
            raise HardwareFileError(f"{key}: unknown table or key (known: "
                                    f"{', '.join((*SECTIONS, *TOP_LEVEL_TEXT))})")
    t = {name: _section(data, name, known) for name, known in SECTIONS.items()}
    # The board's spaces are the game's track: the same default and the same most.
    spaces = _int(t["track"], "spaces", "track.spaces", DEFAULT_TRACK_LENGTH, 4,
                  MAX_TRACK_LENGTH)

    strip = t["strip"]
    backend = _choice(strip, "backend", "strip.backend", "auto", BACKENDS)
    led_count = _int(strip, "led_count", "strip.led_count", spaces, 1, MAX_LEDS)
    gpio = _int(strip, "gpio", "strip.gpio", 18, 0, 27)
    if backend == "ws281x" and gpio not in WS281X_PINS:
        raise HardwareFileError(f"strip.gpio: the ws281x backend drives GPIO 18 or 12 (PWM0), "
                                f"13 or 19 (PWM1), 21 (PCM) or 10 (SPI), not {gpio}")
    dma = _int(strip, "dma", "strip.dma", 10, 1, 14)
    if dma == 5:
        raise HardwareFileError("strip.dma: DMA 5 is used by the SD card on current Pi OS "
                                "kernels; use 10")
    default_channel = 1 if gpio in (13, 19) else 0
    pwm_channel = _int(strip, "pwm_channel", "strip.pwm_channel", default_channel, 0, 1)
    if gpio in WS281X_PINS and WS281X_PINS[gpio].startswith("PWM") and (
            pwm_channel != int(WS281X_PINS[gpio][-1])):
        raise HardwareFileError(f"strip.pwm_channel: GPIO {gpio} is on {WS281X_PINS[gpio]}, "
                                f"so pwm_channel must be {WS281X_PINS[gpio][-1]}")
    frequency = _int(strip, "frequency_hz", "strip.frequency_hz", 800_000, 400_000, 800_000)
    invert = _bool(strip, "invert", "strip.invert", False)
    strip_type = _choice(strip, "strip_type", "strip.strip_type", "ws2812", STRIP_TYPES)
    colour_order = _colour_order(strip, strip_type)
    device = strip.get("device", "/dev/leds0")
    if not isinstance(device, str) or not device.startswith("/"):
        raise HardwareFileError(f"strip.device: must be an absolute path like \"/dev/leds0\" "
                                f"(got {_describe(device)})")
    gamma = _number(strip, "gamma", "strip.gamma", 2.2, 1.0, 3.0)
    max_brightness = _number(strip, "max_brightness", "strip.max_brightness", 0.5, 0.0, 1.0,
                             low_open=True)

    lay = t["layout"]
    if "spaces" in lay:
        layout = _explicit_layout(lay["spaces"], spaces, led_count)
        explicit = True
    else:
        first_led = _int(lay, "first_led", "layout.first_led", 0, 0, led_count - 1)
        per_space = _int(lay, "leds_per_space", "layout.leds_per_space", 1, 1, 16)
        reversed_ = _bool(lay, "reversed", "layout.reversed", False)
        if spaces * per_space > led_count:
            raise HardwareFileError(f"layout.leds_per_space: {spaces} spaces x {per_space} LEDs "
                                    f"need {spaces * per_space} LEDs, but strip.led_count is "
                                    f"{led_count}")
        layout = helper_layout(spaces, led_count, first_led, per_space, reversed_)
        explicit = False

    power = t["power"]
    supply = _number(power, "supply_ma", "power.supply_ma", 3000, 0, 100_000, low_open=True)
    per_led = _number(power, "ma_per_led", "power.ma_per_led", 60, 0, 200, low_open=True)
    idle = _number(power, "idle_ma_per_led", "power.idle_ma_per_led", 1, 0, 10)
    if idle * led_count >= supply:
        raise HardwareFileError(f"power.supply_ma: {supply:g} mA does not even cover the idle "
                                f"current of {led_count} LEDs ({idle * led_count:g} mA)")

    buttons = t["buttons"]
    button_next = _optional_pin(buttons, "next", "buttons.next")
    button_undo = _optional_pin(buttons, "undo", "buttons.undo")
    undo_hold = _number(buttons, "undo_hold_s", "buttons.undo_hold_s", 1.5, 0, 30,
                        low_open=True)
    new_game_hold = _number(buttons, "new_game_hold_s", "buttons.new_game_hold_s", 5.0, 0, 60,
                            low_open=True)
    if new_game_hold <= undo_hold:
        raise HardwareFileError(f"buttons.new_game_hold_s: must be longer than undo_hold_s "
                                f"({undo_hold:g} s)")
    buzzer = t["buzzer"]
    buzzer_pin = _optional_pin(buzzer, "pin", "buzzer.pin")
    tonal = _bool(buzzer, "tonal", "buzzer.tonal", True)
    used = {gpio: "strip.gpio"}
    for key, pin in (("buttons.next", button_next), ("buttons.undo", button_undo),
                     ("buzzer.pin", buzzer_pin)):
        if pin is None:
            continue
        if pin in used:
            raise HardwareFileError(f"{key}: GPIO {pin} is already used by {used[pin]}")
        used[pin] = key

    host_pin = t["host"].get("pin")
    if host_pin is not None and (not isinstance(host_pin, str) or not host_pin.isdigit()
                                 or not 4 <= len(host_pin) <= 8):
        raise HardwareFileError(f"host.pin: must be 4 to 8 digits in quotes, like \"4821\" "
                                f"(got {_describe(host_pin)})")

    anim = t["animation"]
    pacing = _choice(anim, "pacing", "animation.pacing", DEFAULT_PACING, PACINGS)
    pause_ms = _int(anim, "pause_ms", "animation.pause_ms", DEFAULT_PAUSE_MS, PAUSE_MS_MIN,
                    PAUSE_MS_MAX)
    fps = _int(anim, "fps", "animation.fps", 30, 5, 120)

    return HardwareConfig(
        spaces=spaces, backend=backend, led_count=led_count, gpio=gpio, dma=dma,
        pwm_channel=pwm_channel, frequency_hz=frequency, invert=invert, strip_type=strip_type,
        colour_order=colour_order, device=device, gamma=gamma, max_brightness=max_brightness,
        layout=layout, explicit_layout=explicit, supply_ma=supply, ma_per_led=per_led,
        idle_ma_per_led=idle, button_next=button_next, button_undo=button_undo,
        undo_hold_s=undo_hold, new_game_hold_s=new_game_hold, buzzer_pin=buzzer_pin,
        buzzer_tonal=tonal, host_pin=host_pin, pacing=pacing, pause_ms=pause_ms, fps=fps,
        path=path)


def load_hardware_data(path: str | Path) -> dict[str, Any]:
    """The parsed TOML of a board file, unchecked; ``HardwareFileError`` if unreadable."""
    name = str(path)
    try:
        with open(path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise HardwareFileError(f"{name}: no such board file") from None
    except IsADirectoryError:
        raise HardwareFileError(f"{name}: is a directory, not a board file") from None
    except OSError as error:
        raise HardwareFileError(f"{name}: cannot read it ({error.strerror})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise HardwareFileError(f"{name}: too big for a board file (over "
                                f"{MAX_FILE_BYTES // 1024} KB)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise HardwareFileError(f"{name}: not a text file (byte {error.start} is not "
                                "UTF-8)") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise HardwareFileError(f"{name}: not valid TOML: {error}") from None
    except RecursionError:
        raise HardwareFileError(f"{name}: not valid TOML: nested too deeply") from None


def load_hardware_file(path: str | Path) -> HardwareConfig:
    """Read and check a board file; raise ``HardwareFileError`` ("FILE: key: problem")."""
    data = load_hardware_data(path)
    try:
        return parse_hardware(data, str(path))
    except HardwareFileError as error:
        raise HardwareFileError(f"{path}: {error}") from None
