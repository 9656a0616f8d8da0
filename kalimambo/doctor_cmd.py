"""``kalimambo doctor``: the one command a builder runs when the lights misbehave.

It checks, in the order of hardware/BUILD.md's "Nothing lights?", what software can
see: the machine, the Pi's own supply (its under-voltage flags), the board file and its
power budget, the strip driver this Pi needs (the Pi 5's overlay and ``/dev/leds*``,
``/dev/mem`` for rpi-ws281x, SPI for GPIO 10), the groups, then the buttons (press
each) and the buzzer (listen).  Each line is one check; a failed one says the fix.  Off
a Pi, or on an emulated one, it says what it cannot see there.  It never drives the
strip: the lights service owns it.  Everything is read under ``--root`` (tests lay out
a Pi's files there; on a Pi it is ``/``).

Exit status: 0 nothing failed (warnings and what it cannot see allowed), 1 a check
failed, 2 a mistake on the command line.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import platform
import pwd
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kalimambo.args import Parser, fail
from kalimambo.hardwarefile import DEFAULT_CONFIG

PROG = "kalimambo doctor"
MARKS = {"ok": "ok", "warn": "warn", "fail": "FAIL", "skip": "skip", "unknown": "?"}
PRESS_S = 15.0
HEADER_PINS = {2: 3, 3: 5, 4: 7, 17: 11, 27: 13, 22: 15, 10: 19, 9: 21, 11: 23, 0: 27,
               5: 29, 6: 31, 13: 33, 19: 35, 26: 37, 14: 8, 15: 10, 18: 12, 23: 16, 24: 18,
               25: 22, 8: 24, 7: 26, 1: 28, 12: 32, 16: 36, 20: 38, 21: 40}
"""BCM number -> the 40-pin header's pin, to say where to look."""
WIRING = ("The wiring it cannot see: 5 V at both ends of the strip, the common ground, DIN "
          "(not DOUT), the level shifter, the first LED: hardware/BUILD.md, section 6.")

Ask = Callable[[str], str | None]
"""Asks the builder; None when standard input has ended."""


def _pin(gpio: int) -> str:
    header = HEADER_PINS.get(gpio)
    return f"GPIO {gpio}" + (f", pin {header}" if header else "")


def _read(path: Path) -> str | None:
    try:
        return path.read_bytes().decode("utf-8", "replace").rstrip("\x00\n ")
    except OSError:
        return None


def _groups(root: Path) -> dict[str, tuple[int, list[str]]]:
    """/etc/group: name -> (gid, members)."""
    found: dict[str, tuple[int, list[str]]] = {}
    for line in (_read(root / "etc/group") or "").splitlines():
        fields = line.split(":")
        if len(fields) >= 4 and fields[2].isdigit():
            found[fields[0]] = (int(fields[2]), [m for m in fields[3].split(",") if m])
    return found


def can_write(path: Path, euid: int, gids: Sequence[int]) -> bool:
    """Whether a process of ``euid`` and ``gids`` may open ``path`` for reading and
    writing (by its mode bits, so the tests need not run as another user)."""
    try:
        status = path.stat()
    except OSError:
        return False
    if euid == 0:
        return True
    mode = status.st_mode
    if status.st_uid == euid:
        return mode & 0o600 == 0o600
    if status.st_gid in gids:
        return mode & 0o060 == 0o060
    return mode & 0o006 == 0o006


def _config_lines(root: Path) -> tuple[str, list[str]]:
    """config.txt (Bookworm's place, else the older one) and its lines, comments out."""
    for name in ("boot/firmware/config.txt", "boot/config.txt"):
        text = _read(root / name)
        if text is not None:
            return "/" + name, [line.split("#", 1)[0].strip() for line in text.splitlines()]
    return "/boot/firmware/config.txt", []


@dataclasses.dataclass
class Found:
    """One check's answer: its mark, what it is about, what it found, and the fix."""

    mark: str
    what: str
    said: str
    fix: str | None = None


