"""The builder's kit before anyone buys parts: the strip the parts list buys is long enough
for the board files' promises, and the wiring diagram looks the same whatever draws it
(librsvg, the library behind most Linux image viewers, and Chromium)."""

from __future__ import annotations

import csv
import re
import shutil
import struct
import subprocess
import tomllib
import zlib
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT

HARDWARE = ROOT / "hardware"
BOARD_FILES = sorted((HARDWARE / "boards").glob("*.toml"))
WIRING = HARDWARE / "wiring.svg"


# ---- the strip's length ----------------------------------------------------------------

def strip_row() -> dict[str, str]:
    with (HARDWARE / "parts.csv").open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if row["part"] == "LED strip"]
    assert len(rows) == 1, "parts.csv has one LED strip row"
    return rows[0]


def reel_m() -> float:
    """The reel the parts list buys, in metres ("2 m reel" in its specification)."""
    found = re.findall(r"(\d+(?:\.\d+)?) m reel", strip_row()["specification"])
    assert len(found) == 1, "the LED strip's specification names one reel length"
    return float(found[0])


def densities() -> dict[int, int]:
    """LEDs per space -> the LEDs per metre the parts list buys for it."""
    found = re.findall(r"(\d+) LEDs/m for (\d+) per space", strip_row()["specification"])
    assert found, "the LED strip's specification says which density for which build"
    return {int(per_space): int(per_m) for per_m, per_space in found}


def pitch_m() -> float:
    """The space pitch the kit plans with (BUILD.md, "pitch about 33 mm")."""
    found = re.search(r"pitch about (\d+) mm", (HARDWARE / "BUILD.md").read_text())
    assert found, "BUILD.md names the pitch it plans with"
    return int(found.group(1)) / 1000


def board(path: Path) -> tuple[dict[str, Any], int]:
    """A board file and the strip density its led_count comment promises ("a 30 LEDs/m
    strip")."""
    text = path.read_text()
    line = next(line for line in text.splitlines() if line.startswith("led_count"))
    promised = re.search(r"(\d+) LEDs/m", line)
    assert promised, f"{path.name}: the led_count comment names the strip's LEDs per metre"
    return tomllib.loads(text), int(promised.group(1))


@pytest.mark.parametrize("path", BOARD_FILES, ids=lambda path: path.name)
def test_the_reel_bought_covers_the_board_files_strip(path: Path) -> None:
    data, per_m = board(path)
    spaces = data["track"]["spaces"]
    per_space = data["layout"]["leds_per_space"]
    led_count = data["strip"]["led_count"]
    assert led_count == spaces * per_space
    # the board file and the parts list promise the same strip for this build
    assert densities()[per_space] == per_m, f"{path.name}: {per_m} LEDs/m"
    cut_m = led_count / per_m
    assert cut_m <= reel_m(), f"{path.name}: {led_count} LEDs at {per_m}/m are {cut_m:.2f} m"
    # and the LEDs, one space's worth each, reach round the whole track
    assert cut_m >= spaces * pitch_m(), (
        f"{path.name}: {led_count} LEDs at {per_m}/m cover {cut_m:.2f} m of a "
        f"{spaces * pitch_m():.2f} m track")


def test_a_1_m_reel_is_too_short_and_the_parts_list_says_so() -> None:
    """Each build cuts more than a metre, so a check that allowed a 1 m reel is wrong."""
    for per_space, per_m in densities().items():
        assert 32 * per_space / per_m > 1.0
    track = f"{32 * pitch_m():.2f} m"
    assert track == "1.06 m"
    for name in ("parts.md", "parts.csv"):
        text = (HARDWARE / name).read_text()
        assert track in text and "1 m reel" in text and "2 m reel" in text, name
    assert "1 m reel;" not in (HARDWARE / "parts.csv").read_text()


def test_the_parts_notes_cut_what_the_board_files_use() -> None:
    notes = strip_row()["notes"]
    cuts = {int(per_space): int(leds) for leds, per_space in
            re.findall(r"cut (?:\w+ )?(\d+) LEDs \((\d+) per space", notes)
            + re.findall(r"or (\d+) LEDs \((\d+) per space", notes)}
    for path in BOARD_FILES:
        data, _ = board(path)
        assert cuts[data["layout"]["leds_per_space"]] == data["strip"]["led_count"]


# ---- the kit's facts, wherever they appear ----------------------------------------------

