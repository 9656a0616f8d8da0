"""The board file: defaults, layout helpers, and every mistake refused by key."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kalimambo.firmware.hardware import (
    HardwareFileError,
    default_hardware,
    helper_layout,
    load_hardware_file,
    parse_hardware,
)

FULL = """
name = "Test board"
[track]
spaces = 32
[strip]
backend = "sim"
led_count = 64
gpio = 18
dma = 10
pwm_channel = 0
frequency_hz = 800000
invert = false
strip_type = "ws2812"
colour_order = "GRB"
device = "/dev/leds0"
gamma = 2.2
max_brightness = 0.5
[layout]
first_led = 3
leds_per_space = 2
reversed = true
[power]
supply_ma = 3000
ma_per_led = 60
idle_ma_per_led = 1
[buttons]
next = 17
undo = 27
[buzzer]
pin = 22
tonal = true
[host]
pin = "4821"
[animation]
pacing = "step"
pause_ms = 700
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "board.toml"
    path.write_text(textwrap.dedent(text))
    return path


def test_default_hardware_is_32_spaces_led_i_under_space_i() -> None:
    hardware = default_hardware()
    assert hardware.spaces == 32 and hardware.led_count == 32
    assert [hardware.leds_of(s) for s in range(32)] == [(s,) for s in range(32)]
    assert hardware.host_pin is None and hardware.backend == "auto"


def test_full_file_is_read(tmp_path: Path) -> None:
    hardware = load_hardware_file(write(tmp_path, FULL))
    assert (hardware.led_count, hardware.button_next, hardware.button_undo,
            hardware.buzzer_pin) == (64, 17, 27, 22)
    assert hardware.host_pin == "4821" and hardware.pacing == "step" and hardware.pause_ms == 700
    # reversed from LED 3, two LEDs per space: space 0 -> 3, 2; space 1 -> 1, 0; then wraps
    assert hardware.leds_of(0) == (3, 2) and hardware.leds_of(1) == (1, 0)
    assert hardware.leds_of(2) == (63, 62)
    every = [led for s in range(32) for led in hardware.leds_of(s)]
    assert sorted(every) == list(range(64))


def test_empty_file_gives_the_defaults(tmp_path: Path) -> None:
    assert load_hardware_file(write(tmp_path, "")).layout == default_hardware().layout


def test_helper_layout_offsets_and_wraps() -> None:
    assert helper_layout(4, 4, first_led=2) == ((2,), (3,), (0,), (1,))
    assert helper_layout(2, 6, first_led=0, leds_per_space=3) == ((0, 1, 2), (3, 4, 5))


def test_explicit_map_overrides_helpers() -> None:
    spaces: list[object] = [[31 - s] for s in range(32)]
    spaces[0] = [32, 31]  # two LEDs under space 0
    spaces[1] = 30  # a bare number is one LED
    hardware = parse_hardware({"strip": {"led_count": 33}, "layout": {"first_led": 5,
                                                                      "spaces": spaces}})
    assert hardware.explicit_layout
    assert hardware.leds_of(0) == (32, 31) and hardware.leds_of(1) == (30,)
    assert hardware.leds_of(31) == (0,)
    assert hardware.space_of_led()[31] == 0


