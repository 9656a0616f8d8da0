"""hardware/: the example board files load, the parts list adds up, the wiring diagram is drawn
and labelled, the build guide and README cover what a builder needs."""

from __future__ import annotations

import csv
import re
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from kalimambo.firmware.hardware import HardwareFileError, load_hardware_file
from tests.helpers import ROOT

HARDWARE = ROOT / "hardware"
BOARDS: dict[str, dict[str, Any]] = {
    "pi4-gpio18.toml": {"backend": "ws281x", "leds_per_space": 1, "led_count": 32},
    "pi5-pio-2led.toml": {"backend": "pio", "leds_per_space": 2, "led_count": 64},
}
SVG = "{http://www.w3.org/2000/svg}"


def contract_schema() -> dict[str, dict[str, Any]]:
    """The board-file example in docs/CONTRACTS.md, parsed: table -> key -> example value."""
    text = (ROOT / "docs" / "CONTRACTS.md").read_text()
    section = text.split("## Board file (TOML)", 1)[1]
    block = re.search(r"```toml\n(.*?)```", section, re.S)
    assert block, "docs/CONTRACTS.md has no board-file example"
    return tomllib.loads(block.group(1))


def load(name: str) -> dict[str, Any]:
    return tomllib.loads((HARDWARE / "boards" / name).read_text())


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_board_file_follows_the_contract(name: str) -> None:
    schema = contract_schema()
    data = load(name)
    for table, values in data.items():
        assert table in schema, f"{name}: [{table}] is not in the contract"
        for key, value in values.items():
            if table == "layout" and key == "spaces":
                continue  # the explicit map is a comment in the contract
            assert key in schema[table], f"{name}: {table}.{key} is not in the contract"
            expected = type(schema[table][key])
            if expected is float:
                assert isinstance(value, int | float), f"{name}: {table}.{key}"
            else:
                assert type(value) is expected, f"{name}: {table}.{key} should be {expected}"
    want = BOARDS[name]
    assert data["track"]["spaces"] == 32
    assert data["strip"]["backend"] == want["backend"]
    assert data["strip"]["gpio"] == 18
    assert data["layout"]["leds_per_space"] == want["leds_per_space"]
    assert data["strip"]["led_count"] == want["led_count"] == 32 * want["leds_per_space"]
    # the supply covers what the limiter lets through at the chosen brightness
    power = data["power"]
    worst = data["strip"]["led_count"] * power["ma_per_led"] * data["strip"]["max_brightness"]
    assert power["supply_ma"] >= worst


@pytest.mark.parametrize("name", sorted(BOARDS))
def test_board_file_loads_with_the_firmware(name: str) -> None:
    hardware = load_hardware_file(HARDWARE / "boards" / name)
    want = BOARDS[name]
    assert hardware.spaces == 32
    assert hardware.backend == want["backend"]
    assert hardware.led_count == want["led_count"]
    per_space = want["leds_per_space"]
    assert [hardware.leds_of(space) for space in range(32)] == [
        tuple(range(space * per_space, (space + 1) * per_space)) for space in range(32)]


def test_firmware_refuses_a_broken_copy(tmp_path: Path) -> None:
    """The examples are only proof of anything if the loader can also say no."""
    text = (HARDWARE / "boards" / "pi4-gpio18.toml").read_text()
    broken = tmp_path / "board.toml"
    broken.write_text(text.replace('backend = "ws281x"', 'backend = "neopixel"'))
    with pytest.raises(HardwareFileError, match="backend"):
        load_hardware_file(broken)


# ---- parts list ------------------------------------------------------------------------

