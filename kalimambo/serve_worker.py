"""gunicorn's side of ``kalimambo serve``: the table's worker class, its hooks and the
application that loads the table in the worker.

Imported by ``serve_cmd.run`` only when serving, in the master: gunicorn and gevent load
here (gevent patches nothing until the worker's first act after the fork), and the
table's app only in the worker (``TableServer.load``).
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.workers.ggevent import GeventWorker

from kalimambo.web.http import limits
from kalimambo.web.http.appconfig import AppConfig

BOOT_ALLOWANCE_S = 180.0
"""How long a new worker may take to load the app before the timeout counts: a Pi Zero 2 W
at power-on, busy with everything else that starts, needs well over a minute."""


def boot_heartbeat(notify_address: str) -> Callable[[Any, Any], None]:
    """gunicorn's ``post_fork`` hook: keep a booting worker alive for a while.

    gunicorn counts loading the app against the worker timeout, and on a Pi Zero 2 W
    loading may take longer than the 10 s that catch a frozen worker, which would then
    be replaced for ever.  So a plain thread (started before gevent patches anything)
    beats for it until it has booted, for at most ``BOOT_ALLOWANCE_S``; from then on only
    the worker's own loop does, and a frozen worker is replaced after the timeout.

    The same thread feeds systemd's watchdog (``WATCHDOG=1``, never ``READY=1``) while
    the worker boots: a worker that replaces a frozen one is the table coming back, and
    systemd must not restart the whole service meanwhile (that raced gunicorn and took
    about a minute).  So ``WatchdogSec`` only has to outlast gunicorn's timeout, not the
    new worker's boot (docs/PI-INSTALL.md).

    A bare ``_thread`` thread, not a ``threading.Thread``: once gevent has patched
    ``get_ident``, a ``threading.Thread`` ending could not find itself in ``threading``'s
    table and printed a KeyError traceback at every start."""
    def post_fork(server: Any, worker: Any) -> None:
        import _thread
        import time

        from kalimambo.web.system.sdnotify import sd_notify

        sleep, started = time.sleep, time.monotonic()  # the real sleep, before patching

        def beat() -> None:
            while not worker.booted and time.monotonic() - started < BOOT_ALLOWANCE_S:
                try:
                    worker.tmp.notify()
                except (OSError, ValueError):
                    return
                if notify_address:
                    sd_notify("WATCHDOG=1", notify_address)
                sleep(1.0)

        _thread.start_new_thread(beat, ())
    return post_fork


def told_of_stops(on_stop: Callable[[], None]) -> Callable[[Any], None]:
    """A gunicorn ``when_ready`` hook: from then on a stop signal (Ctrl-C, SIGTERM,
    SIGQUIT) calls ``on_stop`` in the master at once, then gunicorn's own handler.
    gunicorn says nothing of a stop until its workers are gone (``on_exit``): on a busy
    machine the lights child, ended by the same Ctrl-C, would pass for a crash by then."""
    def when_ready(server: Any) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
            previous = signal.getsignal(sig)

            def handler(signum: int, frame: Any, previous: Any = previous) -> None:
                on_stop()
                if callable(previous):
                    previous(signum, frame)

            signal.signal(sig, handler)
    return when_ready


class TableWorker(GeventWorker):  # type: ignore[misc]
    """gunicorn's gevent worker with the door at its listening socket, leaving at once
    on a quick stop (Ctrl-C, SIGQUIT).

    The door (``kalimambo.web.http.door``): a connection over the caps of
    ``kalimambo.web.http.limits`` is refused in the accept callback, before it has a
    greenlet or a byte of it is read; an admitted one gives its place back when its
    handler ends, whatever the end.

    gunicorn's own quick stop raises SystemExit from a greenlet 0.1 s later; when the
    worker's loop has ended meanwhile, it lands in gevent's interpreter shutdown and
    prints a traceback (gunicorn issue 3239).  All the table has acknowledged is on
    disk already (a pulled plug loses nothing), so leaving at once is safe."""

    sockets: list[Any]  # gunicorn's listening sockets (gevent's, once patched)

    def patch(self) -> None:
        super().patch()  # gevent's sockets in place of gunicorn's
        from kalimambo.web.http.door import Door, door_listener

        self.door = Door()
        self.sockets = [door_listener(sock, self.door) for sock in self.sockets]

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        from kalimambo.web.http.door import peer

        try:
            super().handle(listener, client, addr)
        finally:
            self.door.release(peer(addr), client)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> Any:
        """One request, then the others' turn: the connection lets everything ready
        run once for each connection its address holds.  Without it a client with
        many requests sent ahead (pipelined on one connection) was served all of them
        before anyone else, for as long as its answers fit in the socket's buffer
        (seconds); with it each address, not each connection, gets about one request
        per turn of the loop, and a new connection's first request waits one turn."""
        import gevent

        from kalimambo.web.http.door import peer

        keep = super().handle_request(listener_name, req, sock, addr)
        for _ in range(self.door.turns(peer(addr))):
            gevent.sleep(0)
        return keep

    def handle_abort(self, sig: int, frame: Any) -> None:
        """gunicorn aborts a worker it found frozen; the unwinding lets the worker's
        greenlets run once more, and its watchdog must not tell systemd that it serves
        (seen on Python 3.13: one WATCHDOG=1 from the aborted worker)."""
        watchdog = getattr(self.wsgi, "extensions", {}).get("kalimambo.watchdog")
        if watchdog is not None:
            watchdog.stop()
        super().handle_abort(sig, frame)

    def handle_quit(self, sig: int, frame: Any) -> None:
        self.alive = False
        self.cfg.worker_int(self)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        os._exit(0)


class TableServer(BaseApplication):  # type: ignore[misc]
    """gunicorn with one ``TableWorker`` at ``host``:``port``; ``on_stop`` runs in the
    master as soon as a stop signal comes, ``notify_address`` is systemd's (the worker's
    alone to speak to)."""

    def __init__(self, host: str, port: int, config: AppConfig, worker_timeout: int,
                 notify_address: str, on_stop: Callable[[], None] | None = None) -> None:
        self.host, self.port, self.config = host, port, config
        self.worker_timeout, self.notify_address = worker_timeout, notify_address
        self.on_stop = on_stop
        super().__init__()  # reads the settings (load_config)

    def load_config(self) -> None:
        host, port = self.host, self.port
        settings = {
            "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
            "workers": 1,
            "worker_class": TableWorker,
            "worker_connections": limits.WORKER_CONNECTIONS,
            "timeout": self.worker_timeout,
            "graceful_timeout": 3,
            "keepalive": 5,
            "accesslog": None,
            "loglevel": "warning",
            "preload_app": False,
            "post_fork": boot_heartbeat(self.notify_address),
        }
        if self.on_stop is not None:
            settings["when_ready"] = told_of_stops(self.on_stop)
        # No runtime control socket (gunicorn 25.1+): nothing should steer the table
        # from outside, and it would make $HOME/.gunicorn where the service can't write.
        if "control_socket_disable" in self.cfg.settings:
            settings["control_socket_disable"] = True
        for key, value in settings.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        # In the worker, after gevent has patched the standard library.
        from kalimambo.web.http.app import create_app
        from kalimambo.web.system.liveness import Watchdog, state_url

        app = create_app(self.config)
        app.extensions["kalimambo.watchdog"] = Watchdog(
            state_url(self.host, self.port), address=self.notify_address).start()
        return app