def kit_texts() -> list[Path]:
    """Every file a builder reads or runs: the kit, the docs, the command line and the
    firmware's messages, setup.sh."""
    paths = [ROOT / "README.md", ROOT / "setup.sh", *sorted((ROOT / "docs").glob("*.md"))]
    for folder, pattern in (("hardware", "*"), ("kalimambo", "*.py"), ("firmware", "*.py"),
                            ("deploy", "*")):
        paths += sorted(path for path in (ROOT / folder).rglob(pattern) if path.is_file()
                        and "__pycache__" not in path.parts)
    return paths


def test_the_kit_says_pi_2_to_4_where_it_means_them() -> None:
    """setup.sh refuses the Pi 1, Zero and Zero W: rpi-ws281x drives a Pi 2-4 or Zero 2 W."""
    said = [str(path.relative_to(ROOT)) for path in kit_texts()
            if "Pi 1-4" in path.read_text(errors="replace")]
    assert said == []


def test_no_resistor_shifts_a_level() -> None:
    """The 330-470 ohm resistor damps ringing; only the 74AHCT125 shifts 3.3 V to 5 V."""
    for path in kit_texts():
        text = path.read_text(errors="replace").lower()
        assert "or a 330 ohm resistor" not in text, path
        assert "or a resistor" not in text, path


def test_the_continuity_check_expects_the_capacitors_brief_beep() -> None:
    text = (HARDWARE / "BUILD.md").read_text()
    assert "must *not* beep" not in text
    assert "beeps for a moment and stops" in text and "A beep that goes on is a short" in text


# ---- the wiring diagram ----------------------------------------------------------------

def test_the_diagram_draws_every_shape_inline() -> None:
    """librsvg draws a ``<use>`` of a ``<symbol>`` without width and height as a black
    block over whatever lies beneath (it once hid the strip's pads and the notes): the
    diagram has no ``<use>`` and no ``<symbol>`` at all."""
    raw = WIRING.read_text()
    assert "<use" not in raw and "<symbol" not in raw
    assert "Pi 1-4" not in raw


def test_the_diagram_shows_the_connectors_and_the_shifters_pinout() -> None:
    raw = WIRING.read_text()
    texts = re.findall(r"<text[^>]*>([^<]*)</text>", raw)
    assert texts.count("JST") == 2  # a plug at each end of the strip
    pins = dict(re.findall(r">(\d+)</text>\s*<text[^>]*>([^<]*)</text>", raw))
    assert pins["1"].startswith("1OE") and "GND" in pins["1"]  # tied low: the output on
    assert pins["2"].startswith("1A") and "GPIO 18" in pins["2"]
    assert pins["3"].startswith("1Y")
    assert pins["7"] == "GND" and pins["14"].startswith("VCC")
    for unused in ("2OE", "3OE", "4OE"):
        assert any(label.startswith(unused) and "+5 V" in label for label in texts), unused
    assert "tonal = false" in raw and "NPN" in raw


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and rows of RGB bytes of an 8-bit, non-interlaced RGB or RGBA PNG
    (what rsvg-convert and Chromium write), with the standard library alone."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (size,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + size]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + size
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, "an 8-bit RGB(A) PNG"
    step = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * step
    rows: list[bytes] = []
    prior = bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prior, strict=True))
        elif kind in (1, 3, 4):
            for i in range(stride):
                left = line[i - step] if i >= step else 0
                up = prior[i]
                if kind == 1:
                    line[i] = (line[i] + left) & 255
                elif kind == 3:
                    line[i] = (line[i] + ((left + up) >> 1)) & 255
                else:
                    corner = prior[i - step] if i >= step else 0
                    guess = left + up - corner
                    near = min((abs(guess - left), 0, left), (abs(guess - up), 1, up),
                               (abs(guess - corner), 2, corner))[2]
                    line[i] = (line[i] + near) & 255
        rows.append(bytes(line) if step == 3 else bytes(
            b for k, b in enumerate(line) if k % 4 != 3))
        prior = line
    return width, height, rows