def parts() -> list[dict[str, str]]:
    with (HARDWARE / "parts.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_parts_csv_is_well_formed() -> None:
    rows = parts()
    assert rows
    for row in rows:
        assert None not in row, f"a row has more fields than the header: {row}"
        assert all(value is not None for value in row.values()), row
        assert row["required"] in ("yes", "optional"), row["part"]
        assert int(row["qty_1_led"]) >= 1 and int(row["qty_2_leds"]) >= 1, row["part"]
        assert re.fullmatch(r"\d+(\.\d+)?(-\d+(\.\d+)?)?", row["price_each_eur"]), row["part"]


@pytest.mark.parametrize("needle", [
    "Zero 2 W", "WS2812B", "SK6812", "74AHCT125", "330 to 470 ohm", "1000 uF", "fuse",
    "18 AWG", "Push button", "Piezo", "5 V regulated", "30 LEDs/m", "60 LEDs/m"])
def test_parts_list_names(needle: str) -> None:
    text = (HARDWARE / "parts.csv").read_text()
    assert needle.lower() in text.lower()


def test_parts_table_matches_the_csv() -> None:
    rows = parts()
    table = (HARDWARE / "parts.md").read_text()
    for row in rows:
        assert f"| {row['part']} | {row['specification']} | {row['qty_1_led']} | " \
               f"{row['qty_2_leds']} | {row['price_each_eur']} | {row['required']} |" in table

    def total(column: str, needed_only: bool) -> float:
        return sum(int(row[column]) * float(row["price_each_eur"]) for row in rows
                   if "-" not in row["price_each_eur"]
                   and (row["required"] == "yes" or not needed_only))

    figures = [float(value) for value in re.findall(r"\*\*(\d+\.\d\d) EUR\*\*", table)]
    assert figures == [pytest.approx(total("qty_1_led", True)),
                       pytest.approx(total("qty_2_leds", True)),
                       pytest.approx(total("qty_1_led", False)),
                       pytest.approx(total("qty_2_leds", False))]


def test_supply_table_follows_60_ma_per_led() -> None:
    table = (HARDWARE / "parts.md").read_text()
    rows = re.findall(r"^\| (\d+) \([^)]*\) \| (\d+\.\d) A \| 5 V (\d+) A", table, re.M)
    assert len(rows) >= 2
    for leds, worst, supply in rows:
        assert float(worst) == pytest.approx(int(leds) * 0.06, abs=0.05)
        assert int(supply) >= int(leds) * 0.06 * 1.2 - 0.5  # about 20 % margin


# ---- wiring diagram --------------------------------------------------------------------

def test_wiring_is_a_drawn_labelled_svg() -> None:
    path = HARDWARE / "wiring.svg"
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    assert root.get("viewBox")
    assert not list(root.iter(f"{SVG}image")), "drawn, not a photo"
    shapes = [el for el in root.iter() if el.tag in {f"{SVG}{t}" for t in (
        "path", "line", "rect", "circle")}]
    assert len(shapes) > 50
    text = " ".join("".join(el.itertext()) for el in root.iter(f"{SVG}text"))
    for label in ("GPIO 18", "pin 12", "74AHCT125", "330-470 Ω", "DIN", "1000 µF", "fuse",
                  "common ground", "both ends", "GPIO 17", "GPIO 27", "GPIO 22", "piezo",
                  "never power the strip", "Pi 5", "ws2812-pio"):
        assert label in text, label
    raw = path.read_text()
    assert "http://" not in raw.replace("http://www.w3.org/2000/svg", ""), "no outside links"
    assert "@import" not in raw and "url(http" not in raw


# ---- build guide and README ------------------------------------------------------------

@pytest.mark.parametrize("needle", [
    "kalimambo leds test", "kalimambo leds walk", "kalimambo leds calibrate", "diffus",
    "baffle", "bleed", "level shifter", "common ground", "DIN", "dtoverlay=ws2812-pio",
    "snd_bcm2835", "analog audio", "/dev/leds0", "power injection", "First power-up"])
def test_build_guide_covers(needle: str) -> None:
    assert needle.lower() in (HARDWARE / "BUILD.md").read_text().lower()


def test_readme_sections_sit_between_intro_and_command_line() -> None:
    text = (ROOT / "README.md").read_text()
    assert text.startswith("# Kalimambo table companion\n\n```\n./setup.sh && .venv/bin/kalimambo\n"
                           "./setup.sh --dev && .venv/bin/pytest\n```\n")
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    mine = ["## Playing at a table", "## Building the LED board", "## Convention booth",
            "## Troubleshooting"]
    assert [head for head in heads if head in mine] == mine
    assert heads.index(mine[-1]) < heads.index("## Command line")
    for link in re.findall(r"\]\((hardware/[^)#]+)", text):
        assert (ROOT / link).exists(), link