MISTAKES = [
    ("[track]\nspaces = 2\n", "track.spaces: must be a whole number from 4 to 1000 (got 2)"),
    ("[strip]\nled_count = \"many\"\n", "strip.led_count: must be a whole number from 1 to "
     "2000 (got 'many')"),
    ("[strip]\nbackend = \"neopixel\"\n", "strip.backend: must be one of auto, sim, ws281x, "
     "pio (got 'neopixel')"),
    ("[strip]\nbackend = \"ws281x\"\ngpio = 4\n", "strip.gpio: the ws281x backend drives "
     "GPIO 18 or 12"),
    ("[strip]\ndma = 5\n", "strip.dma: DMA 5 is used by the SD card"),
    ("[strip]\ngpio = 13\npwm_channel = 0\n", "strip.pwm_channel: GPIO 13 is on PWM1, so "
     "pwm_channel must be 1"),
    ("[strip]\ncolour_order = \"GRR\"\n", "strip.colour_order: must be the letters R, G, B"),
    ("[strip]\ncolour_order = \"GRBW\"\n", "strip.colour_order: GRBW has a W channel"),
    ("[strip]\nstrip_type = \"apa102\"\n", "strip.strip_type: must be one of ws2812, sk6812, "
     "sk6812w (got 'apa102')"),
    ("[strip]\ngamma = 9\n", "strip.gamma: must be a number at least 1 and at most 3 (got 9)"),
    ("[strip]\nmax_brightness = 0\n", "strip.max_brightness: must be a number more than 0"),
    ("[strip]\ninvert = \"no\"\n", "strip.invert: must be true or false (got 'no')"),
    ("[strip]\ndevice = \"leds0\"\n", "strip.device: must be an absolute path"),
    ("[strip]\nled_cont = 32\n", "strip.led_cont: unknown key (known in [strip]: backend"),
    ("[strips]\nled_count = 32\n", "strips: unknown table or key"),
    ("strip = 3\n", "strip: must be a table ([strip])"),
    ("[layout]\nleds_per_space = 2\n", "layout.leds_per_space: 32 spaces x 2 LEDs need 64 "
     "LEDs, but strip.led_count is 32"),
    ("[layout]\nfirst_led = 32\n", "layout.first_led: must be a whole number from 0 to 31"),
    ("[layout]\nspaces = [[0], [1]]\n", "layout.spaces: has 2 entries but track.spaces is 32"),
    ("[layout]\nspaces = " + str([[i] for i in range(31)] + [[0]]) + "\n",
     "layout.spaces[31]: LED 0 is already under space 0"),
    ("[layout]\nspaces = " + str([[i] for i in range(31)] + [[40]]) + "\n",
     "layout.spaces[31]: 40 is not an LED number 0 to 31"),
    ("[layout]\nspaces = " + str([[i] for i in range(31)] + [[]]) + "\n",
     "layout.spaces[31]: space 31 has no LED"),
    ("[layout]\nspaces = 5\n", "layout.spaces: must be a list with one entry per space"),
    ("[power]\nsupply_ma = 20\n", "power.supply_ma: 20 mA does not even cover the idle "
     "current of 32 LEDs (32 mA)"),
    ("[power]\nma_per_led = -1\n", "power.ma_per_led: must be a number more than 0"),
    ("[buttons]\nnext = 40\n", "buttons.next: must be a whole number from 0 to 27 (got 40)"),
    ("[buttons]\nnext = 18\n", "buttons.next: GPIO 18 is already used by strip.gpio"),
    ("[buttons]\nnext = 17\n[buzzer]\npin = 17\n", "buzzer.pin: GPIO 17 is already used by "
     "buttons.next"),
    ("[buttons]\nundo_hold_s = 3\nnew_game_hold_s = 2\n", "buttons.new_game_hold_s: must be "
     "longer than undo_hold_s (3 s)"),
    ("[buzzer]\npin = 22\ntonal = 1\n", "buzzer.tonal: must be true or false (got 1)"),
    ("[host]\npin = 4821\n", "host.pin: must be 4 to 8 digits in quotes"),
    ("[host]\npin = \"12\"\n", "host.pin: must be 4 to 8 digits in quotes"),
    ("[animation]\npacing = \"manual\"\n", "animation.pacing: must be one of auto, step"),
    ("[animation]\npause_ms = 20\n", "animation.pause_ms: must be a whole number from 100"),
    ("name = 3\n", "name: must be text"),
]


@pytest.mark.parametrize(("text", "message"), MISTAKES)
def test_each_mistake_is_refused_with_its_message(tmp_path: Path, text: str,
                                                  message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(HardwareFileError) as caught:
        load_hardware_file(path)
    assert str(caught.value).startswith(f"{path}: {message}")
    assert "\n" not in str(caught.value)


def test_missing_file_and_bad_toml(tmp_path: Path) -> None:
    with pytest.raises(HardwareFileError, match="no such board file"):
        load_hardware_file(tmp_path / "nope.toml")
    with pytest.raises(HardwareFileError, match="not valid TOML"):
        load_hardware_file(write(tmp_path, "[strip\nled_count = 3"))


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "hardware" / "boards").glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_example_board_files_load(path: Path) -> None:
    hardware = load_hardware_file(path)
    every = [led for space in range(hardware.spaces) for led in hardware.leds_of(space)]
    assert len(every) == len(set(every)) and max(every) < hardware.led_count
