"""``kalimambo serve``: the table in one gunicorn worker with gevent.

Why gevent (DESIGN.md): phones sleep and reload, and a reconnect storm of 60 event
streams freezes a threaded server for tens of seconds; gevent serves them in
milliseconds.  The table lives in memory, so there is exactly one worker process.
Monkey patching is gunicorn's gevent worker's first act after the fork, before the
app is imported; this module (run in the master) imports nothing that starts
threads or touches the network, and loads the app only in the worker.

The strip, buttons and buzzer are never touched here or in the worker: a separate
``kalimambo lights`` process owns them (docs/LIGHTS-PROTOCOL.md), started and
watched by this master (``--lights child``, the default) or by systemd
(``--lights external``).  Liveness: gunicorn replaces a worker that stops
answering its heartbeat within ``--worker-timeout`` seconds, and the worker feeds
systemd's watchdog only while it really serves (``kalimambo.web.system.liveness``).

Everything that can be wrong with the options or the board file is checked first,
with a one-line message and exit status 2.
"""

from __future__ import annotations

import errno
import os
import shutil
import socket
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from kalimambo.args import Parser, fail
from kalimambo.hardwarefile import DEFAULT_CONFIG, config_path, load_hardware
from kalimambo.lights_cmd import DEFAULT_SOCKET, STRIPS
from kalimambo.web.http.appconfig import AppConfig, host_pin_of
from kalimambo.web.system.hotspot import HOTSPOT_FILE, read_hotspot
from kalimambo.web.system.tablefile import TABLE_FILE, read_table_file

PROG = "kalimambo serve"
LIGHTS_MODES = ("child", "external", "off")
WORKER_TIMEOUT_S = 10
"""A worker silent this long is replaced (gevent's worker reports every second)."""


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
                             "ws281x or pio (default: the board file's), for the lights "
                             "process it starts (--lights child)")
    parser.add_argument("--config", help=f"the board file (default {DEFAULT_CONFIG} if it "
                                          "exists, else 32 spaces, one LED each)")
    parser.add_argument("--lights", choices=LIGHTS_MODES, default="child",
                        help="the lights process: child (started and restarted by this "
                             "command; the default), external (started separately, e.g. "
                             "by systemd) or off")
    parser.add_argument("--lights-socket", metavar="PATH",
                        help="the Unix socket the lights process connects to (default: "
                             f"a private temporary one for child, {DEFAULT_SOCKET} for "
                             "external)")
    parser.add_argument("--hotspot-file", metavar="PATH",
                        help=f"the convention hotspot setup.sh made (default {HOTSPOT_FILE} "
                             "if it exists): the board shows its Wi-Fi QR code and the table "
                             "answers the phones' connectivity checks")
    parser.add_argument("--table-file", metavar="PATH",
                        help=f"what a card made by 'setup.sh --image' says of its table "
                             f"(default {TABLE_FILE} if it exists): the name the board page "
                             "shows, the pages' first language, kalimambo.toml's problems")
    parser.add_argument("--worker-timeout", type=int, default=WORKER_TIMEOUT_S,
                        metavar="S", help="replace a web worker that stops answering for "
                                          f"S seconds (default {WORKER_TIMEOUT_S})")
    return parser.parse_args(list(argv))


def check_socket_path(path: str) -> str | None:
    """Why the table cannot listen at ``path``, or None."""
    if len(os.fsencode(path)) >= 108:
        return f"--lights-socket {path}: too long for a Unix socket (107 bytes at most)"
    folder = Path(path).parent
    if not folder.is_dir():
        return f"--lights-socket {path}: the folder {folder} does not exist"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"--lights-socket {path}: cannot create a socket in {folder}"
    if Path(path).exists() and not Path(path).is_socket():
        return f"--lights-socket {path}: a file that is not a socket is in the way"
    return None


def lights_command(args: Any, socket_path: str) -> list[str]:
    """The supervised ``kalimambo lights`` command line (same board file and strip)."""
    command = [sys.executable, "-m", "kalimambo", "lights", "--socket", socket_path,
               "--parent-pid", str(os.getpid())]
    board_file = config_path(args.config)
    if board_file is not None:
        command += ["--config", str(Path(board_file).resolve())]
    if args.strip:
        command += ["--strip", args.strip]
    return command


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


T = TypeVar("T")