def differing_share(first: tuple[int, int, list[bytes]], second: tuple[int, int, list[bytes]],
                    tolerance: int = 48) -> float:
    """The share of pixels where any channel differs by more than ``tolerance`` (text and
    lines anti-aliased a little differently by two renderers stay under it)."""
    assert first[:2] == second[:2], f"sizes differ: {first[:2]} and {second[:2]}"
    width, height = first[:2]
    differing = 0
    for row_a, row_b in zip(first[2], second[2], strict=True):
        if row_a == row_b:
            continue
        for x in range(width):
            a, b = row_a[3 * x:3 * x + 3], row_b[3 * x:3 * x + 3]
            if a != b and max(abs(p - q) for p, q in zip(a, b, strict=True)) > tolerance:
                differing += 1
    return differing / (width * height)


def test_the_png_check_sees_a_difference() -> None:
    """The comparison is only proof if it can fail: one PNG against a changed copy."""
    def png(rows: list[bytes]) -> bytes:
        def chunk(kind: bytes, body: bytes) -> bytes:
            return struct.pack(">I", len(body)) + kind + body + struct.pack(
                ">I", zlib.crc32(kind + body))
        data = b"".join(b"\x00" + row for row in rows)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 2, 8, 2,
                                                                  0, 0, 0))
                + chunk(b"IDAT", zlib.compress(data)) + chunk(b"IEND", b""))
    white = bytes([255] * 12)
    base = decode_png(png([white, white]))
    assert differing_share(base, base) == 0
    changed = decode_png(png([white, bytes([255] * 9 + [0, 0, 0])]))
    assert differing_share(base, changed) == pytest.approx(1 / 8)


@pytest.mark.slow
def test_librsvg_and_chromium_draw_the_diagram_alike(tmp_path: Path, browser: Any) -> None:
    """At most 3 % of the pixels apart (the diagram with ``<use>`` ground symbols was 19 %
    apart: librsvg drew black blocks over the pads, the capacitor and the notes)."""
    rsvg = shutil.which("rsvg-convert")
    if rsvg is None:
        pytest.skip("needs rsvg-convert (Debian's librsvg2-bin; setup.sh --dev installs it)")
    width, height = (int(v) for v in re.search(  # type: ignore[union-attr]
        r'<svg[^>]* width="(\d+)" height="(\d+)"', WIRING.read_text()).groups())
    drawn = tmp_path / "librsvg.png"
    subprocess.run([rsvg, "--format=png", "-o", str(drawn), str(WIRING)], check=True,
                   timeout=60)
    context = browser.new_context(viewport={"width": width, "height": height},
                                  device_scale_factor=1)
    try:
        page = context.new_page()
        page.goto(WIRING.as_uri())
        shot = page.screenshot(type="png")
    finally:
        context.close()
    by_librsvg, by_chromium = decode_png(drawn.read_bytes()), decode_png(shot)
    assert by_librsvg[:2] == by_chromium[:2] == (width, height)
    share = differing_share(by_librsvg, by_chromium)
    assert share <= 0.03, f"{share:.1%} of the pixels differ"


@pytest.mark.slow
def test_firefox_draws_the_diagram_as_librsvg_does(tmp_path: Path) -> None:
    """Firefox's engine too, where Debian's firefox-esr is installed (not by setup.sh: it
    is large, and the diagram uses only shapes all three draw alike): at most 3 % apart."""
    firefox, rsvg = shutil.which("firefox-esr") or shutil.which("firefox"), \
        shutil.which("rsvg-convert")
    if firefox is None or rsvg is None:
        pytest.skip("needs firefox-esr and rsvg-convert (apt-get install firefox-esr)")
    width, height = (int(v) for v in re.search(  # type: ignore[union-attr]
        r'<svg[^>]* width="(\d+)" height="(\d+)"', WIRING.read_text()).groups())
    drawn, shot, profile = tmp_path / "librsvg.png", tmp_path / "firefox.png", tmp_path / "p"
    profile.mkdir()
    subprocess.run([rsvg, "--format=png", "-o", str(drawn), str(WIRING)], check=True,
                   timeout=60)
    subprocess.run([firefox, "--headless", "--no-remote", "--profile", str(profile),
                    f"--window-size={width},{height}", "--screenshot", str(shot),
                    WIRING.as_uri()], check=True, timeout=120, capture_output=True)
    by_librsvg, by_firefox = decode_png(drawn.read_bytes()), decode_png(shot.read_bytes())
    assert by_librsvg[:2] == by_firefox[:2] == (width, height)
    share = differing_share(by_librsvg, by_firefox)
    assert share <= 0.03, f"{share:.1%} of the pixels differ"
