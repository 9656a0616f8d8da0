"""The app factory (flaskr style): one hub (the table, its streams, its lights link) per
app, none in module globals."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from kalimambo.firmware.hardware import HardwareConfig, default_hardware
from kalimambo.web.core.refusals import ApiError, error_body
from kalimambo.web.http import limits
from kalimambo.web.live.hub import Hub
from kalimambo.web.storage.archive import Archive
from kalimambo.web.storage.store import DB_NAME, Store
from kalimambo.web.system.netaddr import JoinUrl
from kalimambo.web.table.hostlogin import HostAuth, stored_key
from kalimambo.web.table.tasks import InlineRunner, ThreadRunner, default_runner

log = logging.getLogger(__name__)


HTTP_MESSAGES = {
    404: ("not_found", "There is nothing here."),
    405: ("method_not_allowed", "That request does not work on this address."),
    413: ("too_large", f"That request is too big (more than {limits.MAX_BODY // 1024} KB)."),
    415: ("not_json", "Please send JSON (Content-Type: application/json)."),
}

DEFAULTS: dict[str, Any] = {
    "DATA_DIR": "data",       # where the SQLite file lives
    "HOST_PIN": None,         # else the board file's [host] pin, else none (the key alone)
    "HOST_KEY": None,         # the host key; None: the one kept in the store (made once)
    "HARDWARE": None,         # the board file read (firmware.hardware.HardwareConfig); None:
                              # default_hardware()
    "LIGHTS_SOCKET": None,    # where the lights process connects; None: no lights
    "PORT": 8000,             # for the join URL
    "JOIN_URL": None,         # None: the Pi's LAN address (or kalimambo.local)
    "RUNNER": "auto",         # bots and hints: auto | thread | inline
    "HEARTBEAT": 15.0,        # seconds between SSE heartbeat comments
    "HOTSPOT": None,          # a web.system.hotspot.Hotspot (setup.sh --hotspot), or none
    "TABLE": None,            # a web.system.tablefile.TableSettings (a card's), or none
    "ARP_FILE": None,         # the kernel's neighbour table; None: /proc/net/arp
    "ROUTES_FILE": None,      # the routing table; None: /proc/net/route
}


def _hardware(config: dict[str, Any]) -> HardwareConfig:
    hardware: HardwareConfig | None = config["HARDWARE"]
    return default_hardware() if hardware is None else hardware


def _runner(name: str) -> InlineRunner:
    if name == "inline":
        return InlineRunner()
    if name == "thread":
        return ThreadRunner()
    return default_runner()


def build_hub(config: dict[str, Any]) -> Hub:
    """The hub from the app's config: the store and the host's login, and what
    the table, the lights link and the event streams are made with."""
    hardware = _hardware(config)
    store = Store(Path(config["DATA_DIR"]) / DB_NAME)
    pin = config["HOST_PIN"] or hardware.host_pin
    pin = None if pin is None else str(pin)
    key = config["HOST_KEY"] or stored_key(store)
    return Hub(store, hardware.spaces, HostAuth(store, pin, key), pin=pin,
               lights_socket=config["LIGHTS_SOCKET"], led_count=hardware.led_count,
               heartbeat=config["HEARTBEAT"],
               join_url=config["JOIN_URL"] or JoinUrl(int(config["PORT"])),
               runner=_runner(config["RUNNER"]), default_pacing=hardware.pacing,
               default_pause_ms=hardware.pause_ms)


def _json_error(status: int, code: str, message: str,
                headers: dict[str, str] | None = None) -> Response:
    return Response(error_body(code, message), status=status, mimetype="application/json",
                    headers=headers)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """The Flask app with its hub on ``app.extensions["kalimambo"]``."""
    app = Flask(__name__, root_path=str(Path(__file__).parents[1]))  # web/
    app.config.update(DEFAULTS)
    app.config["MAX_CONTENT_LENGTH"] = limits.MAX_BODY
    app.config["JSON_SORT_KEYS"] = False
    if test_config:
        app.config.update(test_config)
    hub = build_hub(app.config)
    app.extensions["kalimambo"] = hub
    app.extensions["kalimambo.archive"] = Archive(hub.store, hub.table.lock)

    @app.errorhandler(ApiError)
    def api_error(error: ApiError) -> Response:
        return _json_error(error.status, error.code, error.message, error.headers)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        if not request.path.startswith("/api/"):
            if error.code == 404 and not request.path.startswith("/static/"):
                from kalimambo.web.http.pages import missing

                return missing(request.path)
            return error
        status = error.code or 500
        code, message = HTTP_MESSAGES.get(status, ("bad_request", "That request did "
                                                                  "not work."))
        return _json_error(status, code, message)

    @app.errorhandler(Exception)
    def unexpected(error: Exception) -> Any:
        log.exception("unexpected error on %s", request.path)
        return _json_error(500, "server_error", "Something went wrong on the table: "
                                                "please try again.")

    from kalimambo.web.http.api import bp as api_bp
    from kalimambo.web.http.archive_routes import bp as archive_bp
    from kalimambo.web.http.pages import bp as pages_bp

    app.register_blueprint(api_bp)
    app.register_blueprint(pages_bp)
    app.register_blueprint(archive_bp)
    from kalimambo.web.http import compress

    compress.register(app)  # gzip for text over 1 KB, static files once (issue 36)
    from kalimambo.web.http import hardening, portal

    portal.register(app, app.config["HOTSPOT"], hub.store)
    app.extensions["kalimambo.table"] = app.config["TABLE"]
    _follow_the_way_out(app)
    hardening.register(app)
    return app


def _follow_the_way_out(app: Flask) -> None:
    """With a hotspot, keep its DNS for the connectivity checks in step with the Pi's
    way out (web/system/portaldns.py)."""
    from kalimambo.web.system.hotspot import Hotspot
    from kalimambo.web.system.portaldns import ROUTES, PortalDns

    hotspot = app.config["HOTSPOT"]
    if isinstance(hotspot, Hotspot) and hotspot.dns_dir is not None:
        routes = Path(app.config["ROUTES_FILE"] or ROUTES)
        app.extensions["kalimambo.portal_dns"] = PortalDns(
            hotspot.dns_dir, hotspot.address, routes).start()