def optional_file(read: Callable[[Path], T | None], option: str, given: str | None,
                  default: Path) -> T | None:
    """What a file setup.sh may have written holds (None: no such file), from the option's
    path, else the default one; a path given that does not exist is a mistake."""
    found = read(Path(given) if given else default)
    if given and found is None:
        raise ValueError(f"{option}: there is no file {given}")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    if args.host_pin is not None and not (1 <= len(args.host_pin) <= 64
                                          and args.host_pin.isprintable()
                                          and " " not in args.host_pin):
        return fail(PROG, "--host-pin: 1 to 64 characters, no spaces")
    if not 2 <= args.worker_timeout <= 600:
        return fail(PROG, "--worker-timeout: 2 to 600 seconds")
    if args.lights == "off" and args.lights_socket:
        return fail(PROG, "--lights-socket: there is no lights process with --lights off")
    if args.lights_socket or args.lights == "external":
        problem = check_socket_path(args.lights_socket or DEFAULT_SOCKET)
        if problem:
            return fail(PROG, problem)
    try:
        hardware = load_hardware(args.config)
    except ValueError as error:
        return fail(PROG, str(error))
    try:
        hotspot = optional_file(read_hotspot, "--hotspot-file", args.hotspot_file,
                                HOTSPOT_FILE)
        table = optional_file(read_table_file, "--table-file", args.table_file, TABLE_FILE)
    except ValueError as error:  # (the files' own errors are ValueErrors too)
        return fail(PROG, str(error))
    data_dir = Path(args.data_dir)
    problem = check_port(args.host, args.port)
    if problem:
        return fail(PROG, problem)
    from kalimambo.web.system.startup import StartupError, open_data_dir

    try:  # one server per data dir, and a store it can use: else one line, exit 2
        opened = open_data_dir(data_dir)
    except StartupError as error:
        return fail(PROG, str(error))
    pin = host_pin_of(args.host_pin, hardware)

    from kalimambo.web.system.netaddr import join_url

    url = join_url(args.port)
    print(f"Kalimambo table: phones open {url}", flush=True)
    print(f"Board page: {url}board    Host page: {url}host", flush=True)
    print(f"Host link (opens the host page, logged in): {url}host#key={opened.host_key}",
          flush=True)
    if pin is not None:
        print(f"Host PIN: {pin}", flush=True)
    from kalimambo.web.table.hostlogin import pin_warning

    warning = pin_warning(pin)
    if warning:
        sys.stderr.write(f"{PROG}: warning: {warning}\n")
    private = tempfile.mkdtemp(prefix="kalimambo-") if args.lights == "child" else None
    socket_path = None
    if args.lights != "off":
        socket_path = args.lights_socket or (str(Path(private, "lights.sock")) if private
                                             else DEFAULT_SOCKET)
    config = AppConfig(data_dir=data_dir, host_pin=pin, host_key=opened.host_key,
                       hardware=hardware, port=args.port, join_url=url, runner="auto",
                       lights_socket=socket_path, hotspot=hotspot, table=table)
    child = None
    if private is not None and socket_path is not None:
        from kalimambo.web.system.lightschild import LightsChild

        # Its working folder is private too: lgpio leaves .lgd-nfy* pipes where it runs.
        child = LightsChild(lights_command(args, socket_path), private).start()
    master = os.getpid()
    try:
        run(args.host, args.port, config, args.worker_timeout,
            on_stop=child.stopping if child is not None else None)
    finally:
        # A worker leaving (sys.exit in the fork) unwinds through here too: only the
        # master may stop the child and remove its folder.
        if os.getpid() == master:
            if child is not None:
                child.stop()
            if private is not None:
                shutil.rmtree(private, ignore_errors=True)
    return 0


def room_for_connections() -> None:
    """``limits.OPEN_FILES`` open files for the door's connections, before gunicorn forks
    its worker; said on stderr when the system allows fewer."""
    import resource

    from kalimambo.web.http import limits

    if not limits.raise_open_files(limits.OPEN_FILES):
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        print(f"kalimambo serve: only {soft} open files allowed (the door may take "
              f"{limits.CONNECTIONS_TOTAL + limits.CONNECTIONS_RESERVED} connections); "
              f"a flood may leave the table none of its own", file=sys.stderr)


def run(host: str, port: int, config: AppConfig,
        worker_timeout: int = WORKER_TIMEOUT_S,
        on_stop: Callable[[], None] | None = None) -> None:
    """Serve the app with gunicorn: one gevent worker, many connections; ``on_stop``
    runs in the master as soon as a stop signal comes."""
    from kalimambo.serve_worker import TableServer

    # Only the worker speaks to systemd, once it answers: gunicorn's master would say
    # READY=1 as soon as it listens, before the app has loaded, which starts systemd's
    # watchdog clock early (a slow Pi was killed while it started).
    notify_address = os.environ.pop("NOTIFY_SOCKET", "")
    room_for_connections()
    TableServer(host, port, config, worker_timeout, notify_address, on_stop).run()
