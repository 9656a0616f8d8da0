"""Light backends: pio byte-exact, ws281x against a fake module, auto from the device tree."""

from __future__ import annotations

import atexit
import os
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
    has_pi_revision,
    make_backend,
    ws281x_refusal,
)
from kalimambo.firmware.hardware import HardwareConfig, parse_hardware
from tests.firmware_fakes import fake_ws281x

FRAME = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (1, 2, 3)]


def hardware_for(**strip: Any) -> HardwareConfig:
    return parse_hardware({"track": {"spaces": 4}, "strip": {"led_count": 4, **strip}})


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
    backend = PioBackend(hardware_for(device=str(device), colour_order=order))
    backend.start()
    assert device.read_bytes() == b"\x00"  # brightness 0: the driver passes values through
    backend.show(FRAME)
    assert device.read_bytes() == expected
    backend.show([(9, 9, 9)] * 4)  # each frame from offset 0, never appended
    assert len(device.read_bytes()) == 16
    backend.close()


def test_pio_without_the_overlay_says_what_to_add(tmp_path: Path) -> None:
    backend = PioBackend(hardware_for(device=str(tmp_path / "missing")))
    with pytest.raises(BackendError, match="dtoverlay=ws2812-pio,gpio=18,num_leds=4"):
        backend.start()


# -- ws281x ------------------------------------------------------------------------

@pytest.fixture
def fake_rpi(monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    fake_ws281x.reset()
    monkeypatch.setitem(sys.modules, "rpi_ws281x", fake_ws281x)
    yield fake_ws281x
    fake_ws281x.reset()


@pytest.fixture
def pi4(tmp_path: Path) -> tuple[Path, Path, bool]:
    """A device-tree model file saying Pi 4, a stand-in for /dev/mem, a board revision."""
    model, mem = tmp_path / "model", tmp_path / "mem"
    model.write_bytes(b"Raspberry Pi 4 Model B Rev 1.5\x00")
    mem.write_bytes(b"")
    return model, mem, True


@pytest.mark.usefixtures("fake_rpi")
@pytest.mark.parametrize(("order", "strip_type", "constant"), [
    ("GRB", "ws2812", fake_ws281x.ws.WS2811_STRIP_GRB),
    ("RGB", "ws2812", fake_ws281x.ws.WS2811_STRIP_RGB),
    ("BRG", "sk6812", fake_ws281x.ws.WS2811_STRIP_BRG),
    ("GRB", "sk6812w", fake_ws281x.ws.SK6812_STRIP_GRBW),
])
def test_ws281x_builds_begins_and_shows(order: str, strip_type: str, constant: int,
                                       pi4: tuple[Path, Path, bool]) -> None:
    hardware = hardware_for(colour_order=order, strip_type=strip_type, gpio=21, dma=10)
    backend = Ws281xBackend(hardware, *pi4)
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
        monkeypatch: pytest.MonkeyPatch, pi4: tuple[Path, Path, bool]) -> None:
    fake_ws281x.fail_begin = "ws2811_init failed with code -3"
    unregistered: list[object] = []
    monkeypatch.setattr(atexit, "unregister", unregistered.append)
    backend = Ws281xBackend(hardware_for(), *pi4)
    with pytest.raises(BackendError, match="code -3"):
        backend.start()
    (strip,) = fake_ws281x.instances
    assert unregistered == [strip._cleanup]


def test_ws281x_missing_package_says_how_to_install(monkeypatch: pytest.MonkeyPatch,
                                                    pi4: tuple[Path, Path, bool]) -> None:
    monkeypatch.setitem(sys.modules, "rpi_ws281x", None)  # import fails
    with pytest.raises(BackendError, match="rpi-ws281x is not installed"):
        Ws281xBackend(hardware_for(), *pi4).start()


