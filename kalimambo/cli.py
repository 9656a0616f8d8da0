"""``kalimambo``: dispatch to a subcommand, importing only what it needs.

``replay`` and ``setup`` must start fast and import nothing beyond the engine,
so each subcommand lives in its own module with a ``main(argv) -> int``.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

COMMANDS = {
    "serve": ("kalimambo.serve_cmd", "run the table: web server, game and lights (the default)"),
    "replay": ("kalimambo.replay_cmd", "replay a game record and print the result as JSON"),
    "setup": ("kalimambo.setup_cmd", "print a legal random set-up as JSON"),
    "lights": ("kalimambo.lights_cmd", "drive the strip, buttons and buzzer for the table "
                                       "(serve starts one itself)"),
    "leds": ("kalimambo.leds_cmd", "strip bring-up for builders: test, walk, calibrate, bench"),
    "doctor": ("kalimambo.doctor_cmd", "when the lights misbehave: check the Pi's supply, "
                                       "the strip's driver, buttons, buzzer"),
    "tournament": ("kalimambo.tournament", "play computer players against each other"),
    "games": ("kalimambo.games_cmd", "the finished games: export --csv"),
    "host-link": ("kalimambo.hostlink_cmd", "print the host link (with the host key) and "
                                            "its QR code"),
}

USAGE = "usage: kalimambo [COMMAND] [OPTIONS]   (no command: serve)\n\ncommands:\n" + "".join(
    f"  {name:<11} {text}\n" for name, (_, text) in COMMANDS.items()
) + "\n'kalimambo COMMAND --help' tells more about each.\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if args and not args[0].startswith("-"):
        command = args.pop(0)
        if command not in COMMANDS:
            sys.stderr.write(f"kalimambo: unknown command '{command}' (see kalimambo --help)\n")
            return 2
    else:
        command = "serve"
    module = importlib.import_module(COMMANDS[command][0])
    result: int = module.main(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
