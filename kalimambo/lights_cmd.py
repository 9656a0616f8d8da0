"""``kalimambo lights``: the process that owns the strip, the buttons and the buzzer.

It connects to the table's socket (``kalimambo serve`` listens there) and draws
what the table sends; see docs/LIGHTS-PROTOCOL.md.  ``kalimambo serve`` starts one
itself unless told ``--lights external`` (a Pi's systemd unit) or ``--lights off``.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from types import FrameType

from kalimambo.args import Parser, fail
from kalimambo.hardwarefile import DEFAULT_CONFIG, load_hardware

PROG = "kalimambo lights"
DEFAULT_SOCKET = "/run/kalimambo/lights.sock"
STRIPS = ("auto", "sim", "ws281x", "pio")


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = Parser(prog=PROG, description="Drive the light strip, buttons and buzzer for "
                                           "the table at --socket.")
    parser.add_argument("--socket", default=DEFAULT_SOCKET,
                        help=f"the table's lights socket (default {DEFAULT_SOCKET})")
    parser.add_argument("--config", help=f"the board file (default {DEFAULT_CONFIG} if it "
                                          "exists, else 32 spaces, one LED each)")
    parser.add_argument("--strip", choices=STRIPS,
                        help="light strip: auto (real on a Pi, simulated elsewhere), sim, "
                             "ws281x or pio (default: the board file's)")
    parser.add_argument("--parent-pid", type=int, help=argparse.SUPPRESS)
    return parser.parse_args(list(argv))


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        hardware = load_hardware(args.config)
    except ValueError as error:
        return fail(PROG, str(error))
    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format=f"{PROG}: %(levelname)s %(message)s")
    log = logging.getLogger("kalimambo.lights")
    stop = threading.Event()

    def stopping(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, stopping)
    signal.signal(signal.SIGINT, stopping)

    from kalimambo.firmware.agent import LightsAgent

    agent = LightsAgent(hardware, args.strip or hardware.backend, args.socket)
    status = agent.lights.status()
    if status["ok"]:  # a strip that failed has said so already
        log.info("the %s strip is running, %d LEDs", status["backend"], hardware.led_count)
    for note in agent.notes:
        log.warning("%s", note)
    from kalimambo.firmware.output import supply_warning

    too_small = supply_warning(hardware)
    if too_small is not None:
        log.warning("%s", too_small)
    agent.start()
    try:
        while not stop.wait(1.0):
            if args.parent_pid and os.getppid() != args.parent_pid:
                log.info("the table that started this process has ended; stopping")
                break
    finally:
        agent.close()
    return 0