@pytest.mark.usefixtures("fake_rpi")
@pytest.mark.parametrize(("model", "machine", "words"), [
    (None, "x86_64", "not a Raspberry Pi"),
    (b"Pine64 RockPro64\x00", "aarch64", "not a Raspberry Pi"),
    (b"Raspberry Pi 5 Model B Rev 1.0\x00", "aarch64", "pio"),
    (b"Raspberry Pi Zero W Rev 1.1\x00", "armv6l", "armv6l"),
    (b"Raspberry Pi Model B Plus Rev 1.2\x00", "armv6l", "Pi 1 / Zero / Zero W"),
    (b"Raspberry Pi Zero Rev 1.3\x00", "aarch64", "armv6l"),  # by name, whatever the OS
    (b"Raspberry Pi 3 Model B Rev 1.2\x00", "armv6l", "armv6l"),  # an armv6l OS on a Pi 3
])
def test_ws281x_is_refused_where_it_cannot_work_and_no_strip_is_built(
        tmp_path: Path, model: bytes | None, machine: str, words: str) -> None:
    """Off a Pi 2-4 / Zero 2 W no PixelStrip is ever built (one built there crashes the
    process at exit): a clear error instead."""
    path, mem = tmp_path / "model", tmp_path / "mem"
    mem.write_bytes(b"")
    if model is not None:
        path.write_bytes(model)
    text = model.decode().rstrip("\x00") if model else None
    refusal = ws281x_refusal(text, mem, machine, revision=True)
    assert refusal is not None and words in refusal
    if machine == "x86_64":  # this machine: the backend itself refuses the same way
        with pytest.raises(BackendError, match=words):
            Ws281xBackend(hardware_for(), path, mem).start()
    assert fake_ws281x.instances == []


def test_ws281x_needs_dev_mem_and_a_real_pi_revision(tmp_path: Path) -> None:
    model = "Raspberry Pi 4 Model B Rev 1.5"
    refusal = ws281x_refusal(model, tmp_path / "no-mem", "aarch64", revision=True)
    assert refusal is not None and "missing" in refusal
    mem = tmp_path / "mem"
    mem.write_bytes(b"")
    assert ws281x_refusal(model, mem, "aarch64", revision=True) is None
    refusal = ws281x_refusal(model, mem, "aarch64", revision=False)  # a faked model only
    assert refusal is not None and "not a real Raspberry Pi" in refusal
    mem.chmod(0o400)
    if not os.access(mem, os.W_OK):  # root can write anyway
        refusal = ws281x_refusal(model, mem, "aarch64", revision=True)
        assert refusal is not None and "root" in refusal


def test_the_pi_revision_comes_from_the_device_tree_or_cpuinfo(tmp_path: Path) -> None:
    tree, cpuinfo = tmp_path / "linux,revision", tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nBogoMIPS\t: 108.00\n")
    assert not has_pi_revision([tree], cpuinfo)  # this machine's kind of cpuinfo
    cpuinfo.write_text("processor\t: 0\nRevision\t: c03115\nSerial\t: 100000001\n")
    assert has_pi_revision([tree], cpuinfo)
    tree.write_bytes(b"\x00\xc0\x31\x15")
    assert has_pi_revision([tree], tmp_path / "none")


# -- auto --------------------------------------------------------------------------

@pytest.mark.parametrize(("model", "expected"), [
    (b"Raspberry Pi 5 Model B Rev 1.0\x00", "pio"),
    (b"Raspberry Pi Compute Module 5 Rev 1.0\x00", "pio"),
    (b"Raspberry Pi 500 Rev 1.0\x00", "pio"),
    (b"Raspberry Pi 4 Model B Rev 1.5\x00", "ws281x"),
    (b"Raspberry Pi Zero 2 W Rev 1.0\x00", "ws281x"),
    (b"Raspberry Pi 3 Model B Plus Rev 1.3\x00", "ws281x"),
    (b"Raspberry Pi 50\x00", "ws281x"),
    (b"Raspberry Pi Zero W Rev 1.1\x00", "sim"),  # armv6l: no rpi-ws281x
    (b"Raspberry Pi Model B Plus Rev 1.2\x00", "sim"),
    (b"Pine64 RockPro64\x00", "sim"),
])
def test_auto_picks_from_the_device_tree(tmp_path: Path, model: bytes, expected: str) -> None:
    path = tmp_path / "model"
    path.write_bytes(model)
    assert detect_backend(path) == expected


def test_auto_without_a_device_tree_is_sim(tmp_path: Path) -> None:
    assert detect_backend(tmp_path / "nothing") == "sim"
    backend = make_backend("auto", hardware_for(), tmp_path / "nothing")
    assert isinstance(backend, SimBackend)


def test_make_backend_by_name() -> None:
    hardware = hardware_for()
    assert isinstance(make_backend("pio", hardware), PioBackend)
    assert isinstance(make_backend("ws281x", hardware), Ws281xBackend)
    with pytest.raises(ValueError, match="unknown strip backend"):
        make_backend("neopixel", hardware)
