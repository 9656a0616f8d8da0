"""``kalimambo serve``: the table in one gunicorn worker with gevent.

Why gevent (DESIGN.md): phones sleep and reload, and a reconnect storm of 60 event
streams freezes a threaded server for tens of seconds; gevent serves them in
milliseconds.  The table lives in memory, so there is exactly one worker process.
Monkey patching is gunicorn's gevent worker's first act after the fork, before the
app is imported; this module (run in the master) imports nothing that starts
threads or touches the network, and loads the app only in the worker.

Everything that can be wrong with the options or the board file is checked first,
with a one-line message and exit status 2, before the strip is touched.
"""

from __future__ import annotations

import errno
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kalimambo.args import Parser, fail

PROG = "kalimambo serve"
DEFAULT_CONFIG = Path("/etc/kalimambo/board.toml")
STRIPS = ("auto", "sim", "ws281x", "pio")


def parse(argv: Sequence[str]) -> Any:
    parser = Parser(prog=PROG, description="Run the table: web server, game and lights.")
    parser.add_argument("--port", type=int, default=8000, help="HTTP port (default 8000)")
    parser.add_argument("--host", default="0.0.0.0",
                        help="address to listen on (default 0.0.0.0: every interface)")
    parser.add_argument("--data-dir", default="data",
                        help="where games are kept (default ./data)")
    parser.add_argument("--host-pin", help="the host's PIN (else the board file's, else one "
                                           "is made once and kept in the data dir)")
    parser.add_argument("--strip", choices=STRIPS,
                        help="light strip: auto (real on a Pi, simulated elsewhere), sim, "
                             "ws281x or pio (default: the board file's)")
    parser.add_argument("--config", help=f"the board file (default {DEFAULT_CONFIG} if it "
                                          "exists, else 32 spaces, one LED each)")
    return parser.parse_args(list(argv))


def load_board(path: str | None) -> Any:
    """The board config; raises ValueError with a one-line reason."""
    from kalimambo.firmware.board import BoardFileError, default_board, load_board_file

    if path is None:
        if not DEFAULT_CONFIG.exists():
            return default_board()
        path = str(DEFAULT_CONFIG)
    if not Path(path).is_file():
        raise ValueError(f"board file {path}: not found")
    try:
        return load_board_file(path)
    except BoardFileError as error:  # its message already starts with the file's name
        raise ValueError(str(error)) from None
    except OSError as error:
        raise ValueError(f"board file {path}: {error.strerror or error}") from None


def check_port(host: str, port: int) -> str | None:
    """Why the address cannot be listened on, or None (checked by binding, no traffic)."""
    if not 1 <= port <= 65535:
        return f"--port {port}: must be 1 to 65535"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            return f"port {port} is already in use (is the table already running?)"
        return f"cannot listen on {host}:{port}: {error.strerror or error}"
    return None


def host_pin(option: str | None, board: Any) -> str | None:
    """The PIN from the option or the board file; None: the host key alone."""
    if option:
        return option
    if getattr(board, "host_pin", None):
        return str(board.host_pin)
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.host_pin is not None and not (1 <= len(args.host_pin) <= 64
                                          and args.host_pin.isprintable()
                                          and " " not in args.host_pin):
        return fail(PROG, "--host-pin: 1 to 64 characters, no spaces")
    try:
        board = load_board(args.config)
    except ValueError as error:
        return fail(PROG, str(error))
    data_dir = Path(args.data_dir)
    problem = check_port(args.host, args.port)
    if problem:
        return fail(PROG, problem)
    from kalimambo.web.startup import StartupError, open_data_dir

    try:  # one server per data dir, and a store it can use: else one line, exit 2
        opened = open_data_dir(data_dir)
    except StartupError as error:
        return fail(PROG, str(error))
    pin = host_pin(args.host_pin, board)

    from kalimambo.web.netaddr import join_url

    url = join_url(args.port)
    strip = args.strip or getattr(board, "backend", "auto")
    print(f"Kalimambo table: phones open {url}", flush=True)
    print(f"Board page: {url}board    Host page: {url}host", flush=True)
    print(f"Host link (opens the host page, logged in): {url}host#key={opened.host_key}",
          flush=True)
    if pin is not None:
        print(f"Host PIN: {pin}", flush=True)
    from kalimambo.web.host import pin_warning

    warning = pin_warning(pin)
    if warning:
        sys.stderr.write(f"{PROG}: warning: {warning}\n")
    config = {"DATA_DIR": str(data_dir), "HOST_PIN": pin, "HOST_KEY": opened.host_key,
              "STRIP": strip, "BOARD": board, "PORT": args.port, "JOIN_URL": url,
              "RUNNER": "auto"}
    run(args.host, args.port, config)
    return 0


def run(host: str, port: int, config: dict[str, Any]) -> None:
    """Serve the app with gunicorn: one gevent worker, many connections."""
    from gunicorn.app.base import BaseApplication

    class TableServer(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            settings = {
                "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
                "workers": 1,
                "worker_class": "gevent",
                "worker_connections": 1000,
                "timeout": 60,
                "graceful_timeout": 3,
                "keepalive": 5,
                "accesslog": None,
                "loglevel": "warning",
                "preload_app": False,
            }
            for key, value in settings.items():
                self.cfg.set(key, value)

        def load(self) -> Any:
            # In the worker, after gevent has patched the standard library.
            from kalimambo.web.app import create_app

            return create_app(config)

    TableServer().run()