class Doctor:
    """The checks, in order, each said as soon as it is done (some ask the builder)."""

    def __init__(self, root: str | Path = "/", config: str | None = None, *,
                 out: Any = None, ask: Ask | None = None, euid: int | None = None,
                 gids: Sequence[int] | None = None, pin_factory: Any = None,
                 press_s: float = PRESS_S, find_module: Callable[[str], object] | None = None,
                 cue_speed: float = 1.0) -> None:
        self.root = Path(root)
        self.config = config
        self.out = out or sys.stdout
        self.ask = ask
        """None: --no-input (nothing is pressed or heard)."""
        self.euid = os.geteuid() if euid is None else euid
        self.gids = list(os.getgroups() if gids is None else gids)
        self.pin_factory = pin_factory
        self.press_s = press_s
        self.cue_speed = cue_speed
        """The buzzer's fanfare at this share of its length (the tests play it fast)."""
        self.find_module = find_module or importlib.util.find_spec
        self.found: list[Found] = []
        self.model: str | None = None
        self.real = False
        """A Raspberry Pi with a board revision: its GPIO and devices can be checked."""
        from kalimambo.firmware.hardware import default_hardware

        self.hardware = default_hardware()

    def say(self, mark: str, what: str, said: str, fix: str | None = None) -> None:
        found = Found(mark, what, said, fix)
        self.found.append(found)
        self.out.write(f"{MARKS[mark]:<5} {what}: {said}\n")
        if fix:
            self.out.write(f"      fix: {fix}\n")
        self.out.flush()

    def run(self) -> int:
        self.out.write(f"{PROG}: the lights, checked in the order of hardware/BUILD.md's "
                       "\"Nothing lights?\"\n")
        for check in (self.machine, self.supply, self.board_file, self.power, self.strip,
                      self.groups, self.buttons, self.buzzer):
            check()
        counts = {mark: sum(1 for f in self.found if f.mark == mark) for mark in MARKS}
        self.out.write(f"\n{counts['fail']} failed, {counts['warn']} to look at, "
                       f"{counts['unknown']} it cannot see here, {counts['ok']} fine. "
                       f"{WIRING}\n")
        return 1 if counts["fail"] else 0

    # -- the machine and its supply ------------------------------------------------------
    def machine(self) -> None:
        from kalimambo.firmware.backends import has_pi_revision, is_armv6

        model = None
        for name in ("proc/device-tree/model", "sys/firmware/devicetree/base/model"):
            model = _read(self.root / name)
            if model:
                break
        self.model = model or None
        if not model or not model.startswith("Raspberry Pi"):
            self.say("unknown", "machine", "not a Raspberry Pi (no device-tree model): its "
                     "supply, strip driver, groups and GPIO cannot be seen here")
            return
        host = platform.machine() if self.root == Path("/") else ""
        if is_armv6(model, host):
            self.say("fail", "machine", f"{model} is armv6l: rpi-ws281x does not run on a "
                     "Pi 1, Zero or Zero W", "drive the strip from a Pi 2-4, Zero 2 W or Pi 5")
            return
        revision = has_pi_revision(
            [self.root / "proc/device-tree/system/linux,revision",
             self.root / "sys/firmware/devicetree/base/system/linux,revision"],
            self.root / "proc/cpuinfo")
        if not revision:
            self.say("unknown", "machine", f"{model}, but no board revision in the device "
                     "tree or /proc/cpuinfo: not a real Raspberry Pi (an emulated one?), so "
                     "its strip device, GPIO and supply cannot be seen")
            return
        self.real = True
        self.say("ok", "machine", model)

    def _supply_name(self) -> str:
        model = self.model or ""
        if "Pi 5" in model or "Pi 500" in model or "Compute Module 5" in model:
            return "the official 5 V 5 A USB-C supply"
        if "Pi 4" in model or "Pi 400" in model:
            return "the official 5 V 3 A USB-C supply"
        return "the official 5 V 2.5 A micro-USB supply"

    def supply(self) -> None:
        from kalimambo.firmware.power import CANNOT_KNOW, read_pi_supply

        what = "the Pi's own supply"
        pi = read_pi_supply(self.root)
        if not pi.known:
            self.say("unknown", what, f"cannot see it here ({CANNOT_KNOW})")
            return
        if pi.low:
            self.say("fail", what, f"under-voltage ({pi.describe()}; from {pi.source}): "
                     "the Pi slows down, the strip flickers, the Pi may restart",
                     f"give the Pi {self._supply_name()} and a short cable; never feed the "
                     "strip through the Pi's 5 V pin. Past sags: journalctl -k -g "
                     "Under-voltage")
        else:
            self.say("ok", what, f"no under-voltage ({pi.source}; past sags, if any: "
                     "journalctl -k -g Under-voltage)")
        if pi.throttled:
            self.say("warn", "the Pi's speed", f"it slows itself down ({pi.describe()})",
                     "too little power (above) or too hot: give it air or a heatsink")

    # -- the board file ------------------------------------------------------------------
    def board_file(self) -> None:
        from kalimambo.firmware.hardware import HardwareFileError, load_hardware_file

        path = self.config
        if path is None:
            default = self.root / str(DEFAULT_CONFIG).lstrip("/")
            path = str(default) if default.exists() else None
        if path is None:
            mark = "warn" if self.real else "ok"
            self.say(mark, "board file", f"none ({DEFAULT_CONFIG} is missing): the defaults, "
                     "32 spaces, 32 LEDs, LED i under space i",
                     "sudo ./setup.sh copies this Pi's example there" if self.real else None)
            return
        try:
            self.hardware = load_hardware_file(path)
        except HardwareFileError as error:
            self.say("fail", "board file", f"{error} (the checks below take the defaults)",
                     "the message names the key; every key: docs/CONTRACTS.md "
                     "(\"Board file\"), examples in hardware/boards/")
            return
        hardware = self.hardware
        self.say("ok", "board file", f"{path}: {hardware.spaces} spaces, {hardware.led_count} "
                 f"LEDs, strip.backend \"{hardware.backend}\" on GPIO {hardware.gpio}")

    def power(self) -> None:
        from kalimambo.firmware.output import supply_warning, worst_case_ma

        hardware = self.hardware
        worst = worst_case_ma(hardware)
        warning = supply_warning(hardware)
        if warning is not None:
            self.say("warn", "strip power", warning,
                     f"a strip supply of at least {worst * 1.2 / 1000:.1f} A (the worst case "
                     "plus 20 %: hardware/parts.md) with supply_ma to match, or a lower "
                     "strip.max_brightness")
            return
        self.say("ok", "strip power", f"worst case about {worst:.0f} mA ({hardware.led_count} "
                 f"LEDs at full white, max_brightness {hardware.max_brightness:g}), within "
                 f"power.supply_ma {hardware.supply_ma:g} mA")

    # -- the strip driver ----------------------------------------------------------------
    def strip(self) -> None:
        from kalimambo.firmware.backends import PI5_MODEL

        what = "strip driver"
        hardware, model = self.hardware, self.model
        if model is None or not model.startswith("Raspberry Pi"):
            self.say("unknown", what, "not a Raspberry Pi: the strip is simulated here")
            return
        pi5 = bool(PI5_MODEL.search(model))
        backend = hardware.backend
        if backend == "auto":
            backend = "pio" if pi5 else "ws281x"
        if backend == "sim":
            self.say("warn", what, "strip.backend is \"sim\": a simulated strip, nothing "
                     "lights", "set strip.backend = \"auto\" in the board file")
        elif backend == "pio":
            self._pio(pi5)
        else:
            self._ws281x(pi5)

    def _pio(self, pi5: bool) -> None:
        what, hardware = "strip driver", self.hardware
        if not pi5:
            self.say("fail", what, "strip.backend is \"pio\", the Pi 5's driver, on a "
                     f"{self.model}", "strip.backend = \"ws281x\" (or \"auto\")")
            return
        name, lines = _config_lines(self.root)
        overlay = next((line for line in lines if line.startswith("dtoverlay=ws2812-pio")),
                       None)
        want = f"dtoverlay=ws2812-pio,gpio={hardware.gpio},num_leds={hardware.led_count}"
        if overlay is None:
            self.say("fail", what, f"{name} has no ws2812-pio overlay",
                     f"sudo ./setup.sh adds '{want}' there; then reboot")
            return
        params = dict(part.split("=", 1) for part in overlay.split(",")[1:] if "=" in part)
        if params.get("gpio") != str(hardware.gpio) or params.get("num_leds") != str(
                hardware.led_count):
            self.say("fail", what, f"{name} says '{overlay}', the board file GPIO "
                     f"{hardware.gpio} and {hardware.led_count} LEDs",
                     "run sudo ./setup.sh again (it rewrites its line), then reboot")
            return
        device = self.root / hardware.device.lstrip("/")
        if not self.real:
            self.say("unknown", what, f"{name} has the overlay; {hardware.device} cannot be "
                     "seen on this machine")
        elif not device.exists():
            self.say("fail", what, f"{name} has the overlay, but there is no {hardware.device}",
                     "reboot; if it is still missing the kernel predates the driver: sudo "
                     "apt update && sudo apt full-upgrade, then reboot")
        elif not can_write(device, self.euid, self.gids):
            self.say("fail", what, f"{hardware.device}: this user may not write it",
                     "run this with sudo, or join group gpio (setup.sh's udev rule gives it "
                     "/dev/leds*): sudo usermod -aG gpio $USER, then log in again")
        else:
            self.say("ok", what, f"the Pi 5's ws2812-pio overlay, {hardware.device} ready")

    def _ws281x(self, pi5: bool) -> None:
        from kalimambo.firmware.hardware import WS281X_PINS

        what, hardware = "strip driver", self.hardware
        if pi5:
            self.say("fail", what, "strip.backend is \"ws281x\", which does not work on a "
                     "Pi 5 (ws2811_init failed with code -3)",
                     "strip.backend = \"pio\" (or \"auto\"), then sudo ./setup.sh and reboot")
            return
        kind = WS281X_PINS.get(hardware.gpio, "PWM0")
        name, lines = _config_lines(self.root)
        problems: list[tuple[str, str]] = []
        if kind == "SPI":
            spi = ["dtparam=spi=on"] + (["core_freq=500", "core_freq_min=500"]
                                        if "Pi 4" in (self.model or "")
                                        or "Compute Module 4" in (self.model or "")
                                        else ["core_freq=250"])
            missing = [line for line in spi if line not in lines]
            if missing:
                problems.append((f"{name} lacks {', '.join(missing)} (SPI on, and a core "
                                 "clock that stays put, or the colours come out wrong)",
                                 "sudo ./setup.sh adds them; then reboot"))
        if not self.real:
            said = f"rpi-ws281x on GPIO {hardware.gpio} ({kind}); the devices it needs cannot " \
                   "be seen on this machine"
            for problem, fix in problems:
                self.say("fail", what, problem, fix)
            self.say("unknown", what, said)
            return
        if self.find_module("rpi_ws281x") is None:
            problems.append(("rpi-ws281x is not installed in this Python",
                             "sudo ./setup.sh installs it in the services' venv; run its "
                             "kalimambo (/usr/local/bin/kalimambo)"))
        if kind == "SPI":
            device = self.root / "dev/spidev0.0"
            if not device.exists():
                problems.append(("no /dev/spidev0.0: SPI is off",
                                 "sudo ./setup.sh turns it on (dtparam=spi=on); reboot"))
            elif not can_write(device, self.euid, self.gids):
                problems.append(("/dev/spidev0.0: this user may not use it",
                                 "run this with sudo, or join groups spi and gpio: sudo "
                                 "usermod -aG spi,gpio $USER, then log in again"))
        else:
            mem = self.root / "dev/mem"
            if not can_write(mem, self.euid, self.gids):
                problems.append((f"rpi-ws281x on GPIO {hardware.gpio} maps /dev/mem, which "
                                 "needs root", "run this and 'kalimambo leds' with sudo; "
                                 "the lights service runs as root (setup.sh)"))
            if kind.startswith("PWM") and (self.root / "sys/module/snd_bcm2835").exists():
                problems.append(("the analog audio driver (snd_bcm2835) is loaded: it shares "
                                 "the PWM, so the strip flickers or shows wrong colours",
                                 "sudo ./setup.sh blacklists it; then reboot"))
        for problem, fix in problems:
            self.say("fail", what, problem, fix)
        if not problems:
            extra = {"SPI": "SPI on, the core clock fixed", "PCM": "/dev/mem open to it"}.get(
                kind, "/dev/mem open to it, analog audio off")
            self.say("ok", what, f"rpi-ws281x on GPIO {hardware.gpio} ({kind}): {extra}")

    # -- groups, buttons, buzzer ---------------------------------------------------------
    def groups(self) -> None:
        what, hardware = "groups", self.hardware
        if self.model is None:
            self.say("unknown", what, "not a Raspberry Pi: no gpio group to check")
            return
        needed = ["gpio"] + (["spi"] if hardware.gpio == 10 and hardware.backend in (
            "ws281x", "auto") and "Pi 5" not in (self.model or "") else [])
        known = _groups(self.root)
        for group in needed:
            if group not in known:
                self.say("fail", what, f"no '{group}' group on this system",
                         "Raspberry Pi OS has it: is this Raspberry Pi OS?")
                return
        if self.euid == 0:
            named = f"groups {' and '.join(needed)} exist" if len(needed) > 1 else \
                f"group {needed[0]} exists"
            self.say("ok", what, f"{named}; running as root (the lights service gets its "
                     "groups from its unit)")
            return
        outside = [group for group in needed if known[group][0] not in self.gids]
        if outside:
            try:
                user = pwd.getpwuid(self.euid).pw_name
            except KeyError:
                user = str(self.euid)
            self.say("warn", what, f"{user} is not in {' and '.join(outside)}: "
                     "'kalimambo leds' and this check need sudo",
                     f"sudo usermod -aG {','.join(outside)} {user}, then log in again")
        else:
            self.say("ok", what, f"this user is in {' and '.join(needed)}")

    def _gpio_ready(self, what: str) -> bool:
        """Whether GPIO can be opened here; if not, said why."""
        if self.pin_factory is not None or self.real:
            return True
        self.say("unknown", what, "no real GPIO on this machine" if self.model else
                 "not a Raspberry Pi: no GPIO")
        return False

    def _opening(self, error: Exception, what: str, pin: int) -> None:
        from gpiozero.exc import BadPinFactory

        if isinstance(error, BadPinFactory):
            self.say("fail", what, f"cannot open {_pin(pin)}: no GPIO library works here "
                     f"({error})", "sudo ./setup.sh installs python3-lgpio; run the "
                     "kalimambo it installs (/usr/local/bin/kalimambo)")
        elif "busy" in str(error).lower():
            self.say("warn", what, f"{_pin(pin)} is in use (by the lights service?)",
                     "sudo systemctl stop kalimambo-lights, run this again, then sudo "
                     "systemctl start kalimambo-lights")
        else:
            self.say("fail", what, f"cannot open {_pin(pin)}: {error}",
                     "run this with sudo, or join group gpio")

    def buttons(self) -> None:
        hardware = self.hardware
        named = [(name, pin) for name, pin in (("next", hardware.button_next),
                                               ("undo", hardware.button_undo)) if pin is not None]
        if not named:
            self.say("skip", "buttons", "none in the board file ([buttons] next, undo)")
            return
        if not self._gpio_ready("buttons"):
            return
        from gpiozero import Button

        for name, pin in named:
            what = f"button {name}"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    button = Button(pin, pin_factory=self.pin_factory)
            except Exception as error:
                self._opening(error, what, pin)
                continue
            try:
                self._press(button, what, pin)
            finally:
                button.close()

    def _press(self, button: Any, what: str, pin: int) -> None:
        if button.is_pressed:
            self.say("fail", what, f"{_pin(pin)} reads pressed before you touched it",
                     "the pin is shorted to GND, or the button is normally closed: use a "
                     "normally-open push button")
            return
        if self.ask is None:
            self.say("skip", what, f"{_pin(pin)} opens; not pressed (--no-input)")
            return
        self.out.write(f"      press the {what.split()[-1]} button ({_pin(pin)}) within "
                       f"{self.press_s:g} s ...\n")
        self.out.flush()
        if button.wait_for_press(self.press_s):
            self.say("ok", what, f"{_pin(pin)}: pressed")
        else:
            self.say("fail", what, f"no press on {_pin(pin)} in {self.press_s:g} s",
                     f"the button goes between {_pin(pin)} and any GND pin (no resistor: "
                     "the Pi's pull-up); a 4-leg button: take two diagonal legs")

    def buzzer(self) -> None:
        hardware = self.hardware
        what = "buzzer"
        pin = hardware.buzzer_pin
        if pin is None:
            self.say("skip", what, "none in the board file ([buzzer] pin)")
            return
        if not self._gpio_ready(what):
            return
        from kalimambo.firmware.controls import Controls

        alone = dataclasses.replace(hardware, button_next=None, button_undo=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            controls = Controls(alone, None, None, None, pin_factory=self.pin_factory,
                                cue_speed=self.cue_speed)
        try:
            if controls.buzzer is None:
                error = controls.exceptions[0] if controls.exceptions else RuntimeError(
                    "it did not open")
                self._opening(error, what, pin)
                return
            kind = "tones" if hardware.buzzer_tonal else "beeps (tonal = false)"
            if self.ask is None:
                self.say("skip", what, f"{_pin(pin)} opens, {kind}; not heard (--no-input)")
                return
            self.out.write(f"      listen: the buzzer on {_pin(pin)} plays the win fanfare\n")
            self.out.flush()
            controls.cue("win", wait=True)
            answer = self.ask("      did you hear it? [y/n] ")
            if answer is None or not answer.strip():
                self.say("skip", what, "no answer")
            elif answer.strip().lower().startswith("y"):
                self.say("ok", what, f"{_pin(pin)}: heard")
            else:
                self.say("fail", what, f"nothing heard from {_pin(pin)}",
                         f"a piezo disc goes between {_pin(pin)} and GND, straight on the "
                         "pin; a magnetic buzzer needs a transistor (hardware/parts.md); an "
                         "active buzzer needs tonal = false under [buzzer]")
        finally:
            controls.close()


def build_parser() -> Parser:
    parser = Parser(prog=PROG, description="Check the lights, in the order of "
                    "hardware/BUILD.md's \"Nothing lights?\": the Pi's own supply (its "
                    "under-voltage flags), the board file and its power budget, the strip "
                    "driver this Pi needs, the groups, then the buttons (press each) and the "
                    "buzzer (listen). Each line is one check, and a failed one says the fix. "
                    "Run it with sudo on the Pi; stop the lights service first to test the "
                    "buttons and the buzzer (it holds their pins). Exit status: 0 nothing "
                    "failed, 1 a check failed, 2 a mistake on the command line.")
    parser.add_argument("--config", metavar="FILE",
                        help=f"the board file (default {DEFAULT_CONFIG} if it exists)")
    parser.add_argument("--no-input", action="store_true",
                        help="ask nothing: skip pressing the buttons and hearing the buzzer")
    parser.add_argument("--press-timeout", type=float, default=PRESS_S, metavar="S",
                        help=f"seconds to wait for each button (default {PRESS_S:g})")
    parser.add_argument("--root", default="/", help=argparse.SUPPRESS)
    return parser


def _ask(prompt: str) -> str | None:
    """A line from the builder; without a terminal the answer is echoed, so each
    check's line still starts a line of its own."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not sys.stdin.isatty():
        sys.stdout.write(line.rstrip("\n") + "\n")
    return line if line else None


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    if not args.press_timeout > 0:
        return fail(PROG, f"--press-timeout {args.press_timeout:g}: must be more than 0")
    if not Path(args.root).is_dir():
        return fail(PROG, f"--root {args.root}: not a folder")
    doctor = Doctor(args.root, args.config, ask=None if args.no_input else _ask,
                    press_s=args.press_timeout)
    try:
        return doctor.run()
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{PROG}: stopped before the last check\n")
        return 130
