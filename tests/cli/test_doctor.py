"""``kalimambo doctor`` against a Pi's files laid out as its kernel and Raspberry Pi OS lay
them out (the /sys parts: tests/firmware/test_power.py, which cites the kernel's source),
with gpiozero's mock pins for the buttons and the buzzer."""

from __future__ import annotations

import io
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

from kalimambo.doctor_cmd import Doctor, main
from tests.firmware.test_power import get_throttled, hwmon
from tests.helpers import ROOT

PI4 = "Raspberry Pi 4 Model B Rev 1.4"
PI5 = "Raspberry Pi 5 Model B Rev 1.0"
EXAMPLES = ROOT / "hardware" / "boards"


def fake_pi(root: Path, model: str = PI4, board: str | None = None,
            revision: bool = True, config_txt: str = "[all]\ndtparam=audio=on\n") -> Path:
    """A Raspberry Pi OS as the doctor reads it: the device tree's model (NUL-ended, as
    the kernel has it) and revision, /etc/group, the board file setup.sh copies, /dev/mem
    (root:kmem 0640, as Pi OS has it), config.txt, and rpi_volt's alarm, clear."""
    tree = root / "proc/device-tree"
    (tree / "system").mkdir(parents=True)
    (tree / "model").write_bytes(model.encode() + b"\0")
    if revision:
        (tree / "system/linux,revision").write_bytes(b"\x00\xc0\x31\x14")
    etc = root / "etc"
    (etc / "kalimambo").mkdir(parents=True)
    (etc / "group").write_text("root:x:0:\nkmem:x:15:\ngpio:x:997:pi\nspi:x:999:pi\n")
    example = "pi5-pio-2led.toml" if "Pi 5" in model else "pi4-gpio18.toml"
    (etc / "kalimambo/board.toml").write_text(
        board if board is not None else (EXAMPLES / example).read_text())
    (root / "dev").mkdir()
    (root / "dev/mem").write_bytes(b"")
    os.chmod(root / "dev/mem", 0o640)
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(config_txt)
    hwmon(root, 0)
    return root


@pytest.fixture
def pins() -> Iterator[MockFactory]:
    factory = MockFactory(pin_class=MockPWMPin)  # PWM pins: the tonal buzzer needs them
    before = Device.pin_factory
    yield factory
    factory.reset()
    Device.pin_factory = before


class Builder:
    """The person at the table: presses each button when asked, answers the buzzer."""

    def __init__(self, pins: MockFactory, heard: str | None = "y",
                 press: bool = True) -> None:
        self.pins, self.heard, self.press = pins, heard, press
        self.text = io.StringIO()

    def write(self, text: str) -> int:
        self.text.write(text)
        for name, gpio in (("next", 17), ("undo", 27)):
            if f"press the {name} button" in text and self.press:
                pin = self.pins.pin(gpio)
                threading.Timer(0.05, pin.drive_low).start()
        return len(text)

    def flush(self) -> None:
        pass

    def ask(self, prompt: str) -> str | None:
        self.text.write(f"{prompt}{self.heard or ''}\n")  # the terminal echoes the answer
        return self.heard

    def lines(self) -> list[str]:
        return self.text.getvalue().splitlines()


def doctor(root: Path, builder: Builder | None = None, *, euid: int = 0,
           gids: tuple[int, ...] = (), no_input: bool = False, press_s: float = 5.0,
           pins: MockFactory | None = None, installed: bool = True,
           gpio: bool = True) -> tuple[int, list[str]]:
    """Run the checks; ``gpio`` False: no pin factory given (the machine's own, or none)."""
    out: Any = builder or io.StringIO()
    ask = None if no_input or builder is None else builder.ask
    factory = pins or (MockFactory(pin_class=MockPWMPin) if gpio else None)
    try:
        code = Doctor(root, out=out, ask=ask, euid=euid, gids=gids, press_s=press_s,
                      pin_factory=factory, cue_speed=0.05,
                      find_module=lambda name: object() if installed else None).run()
    finally:
        if pins is None and factory is not None:
            factory.reset()
    text = builder.lines() if builder is not None else out.getvalue().splitlines()
    return code, text


