"""Light backends: pio byte-exact, ws281x against a fake module, auto from the device tree."""

from __future__ import annotations

import atexit
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.firmware.backends import (
    BackendError,
    PioBackend,
    SimBackend,
    Ws281xBackend,
    detect_backend,
    make_backend,
)
from kalimambo.firmware.board import BoardConfig, parse_board
from tests.firmware_fakes import fake_ws281x

FRAME = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3)]


def board_for(**strip: Any) -> BoardConfig:
    return parse_board({"track": {"spaces": 4}, "strip": {"led_count": 4, **strip}})


# -- pio ---------------------------------------------------------------------------

@pytest.mark.parametrize(("order", "expected"), [
    # The driver sends its R, G, B bytes as G, R, B: for a GRB strip nothing moves...
    ("GRB", bytes([255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 1, 2, 3, 0])),
    # ...for an RGB strip, red must sit in the driver's G byte so it is sent first.
    ("RGB", bytes([0, 255, 0, 0, 255, 0, 0, 0, 0, 0, 255, 0, 2, 1, 3, 0])),
    # BRG on the wire: driver bytes (R, G, B) = (R, B, G) of ours.
    ("BRG", bytes([255, 0, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 1, 3, 2, 0])),
])
def test_pio_writes_4_bytes_per_led_in_driver_order(tmp_path: Path, order: str,
                                                    expected: bytes) -> None:
    device = tmp_path / "leds0"
    device.write_bytes(b"")
    backend = PioBackend(board_for(device=str(device), colour_order=order))
    backend.start()
    assert device.read_bytes() == b"\x00"  # brightness 0: the driver passes values through
    backend.show(FRAME)
    assert device.read_bytes() == expected
    backend.show([(9, 9, 9)] * 4)  # each frame from offset 0, never appended
    assert len(device.read_bytes()) == 16
    backend.close()


def test_pio_without_the_overlay_says_what_to_add(tmp_path: Path) -> None:
    backend = PioBackend(board_for(device=str(tmp_path / "missing")))
    with pytest.raises(BackendError, match="dtoverlay=ws2812-pio,gpio=18,num_leds=4"):
        backend.start()


# -- ws281x ------------------------------------------------------------------------

@pytest.fixture
def fake_rpi(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    fake_ws281x.reset()
    monkeypatch.setitem(sys.modules, "rpi_ws281x", fake_ws281x)
    yield fake_ws281x
    fake_ws281x.reset()


@pytest.mark.usefixtures("fake_rpi")
@pytest.mark.parametrize(("order", "strip_type", "constant"), [
    ("GRB", "ws2812", fake_ws281x.ws.WS2811_STRIP_GRB),
    ("RGB", "ws2812", fake_ws281x.ws.WS2811_STRIP_RGB),
    ("BRG", "sk6812", fake_ws281x.ws.WS2811_STRIP_BRG),
    ("GRB", "sk6812w", fake_ws281x.ws.SK6812_STRIP_GRBW),
])
def test_ws281x_builds_begins_and_shows(order: str, strip_type: str, constant: int) -> None:
    board = board_for(colour_order=order, strip_type=strip_type, gpio=21, dma=10)
    backend = Ws281xBackend(board)
    backend.start()
    (strip,) = fake_ws281x.instances
    # count, pin, frequency, DMA, invert, brightness (full: we scale), channel, strip type
    assert strip.args == (4, 21, 800_000, 10, False, 255, 0, constant)
    backend.show(FRAME)
    # Colours go in as Color(r, g, b); the library reorders them from the strip type.
    assert strip.shown[-1] == {0: 0xFF0000, 1: 0x00FF00, 2: 0x0000FF, 3: 0x010203}
    assert strip.calls == [("begin",), ("show",)]
    backend.close()
    assert strip.shown[-1] == {0: 0, 1: 0, 2: 0, 3: 0}


@pytest.mark.usefixtures("fake_rpi")
def test_ws281x_failed_begin_is_an_error_and_disarms_the_exit_crash(
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake_ws281x.fail_begin = "ws2811_init failed with code -3"
    unregistered: list[object] = []
    monkeypatch.setattr(atexit, "unregister", unregistered.append)
    backend = Ws281xBackend(board_for())
    with pytest.raises(BackendError, match="code -3"):
        backend.start()
    (strip,) = fake_ws281x.instances
    assert unregistered == [strip._cleanup]


def test_ws281x_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)  # import fails
    with pytest.raises(BackendError, match="rpi-ws281x is not installed"):
        Ws281xBackend(board_for()).start()


# -- auto --------------------------------------------------------------------------

@pytest.mark.parametrize(("model", "expected"), [
    (b"Raspberry Pi 5 Model B Rev 1.0\x00", "pio"),
    (b"Raspberry Pi Compute Module 5 Rev 1.0\x00", "pio"),
    (b"Raspberry Pi 500 Rev 1.0\x00", "pio"),
    (b"Raspberry Pi 4 Model B Rev 1.5\x00", "ws281x"),
    (b"Raspberry Pi Zero 2 W Rev 1.0\x00", "ws281x"),
    (b"Raspberry Pi 3 Model B Plus Rev 1.3\x00", "ws281x"),
    (b"Raspberry Pi 50\x00", "ws281x"),
    (b"Pine64 RockPro64\x00", "sim"),
])
def test_auto_picks_from_the_device_tree(tmp_path: Path, model: bytes, expected: str) -> None:
    path = tmp_path / "model"
    path.write_bytes(model)
    assert detect_backend(path) == expected


def test_auto_without_a_device_tree_is_sim(tmp_path: Path) -> None:
    assert detect_backend(tmp_path / "nothing") == "sim"
    backend = make_backend("auto", board_for(), tmp_path / "nothing")
    assert isinstance(backend, SimBackend)


def test_make_backend_by_name() -> None:
    board = board_for()
    assert isinstance(make_backend("pio", board), PioBackend)
    assert isinstance(make_backend("ws281x", board), Ws281xBackend)
    with pytest.raises(ValueError, match="unknown strip backend"):
        make_backend("neopixel", board)
