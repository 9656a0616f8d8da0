"""The app factory (flaskr style): one hub (the table, its streams, its lights link) per
app, none in module globals."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from kalimambo.web.core.refusals import Refusal
from kalimambo.web.http import limits
from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.http.statuses import error_body, http_headers, http_status
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

def _runner(name: str) -> InlineRunner:
    if name == "inline":
        return InlineRunner()
    if name == "thread":
        return ThreadRunner()
    return default_runner()


def build_hub(config: AppConfig) -> Hub:
    """The hub from the app's config: the store and the host's login, and what
    the table, the lights link and the event streams are made with."""
    hardware = config.hardware
    store = Store(config.data_dir / DB_NAME)
    key = config.host_key or stored_key(store)
    return Hub(store, hardware.spaces, HostAuth(store, config.host_pin, key),
               pin=config.host_pin, lights_socket=config.lights_socket,
               led_count=hardware.led_count, heartbeat=config.heartbeat_s,
               join_url=config.join_url or JoinUrl(config.port),
               runner=_runner(config.runner), default_pacing=hardware.pacing,
               default_pause_ms=hardware.pause_ms)


def _json_error(status: int, code: str, message: str,
                headers: dict[str, str] | None = None) -> Response:
    return Response(error_body(code, message), status=status, mimetype="application/json",
                    headers=headers)


def create_app(config: AppConfig) -> Flask:
    """The Flask app with its hub on ``app.extensions["kalimambo"]`` and its
    configuration on ``app.extensions["kalimambo.config"]``."""
    app = Flask(__name__, root_path=str(Path(__file__).parents[1]))  # web/
    app.config["TESTING"] = config.testing
    app.config["MAX_CONTENT_LENGTH"] = limits.MAX_BODY
    app.config["JSON_SORT_KEYS"] = False
    app.extensions["kalimambo.config"] = config
    hub = build_hub(config)
    app.extensions["kalimambo"] = hub
    app.extensions["kalimambo.archive"] = Archive(hub.store, hub.table.lock)

    @app.errorhandler(Refusal)
    def api_error(error: Refusal) -> Response:
        return _json_error(http_status(error), error.code, error.message, http_headers(error))

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> Any:
        if not request.path.startswith("/api/"):
            if error.code == 404 and not request.path.startswith("/static/"):
                from kalimambo.web.http.pages import missing

                return missing(request.path)
            return error
        status = error.code or 500
        code, message = HTTP_MESSAGES.get(status, ("bad_input", "That request did "
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

    portal.register(app, config, hub.store)
    app.extensions["kalimambo.table"] = config.table
    _follow_the_way_out(app, config)
    hardening.register(app)
    return app


def _follow_the_way_out(app: Flask, config: AppConfig) -> None:
    """With a hotspot, keep its DNS for the connectivity checks in step with the Pi's
    way out (web/system/portaldns.py)."""
    from kalimambo.web.system.portaldns import ROUTES, PortalDns

    hotspot = config.hotspot
    if hotspot is not None and hotspot.dns_dir is not None:
        routes = config.routes_file or ROUTES
        app.extensions["kalimambo.portal_dns"] = PortalDns(
            hotspot.dns_dir, hotspot.address, routes).start()
