"""Gamma, layout mapping and the power limiter (random frames never exceed the budget)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from kalimambo.firmware.hardware import HardwareConfig, parse_hardware
from kalimambo.firmware.output import Output, channel_budget, estimate_ma, gamma_lut, limit_power
from kalimambo.firmware.scene import RGB

channel = st.integers(0, 255)
colour = st.tuples(channel, channel, channel)


@st.composite
def boards_and_frames(draw: st.DrawFn) -> tuple[HardwareConfig, list[RGB]]:
    leds = draw(st.integers(4, 300))
    idle = draw(st.one_of(st.integers(0, 2), st.floats(0, 2, allow_nan=False)))
    supply = draw(st.one_of(st.integers(1, 20_000), st.floats(1, 20_000, allow_nan=False)))
    if idle * leds >= supply:
        supply = idle * leds + draw(st.floats(0.001, 5000))
    per_led = draw(st.one_of(st.integers(1, 80), st.floats(0.5, 80, allow_nan=False)))
    hardware = parse_hardware({
        "track": {"spaces": 4}, "strip": {"led_count": leds,
                                          "max_brightness": draw(st.floats(0.01, 1.0)),
                                          "gamma": draw(st.floats(1.0, 3.0))},
        "power": {"supply_ma": supply, "ma_per_led": per_led, "idle_ma_per_led": idle}})
    # A pattern of colours repeated along the strip. Drawing 300 LEDs one by one made
    # this the slowest test (about 20 s): hypothesis spends its time per drawn value.
    # Any frame is still possible (a pattern as long as the strip), but most are a few
    # colours repeated, which reach the same sums, extremes and rounding cases cheaply.
    pattern = draw(st.lists(colour, min_size=1, max_size=hardware.led_count))
    frame = (pattern * -(-hardware.led_count // len(pattern)))[:hardware.led_count]
    return hardware, frame


@settings(max_examples=300, deadline=None)
@given(boards_and_frames())
def test_limited_frames_never_exceed_the_budget(case: tuple[HardwareConfig, list[RGB]]) -> None:
    hardware, frame = case
    output = Output(hardware)
    shown = output.finish(frame)
    assert estimate_ma(shown, hardware) <= Fraction(hardware.supply_ma)
    assert all(0 <= value <= 255 for led in shown for value in led)
    # Limiting only ever dims, and leaves a frame that fits untouched.
    after_gamma = [(output.lut[r], output.lut[g], output.lut[b]) for r, g, b in frame]
    assert all(s <= g for led_s, led_g in zip(shown, after_gamma, strict=True)
               for s, g in zip(led_s, led_g, strict=True))
    if estimate_ma(after_gamma, hardware) <= Fraction(hardware.supply_ma):
        assert shown == after_gamma


def test_full_white_on_a_small_supply_is_scaled_to_just_fit() -> None:
    hardware = parse_hardware({"track": {"spaces": 100}, "strip": {"max_brightness": 1.0,
                                                                   "gamma": 1.0},
                               "power": {"supply_ma": 1000, "ma_per_led": 60,
                                         "idle_ma_per_led": 1}})
    shown = Output(hardware).finish([(255, 255, 255)] * 100)
    # 100 LEDs x 60 mA = 6000 mA wanted; 1000 - 100 idle = 900 mA for light: 15 %.
    assert 890 < float(estimate_ma(shown, hardware)) <= 1000
    assert shown[0] == (38, 38, 38)


def test_limit_power_keeps_colour_ratios() -> None:
    assert limit_power([(200, 100, 0)], 150) == [(100, 50, 0)]
    frame = [(10, 10, 10)]
    assert limit_power(frame, 30) is frame


def test_budget_covers_idle_current() -> None:
    hardware = parse_hardware({"track": {"spaces": 10}, "power": {"supply_ma": 100,
                                                                  "ma_per_led": 60,
                                                                  "idle_ma_per_led": 2}})
    assert channel_budget(hardware) == (100 - 20) * 765 // 60


def test_gamma_lut_caps_brightness_and_keeps_black() -> None:
    lut = gamma_lut(2.2, 0.5)
    assert lut[0] == 0 and lut[255] == 127
    assert list(lut) == sorted(lut)


def test_heap_under_a_figure_shows_on_a_spare_led() -> None:
    hardware = parse_hardware({"track": {"spaces": 4}, "strip": {"led_count": 8},
                               "layout": {"leds_per_space": 2}})
    leds = Output(hardware).leds_from_spaces([(1, 1, 1), (2, 2, 2), (0, 0, 0), (0, 0, 0)],
                                             [None, (9, 9, 9), None, None])
    assert leds == [(1, 1, 1), (1, 1, 1), (2, 2, 2), (9, 9, 9)] + [(0, 0, 0)] * 4


def test_figure_colours_stay_apart_on_the_strip() -> None:
    import itertools
    import math

    from kalimambo.firmware.scene import DUNG_COLOUR, EXPLORER_COLOURS, KALI_COLOUR, MAMBO_COLOUR

    lut = gamma_lut(2.2, 0.5)

    def shown(colour: RGB) -> RGB:
        return (lut[colour[0]], lut[colour[1]], lut[colour[2]])

    def hue(colour: RGB) -> tuple[float, ...]:
        return tuple(c / sum(colour) for c in colour)

    figures = [*EXPLORER_COLOURS.values(), KALI_COLOUR, MAMBO_COLOUR]
    for a, b in itertools.combinations(figures, 2):
        assert math.dist(hue(shown(a)), hue(shown(b))) > 0.15, (a, b)
    # Heaps may share a hue with orange but are far dimmer than any figure.
    assert all(sum(shown(f)) > 3 * sum(shown(DUNG_COLOUR)) for f in figures)


def test_every_wooden_colour_has_a_strip_colour_and_a_page_colour() -> None:
    """The engine names the figures' colours once; the strip and the pages each say
    how one looks, and may not miss one."""
    from kalimambo.engine.rules import EXPLORER_COLOURS as NAMES
    from kalimambo.firmware.scene import EXPLORER_COLOURS
    from tests.helpers import ROOT

    assert list(EXPLORER_COLOURS) == list(NAMES)
    css = (ROOT / "web" / "static" / "style.css").read_text("utf-8")
    assert [name for name in NAMES if f".c-{name} " not in css] == []
