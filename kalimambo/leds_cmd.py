"""``kalimambo leds``: bring up, check and calibrate the LED strip (for builders).

The board file is checked before any hardware is touched: a mistake ends in one
line naming the key, exit status 2.  A strip that will not start ends in one
line saying what to check, exit status 1.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from kalimambo.args import Parser, fail
from kalimambo.engine.rules import DEFAULT_TRACK_LENGTH
from kalimambo.firmware.hardware import (
    BACKENDS,
    HardwareConfig,
    HardwareFileError,
    load_hardware_data,
    parse_hardware,
)
from kalimambo.firmware.output import channel_sum, ma_of_sum, supply_warning
from kalimambo.firmware.scene import RGB

PROG = "kalimambo leds"
RED, GREEN, BLUE, WHITE = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)

DESCRIPTION = """\
Bring up the LED strip that runs round the board: light a test pattern, walk the
strip LED by LED, and calibrate which LED sits under which space from a phone.

Bringing up a strip, step by step:
  1. Wiring: GPIO 18 (header pin 12) to a 3.3->5 V level shifter (74AHCT125), its
     output through a 330-470 ohm resistor to the strip's DIN (the resistor damps
     ringing; only the shifter shifts the level); strip +5V and GND to its own 5 V
     supply (never the Pi's 5 V pin); the supply's GND joined to a Pi GND pin.
  2. Pi 5: add   dtoverlay=ws2812-pio,gpio=18,num_leds=N   to
     /boot/firmware/config.txt (N = your LED count) and reboot: /dev/leds0 appears.
     Pi 2-4 / Zero 2 W: ./setup.sh installs rpi-ws281x; GPIO 18 needs root (sudo),
     GPIO 10 (SPI) does not but needs SPI on and a fixed core clock (setup.sh adds
     dtparam=spi=on and core_freq=250 on a Pi 3, core_freq=500 and
     core_freq_min=500 on a Pi 4). 'kalimambo doctor' checks all this.
  3. Write a board file, e.g. board.toml (every key: docs/CONTRACTS.md):
         [track]
         spaces = 32            # spaces round your board
         [strip]
         led_count = 60         # LEDs on your strip
         colour_order = "GRB"   # most WS2812B strips
         max_brightness = 0.5
         [power]
         supply_ma = 3000       # what your 5 V supply gives
  4. kalimambo leds --config board.toml test
     Every LED red, green, blue, then white; then each space in turn.
  5. kalimambo leds --config board.toml calibrate
     Open the address it prints on your phone; tap the space under each glowing LED.
     The map is written into board.toml.
  6. kalimambo serve --config board.toml   (or: kalimambo --config board.toml)

Exit status: 0 done, 1 the strip did not start (the message says what to check),
2 a mistake in the command line or the board file (the message names the key).
"""

EPILOG = "'kalimambo leds COMMAND --help' tells more about each command."


def _common(parser: Any, suppress: bool) -> None:
    """The shared options, on the main parser and (without defaults) on each command."""
    default: Any = argparse.SUPPRESS if suppress else None
    parser.add_argument("--config", metavar="FILE", default=default,
                        help="the board file (TOML); default: 32 spaces, 32 LEDs, "
                             "LED i under space i")
    parser.add_argument("--strip", choices=BACKENDS, default=default,
                        help="which strip to drive: auto (Pi 5: pio, other Pis: ws281x, "
                             "elsewhere: sim), sim (a simulated strip, shown in the "
                             "terminal), ws281x or pio; default: the board file's "
                             "strip.backend, else auto")
    parser.add_argument("--leds", metavar="N", type=int, default=default,
                        help="LEDs on the strip, instead of the board file's "
                             "strip.led_count (calibrate writes it into the file)")


def _strip_command(commands: Any, name: str, help: str, description: str) -> Parser:
    """A command that drives the strip: it takes the shared options too."""
    command: Parser = commands.add_parser(name, help=help, description=description)
    _common(command, suppress=True)
    return command


def build_parser() -> Parser:
    parser = Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                    formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(parser, suppress=False)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True,
                                     parser_class=Parser)

    test = _strip_command(
        commands, "test", help="colour test pattern, then each space in turn",
        description="Light every LED red, green, blue, then white (about a second each), "
        "then each space's LEDs in turn, then go dark. Each pattern's estimated current "
        "is printed, and when the power limiter dims it to fit power.supply_ma. Wrong "
        "colours: the right "
        "strip.colour_order is, for each letter of the current one in turn, the colour "
        "you saw when the test showed that colour (with \"GRB\": if red showed green, "
        "green showed red and blue showed blue, use \"RGB\"). Nothing lights: check the "
        "ground link between supply and Pi, the data direction (the arrows on the strip "
        "point away from the Pi), and --strip. Too dim or flickering at white: raise "
        "power.supply_ma only if your supply really gives it.")
    test.add_argument("--delay", type=float, default=1.0, metavar="S",
                      help="seconds per colour (default 1)")
    test.add_argument("--space-delay", type=float, default=0.25, metavar="S",
                      help="seconds per space (default 0.25)")

    walk = _strip_command(
        commands, "walk", help="light one LED at a time; Enter (or the next button) for the next",
        description="Light LED 0, then the next each time you press Enter or the "
        "board's next button. Type a number and Enter to jump to that LED, 'b' to go "
        "back one, 'q' to stop. Use it to count your LEDs and to find where space 0 "
        "is (then set layout.first_led), or run 'calibrate' to do it from a phone.")
    walk.add_argument("--start", type=int, default=0, metavar="N",
                      help="the first LED to light (default 0)")

    calibrate = _strip_command(
        commands, "calibrate", help="map LEDs to spaces from a phone; writes the board file",
        description="Serve a small page for your phone (the address is printed, with a "
        "QR code). The Pi lights one LED at a time; tap the space on the drawing of the "
        "board where it glows, 'Under no space' for an LED between spaces, or 'Skip'. "
        "When every space has an LED, 'Save' writes an explicit [layout] spaces map into "
        "the board file (--config, made if missing), keeping everything else in it. "
        "Stop with Ctrl-C.")
    calibrate.add_argument("--port", type=int, default=8001,
                           help="port for the phone page (default 8001)")
    calibrate.add_argument("--bind", default="0.0.0.0", metavar="ADDRESS",
                           help="address to listen on (default all, so a phone can reach it)")

    bench = commands.add_parser(
        "bench", help="how fast frames are computed here",
        description="Time the frame computation for 32, 64 and 160 LEDs during a whole "
        "round's animation, and the share of one CPU core that a 60 frames-per-second "
        "animation takes (targets: 0.5 ms per frame at 160 LEDs, 5 % of a core), and say "
        "whether this machine is fast enough. Uses a simulated strip; touches no "
        "hardware.")
    bench.add_argument("--json", action="store_true",
                       help="print the figures as one JSON object instead of sentences")
    bench.add_argument("--frames", type=int, default=3000, help="frames timed per size")
    bench.add_argument("--seconds", type=float, default=3.0,
                       help="seconds the 60 fps animation is measured")
    return parser


def read_hardware(path: str | None, leds: int | None, drop_layout: bool = False,
                  missing_ok: bool = False) -> HardwareConfig:
    """The board file (or the defaults) with the command line's ``--leds`` applied."""
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = load_hardware_data(path)
        except HardwareFileError:
            if not missing_ok or _exists(path):
                raise
    if leds is not None:
        strip = data.setdefault("strip", {})
        if isinstance(strip, dict):
            strip["led_count"] = leds
        if "track" not in data and isinstance(strip, dict):
            data["track"] = {"spaces": DEFAULT_TRACK_LENGTH}
    if drop_layout and isinstance(data.get("layout"), dict):
        data["layout"] = {k: v for k, v in data["layout"].items() if k != "spaces"}
    try:
        return parse_hardware(data, path)
    except HardwareFileError as error:
        where = path or "the default board"
        if leds is not None and str(error).startswith("strip.led_count"):
            raise HardwareFileError(f"--leds: {str(error).split(': ', 1)[1]}") from None
        raise HardwareFileError(f"{where}: {error}") from None


def _exists(path: str) -> bool:
    from pathlib import Path

    return Path(path).exists()


# -- showing frames ------------------------------------------------------------------

class Strip:
    """The lights in builder mode: raw LED pictures, sent at once."""

    def __init__(self, hardware: HardwareConfig, strip: str, out: Any) -> None:
        from kalimambo.firmware.lights import Lights

        logging.getLogger("kalimambo.firmware.lights").setLevel(logging.CRITICAL)  # we say it once
        logging.getLogger("kalimambo.firmware.power").setLevel(logging.CRITICAL)  # printed here
        self.lights = Lights(hardware, strip, run_thread=False)
        self.hardware = hardware
        self.asked_ma = self.drawn_ma = 0.0
        """The last frame's estimated current before the limiter and as sent (mA)."""
        self.out = out
        self.terminal = self.lights.backend_name == "sim" and bool(
            getattr(out, "isatty", lambda: False)())

    @property
    def error(self) -> str | None:
        status = self.lights.status()
        return None if status["ok"] else str(status["error"])

    def show(self, leds: Sequence[RGB]) -> list[RGB]:
        self.lights.set_override(leds)
        frame = self.lights.tick()
        self.asked_ma = ma_of_sum(self.lights.output.asked, self.hardware)
        self.drawn_ma = ma_of_sum(channel_sum(frame), self.hardware)
        if self.terminal:
            bar = "".join(f"\x1b[48;2;{r};{g};{b}m \x1b[0m" for r, g, b in frame)
            self.out.write(f"\r{bar}\n")
        return frame

    def close(self) -> None:
        self.lights.close()


def _solid(hardware: HardwareConfig, colour: RGB) -> list[RGB]:
    return [colour] * hardware.led_count


def _say(out: Any, text: str) -> None:
    out.write(text + "\n")
    out.flush()


def current(strip: Strip, frame: Sequence[RGB], colour: str = "white") -> str:
    """What a pattern draws, in words: its estimated current, and whether the limiter
    dims it to fit ``power.supply_ma`` (and to what)."""
    hardware = strip.hardware
    if strip.asked_ma <= hardware.supply_ma:
        return f"about {strip.asked_ma:.0f} mA (power.supply_ma: {hardware.supply_ma:g} mA)"
    top = max((max(led) for led in frame), default=0)
    return (f"asks about {strip.asked_ma:.0f} mA, more than power.supply_ma "
            f"({hardware.supply_ma:g} mA): the limiter dims it to about {strip.drawn_ma:.0f} mA "
            f"(full {colour} goes out as {top} of 255)")


def run_test(strip: Strip, delay: float, space_delay: float, out: Any) -> int:
    hardware = strip.hardware
    _say(out, f"colour_order is {hardware.colour_order}: if the colours below are wrong, see "
              f"'{PROG} test --help'")
    for name, colour in (("RED", RED), ("GREEN", GREEN), ("BLUE", BLUE), ("WHITE", WHITE)):
        frame = strip.show(_solid(hardware, colour))
        _say(out, f"all {hardware.led_count} LEDs {name}: {current(strip, frame, name.lower())}")
        time.sleep(delay)
    for space in range(hardware.spaces):
        leds = hardware.leds_of(space)
        frame = [(0, 0, 0)] * hardware.led_count
        for led in leds:
            frame[led] = WHITE
        shown = strip.show(frame)
        said = f"space {space}: LED {', '.join(str(led) for led in leds)}"
        if space == 0 or strip.asked_ma > hardware.supply_ma:
            said += f": {current(strip, shown)}"
        _say(out, said)
        time.sleep(space_delay)
    strip.show(_solid(hardware, (0, 0, 0)))
    _say(out, "done: all dark")
    return 0


def run_walk(strip: Strip, start: int, lines: Any, out: Any) -> int:
    hardware = strip.hardware
    if not 0 <= start < hardware.led_count:
        return fail(PROG, f"--start {start}: LEDs run 0 to {hardware.led_count - 1}")
    commands: queue.Queue[str | None] = queue.Queue()

    def read_lines() -> None:
        for line in lines:
            commands.put(line.strip())
        commands.put(None)

    threading.Thread(target=read_lines, name="walk-input", daemon=True).start()
    controls = _controls(hardware, lambda: commands.put(""))
    where = hardware.space_of_led()
    led = start
    try:
        while True:
            frame: list[RGB] = [(0, 0, 0)] * hardware.led_count
            frame[led] = WHITE
            strip.show(frame)
            space = where.get(led)
            under = f"under space {space}" if space is not None else "under no space"
            _say(out, f"LED {led} of {hardware.led_count} lit ({under} in the board file). "
                      "Enter: next, b: back, N: jump, q: quit")
            command = commands.get()
            if command is None or command.lower() == "q":
                break
            if command == "":
                led = (led + 1) % hardware.led_count
            elif command.lower() == "b":
                led = (led - 1) % hardware.led_count
            elif command.isdigit() and int(command) < hardware.led_count:
                led = int(command)
            else:
                _say(out, f"'{command}' is not a command: Enter, b, a number from 0 to "
                     f"{hardware.led_count - 1}, or q")
    finally:
        if controls is not None:
            controls.close()
    strip.show(_solid(hardware, (0, 0, 0)))
    return 0


def _controls(hardware: HardwareConfig, on_next: Callable[[], None]) -> Any:
    if hardware.button_next is None:
        return None
    from kalimambo.firmware.controls import Controls

    return Controls(hardware, on_next, None, None)


def run_calibrate(strip: Strip, path: str, port: int, bind: str, out: Any) -> int:
    from kalimambo.firmware.calibrate import Calibration, create_calibrate_app
    from kalimambo.web.system.netaddr import join_url  # the table's own address lookup

    session = Calibration(strip.hardware, path, strip.show)
    app = create_calibrate_app(session)
    url = join_url(port, None if bind in ("0.0.0.0", "") else bind)
    _say(out, f"Open {url} on your phone (same network), or scan:")
    try:
        import segno

        segno.make(url).terminal(out=out, compact=True)
    except Exception:  # the QR code is a convenience only
        pass
    _say(out, f"The map is saved into {path}. Stop with Ctrl-C.")
    try:
        app.run(host=bind, port=port, threaded=True, use_reloader=False)
    except OSError as error:
        return fail(PROG, f"--port {port}: cannot listen there ({error.strerror})")
    except KeyboardInterrupt:
        pass
    strip.show(_solid(strip.hardware, (0, 0, 0)))
    return 0


@contextlib.contextmanager
def stopped_by_signals() -> Iterator[None]:
    """While inside, Ctrl-C (SIGINT) and SIGTERM both end the command cleanly.

    Why: a shell starts a background job (``kalimambo leds calibrate &``, a script, a
    test run beside another) with SIGINT ignored, and Python then leaves it ignored,
    so Ctrl-C did nothing and calibrate served on; and SIGTERM (``kill``, systemd,
    ``timeout``) killed the process with the strip still lit.  Both now raise
    ``KeyboardInterrupt`` in the main thread, which stops the server or the loop and
    blanks the strip.  The old handlers come back afterwards.
    """
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(list(argv))
    if args.command == "bench":
        from kalimambo.firmware.bench import run, verdict

        figures = run(args.frames, args.seconds)
        if args.json:
            sys.stdout.write(json.dumps(figures) + "\n")
        else:
            sys.stdout.write(verdict(figures) + "\n")
        return 0
    if args.leds is not None and args.leds < 1:
        return fail(PROG, f"--leds {args.leds}: a strip has at least 1 LED")
    if args.command == "calibrate" and args.config is None:
        return fail(PROG, "calibrate needs --config FILE: the board file to write the map "
                          "into (made if missing)")
    try:
        hardware = read_hardware(args.config, args.leds, drop_layout=args.command == "calibrate",
                                 missing_ok=args.command == "calibrate")
    except HardwareFileError as error:
        return fail(PROG, str(error))
    too_small = supply_warning(hardware)
    if too_small is not None:
        sys.stderr.write(f"{PROG}: warning: {too_small}\n")
    strip = Strip(hardware, args.strip or hardware.backend, sys.stdout)
    if strip.error is not None:
        sys.stderr.write(f"{PROG}: the {strip.lights.backend_name} strip did not start: "
                         f"{strip.error}\n")
        strip.close()
        return 1
    try:
        with stopped_by_signals():
            if args.command == "test":
                return run_test(strip, max(0.0, args.delay), max(0.0, args.space_delay),
                                sys.stdout)
            if args.command == "walk":
                return run_walk(strip, args.start, sys.stdin, sys.stdout)
            return run_calibrate(strip, args.config, args.port, args.bind, sys.stdout)
    except KeyboardInterrupt:
        return 0
    finally:
        strip.close()