def marks(lines: list[str]) -> dict[str, str]:
    """Each check's mark, by what it checks ("machine", "button next", ...)."""
    found = {}
    for line in lines:
        mark, _, rest = line.partition(" ")
        if mark in ("ok", "warn", "FAIL", "skip", "?") and ":" in rest:
            found.setdefault(rest.strip().split(":")[0], mark)
    return found


# ---- a Pi 4 that works, checked whole ---------------------------------------------------

def test_a_working_pi4_passes_every_check_in_order(tmp_path: Path, pins: MockFactory) -> None:
    builder = Builder(pins)
    code, lines = doctor(fake_pi(tmp_path), builder, pins=pins)
    assert code == 0, "\n".join(lines)
    found = marks(lines)
    assert list(found) == ["machine", "the Pi's own supply", "board file", "strip power",
                           "strip driver", "groups", "button next", "button undo", "buzzer"]
    assert set(found.values()) == {"ok"}, "\n".join(lines)
    text = "\n".join(lines)
    assert f"ok    machine: {PI4}" in text
    assert "no under-voltage (/sys/class/hwmon/hwmon1/in0_lcrit_alarm" in text
    assert "rpi-ws281x on GPIO 18 (PWM0): /dev/mem open to it, analog audio off" in text
    assert "press the next button (GPIO 17, pin 11)" in text
    assert "ok    button undo: GPIO 27, pin 13: pressed" in text
    assert "did you hear it? [y/n]" in text and "ok    buzzer: GPIO 22, pin 15: heard" in text
    assert lines[-1].startswith("0 failed, 0 to look at, 0 it cannot see here, 9 fine.")
    assert "common ground" in lines[-1]


# ---- the Pi's supply ----------------------------------------------------------------------

def test_under_voltage_fails_with_the_fix(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    hwmon(root, 1)
    code, lines = doctor(root, no_input=True)
    assert code == 1
    at = next(i for i, line in enumerate(lines) if line.startswith("FAIL  the Pi's own"))
    assert "under-voltage" in lines[at]
    assert lines[at + 1].startswith("      fix: give the Pi the official 5 V 3 A USB-C")
    assert "journalctl -k -g Under-voltage" in lines[at + 1]


@pytest.mark.parametrize(("word", "supply", "speed"), [
    (0x0, "ok", None), (0x50005, "FAIL", "warn"), (0x10000, "FAIL", None),
    (0x20002, "ok", "warn"), (0x80008, "ok", None)],
    ids=["clear", "sagging-and-throttled", "sagged-lately", "capped", "soft-temp"])
def test_an_older_kernels_get_throttled(tmp_path: Path, word: int, supply: str,
                                        speed: str | None) -> None:
    """No rpi_volt hwmon, only the firmware's word: under-voltage fails, slowing warns."""
    root = fake_pi(tmp_path)
    for entry in (root / "sys/class/hwmon").iterdir():
        entry.unlink()
    get_throttled(root, word)
    _, lines = doctor(root, no_input=True)
    found = marks(lines)
    assert found["the Pi's own supply"] == supply
    assert found.get("the Pi's speed") == speed


# ---- the board file -----------------------------------------------------------------------

def test_a_supply_below_the_worst_case_is_a_warning(tmp_path: Path) -> None:
    text = (EXAMPLES / "pi4-gpio18.toml").read_text().replace(
        "supply_ma = 3000 ", "supply_ma = 300  ")
    code, lines = doctor(fake_pi(tmp_path, board=text), no_input=True)
    assert code == 0
    line = next(line for line in lines if line.startswith("warn  strip power"))
    assert "supply_ma is 300 mA, below the strip's worst case of about 988 mA" in line


def test_a_broken_board_file_fails_naming_the_key_and_the_rest_goes_on(
        tmp_path: Path) -> None:
    code, lines = doctor(fake_pi(tmp_path, board="[strip]\ngamma = 0.5\n"), no_input=True)
    assert code == 1
    line = next(line for line in lines if line.startswith("FAIL  board file"))
    assert "strip.gamma: must be a number at least 1" in line
    assert "groups" in marks(lines) and "buzzer" in marks(lines)


# ---- the strip driver ---------------------------------------------------------------------

def test_rpi_ws281x_needs_root_for_dev_mem(tmp_path: Path) -> None:
    code, lines = doctor(fake_pi(tmp_path), euid=1000, gids=(997,), no_input=True)
    assert code == 1
    at = next(i for i, line in enumerate(lines) if "maps /dev/mem" in line)
    assert lines[at].startswith("FAIL  strip driver") and "with sudo" in lines[at + 1]


def test_the_analog_audio_driver_on_a_pwm_pin_fails(tmp_path: Path) -> None:
    root = fake_pi(tmp_path)
    (root / "sys/module/snd_bcm2835").mkdir(parents=True)
    code, lines = doctor(root, no_input=True)
    assert code == 1 and any("snd_bcm2835" in line for line in lines)


def test_rpi_ws281x_not_installed(tmp_path: Path) -> None:
    code, lines = doctor(fake_pi(tmp_path), no_input=True, installed=False)
    assert code == 1 and any("rpi-ws281x is not installed" in line for line in lines)


@pytest.mark.parametrize(("model", "clock"), [
    (PI4, "core_freq=500\ncore_freq_min=500\n"),
    ("Raspberry Pi 3 Model B Plus Rev 1.3", "core_freq=250\n")], ids=["pi4", "pi3"])
def test_spi_needs_spi_on_and_the_core_clock(tmp_path: Path, model: str, clock: str) -> None:
    board = (EXAMPLES / "pi4-gpio18.toml").read_text().replace(
        "gpio = 18                 ", "gpio = 10                 ")
    root = fake_pi(tmp_path, model, board=board)
    code, lines = doctor(root, euid=1000, gids=(997, 999), no_input=True)
    assert code == 1
    assert any("lacks dtparam=spi=on" in line for line in lines)
    assert any("no /dev/spidev0.0" in line for line in lines)
    (root / "boot/firmware/config.txt").write_text("[all]\ndtparam=spi=on\n" + clock)
    (root / "dev/spidev0.0").write_bytes(b"")
    os.chown(root / "dev/spidev0.0", 0, 999)
    os.chmod(root / "dev/spidev0.0", 0o660)  # root:spi, as Raspberry Pi OS has it
    code, lines = doctor(root, euid=1000, gids=(997, 999), no_input=True)
    assert code == 0, "\n".join(lines)
    assert "ok    strip driver: rpi-ws281x on GPIO 10 (SPI): SPI on" in "\n".join(lines)


def test_a_pi5_overlay_and_its_device(tmp_path: Path) -> None:
    root = fake_pi(tmp_path, PI5)
    code, lines = doctor(root, euid=1000, gids=(997,), no_input=True)
    assert code == 1 and any("has no ws2812-pio overlay" in line for line in lines)
    assert any("dtoverlay=ws2812-pio,gpio=18,num_leds=64" in line for line in lines)
    config = root / "boot/firmware/config.txt"
    config.write_text("[all]\ndtoverlay=ws2812-pio,gpio=18,num_leds=32\n")
    _, lines = doctor(root, euid=1000, gids=(997,), no_input=True)
    assert any("the board file GPIO 18 and 64 LEDs" in line for line in lines)
    config.write_text("[all]\ndtoverlay=ws2812-pio,gpio=18,num_leds=64\n")
    _, lines = doctor(root, euid=1000, gids=(997,), no_input=True)
    assert any("there is no /dev/leds0" in line for line in lines)
    device = root / "dev/leds0"
    device.write_bytes(b"")
    os.chown(device, 0, 997)
    os.chmod(device, 0o660)  # setup.sh's udev rule: group gpio
    _, lines = doctor(root, euid=1000, gids=(), no_input=True)
    assert any("/dev/leds0: this user may not write it" in line for line in lines)
    code, lines = doctor(root, euid=1000, gids=(997,), no_input=True)
    assert code == 0, "\n".join(lines)
    assert marks(lines)["strip driver"] == "ok"


def test_ws281x_on_a_pi5_fails(tmp_path: Path) -> None:
    board = (EXAMPLES / "pi4-gpio18.toml").read_text()
    code, lines = doctor(fake_pi(tmp_path, PI5, board=board), no_input=True)
    assert code == 1 and any("does not work on a Pi 5" in line for line in lines)


# ---- groups, buttons, buzzer --------------------------------------------------------------

def test_a_user_outside_gpio_is_told_how_to_join(tmp_path: Path) -> None:
    _, lines = doctor(fake_pi(tmp_path), euid=1000, gids=(), no_input=True)
    at = next(i for i, line in enumerate(lines) if line.startswith("warn  groups"))
    assert "not in gpio" in lines[at] and "usermod -aG gpio" in lines[at + 1]


def test_no_input_skips_pressing_and_hearing_and_says_so(tmp_path: Path,
                                                          pins: MockFactory) -> None:
    code, lines = doctor(fake_pi(tmp_path), Builder(pins), no_input=True, pins=pins)
    assert code == 0
    assert "skip  button next: GPIO 17, pin 11 opens; not pressed (--no-input)" in lines
    assert "skip  buzzer: GPIO 22, pin 15 opens, tones; not heard (--no-input)" in lines
    assert not any("press the" in line for line in lines)


def test_a_button_never_pressed_fails_with_the_fix(tmp_path: Path, pins: MockFactory) -> None:
    code, lines = doctor(fake_pi(tmp_path), Builder(pins, press=False), pins=pins,
                         press_s=0.1)
    assert code == 1
    at = lines.index("FAIL  button next: no press on GPIO 17, pin 11 in 0.1 s")
    assert "any GND pin" in lines[at + 1]


class ShortedPin(MockPWMPin):  # type: ignore[misc]
    """A pin wired straight to ground: low whatever pull-up it is given."""

    def _set_pull(self, value: str) -> None:
        super()._set_pull(value)
        self.drive_low()


def test_a_button_pressed_from_the_start_is_a_short(tmp_path: Path, pins: MockFactory) -> None:
    pins.pin(27, pin_class=ShortedPin)
    code, lines = doctor(fake_pi(tmp_path), Builder(pins), pins=pins)
    assert code == 1
    assert "FAIL  button undo: GPIO 27, pin 13 reads pressed before you touched it" in lines


@pytest.mark.parametrize(("answer", "mark"), [("n", "FAIL"), (None, "skip"), ("yes", "ok")])
def test_the_buzzer_heard_or_not(tmp_path: Path, pins: MockFactory, answer: str | None,
                                 mark: str) -> None:
    started = time.monotonic()
    _, lines = doctor(fake_pi(tmp_path), Builder(pins, heard=answer), pins=pins)
    assert marks(lines)["buzzer"] == mark
    assert time.monotonic() - started < 10
    if mark == "FAIL":
        fix = lines[lines.index("FAIL  buzzer: nothing heard from GPIO 22, pin 15") + 1]
        assert "transistor" in fix and "tonal = false" in fix


# ---- where it cannot see ------------------------------------------------------------------

def test_an_emulated_pi_runs_whole_and_says_what_it_cannot_see(tmp_path: Path) -> None:
    """The booted emulated Pi: a device tree that names the Pi, but no board revision,
    no rpi_volt, no real GPIO. Nothing fails; each check says what it cannot see."""
    root = fake_pi(tmp_path, revision=False)
    for entry in (root / "sys/class/hwmon").iterdir():
        entry.unlink()
    code, lines = doctor(root, no_input=True, gpio=False)
    assert code == 0, "\n".join(lines)
    found = marks(lines)
    assert found == {"machine": "?", "the Pi's own supply": "?", "board file": "ok",
                     "strip power": "ok", "strip driver": "?", "groups": "ok",
                     "buttons": "?", "buzzer": "?"}
    assert "not a real Raspberry Pi (an emulated one?)" in lines[1]


def test_off_a_pi_through_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    code = main(["--root", str(tmp_path), "--no-input"])
    out = capsys.readouterr().out
    assert code == 0
    assert "?     machine: not a Raspberry Pi" in out
    assert "?     the Pi's own supply: cannot see it here" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["--press-timeout", "0"], "--press-timeout 0: must be more than 0"),
    (["--root", "/no/such/folder"], "--root /no/such/folder: not a folder"),
    (["--frob"], "unrecognized arguments: --frob"),
])
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str],
                                          argv: list[str], message: str) -> None:
    try:
        code = main(argv)
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1 and err.startswith("kalimambo doctor")
