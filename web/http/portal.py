"""The phones' connectivity checks on the hotspot, and the Wi-Fi's QR code.

On a hotspot with no internet behind it, a phone that finds its check failing sends its
browser's requests over mobile data (Android) or shows a sign-in sheet that keeps no
storage (iPhone), so the table is never reached. The table answers the checks itself
(``web/system/portaldns.py`` points their names at the Pi), per phone:

- until the person has opened the table on that phone, each system's "sign in here"
  answer (a redirect to ``/welcome``), so the phone opens its sign-in window on the
  table's welcome page, a plain page with one button;
- from then on, each system's "online" answer, so the phone keeps the Wi-Fi as its way
  to the table and its real browser reaches it, with mobile data on.

The game never runs in the sign-in window: the welcome page's button lets the phone
through and says where the table is. A phone is known by its Wi-Fi address (MAC, read
from the kernel's neighbour table), so sleep and a new DHCP lease change nothing; the
list is kept in the store for a convention day (``ADMITTED_FOR_S``), so a restart or a
power cut changes nothing either. docs/HOTSPOT.md says what this costs.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from flask import Blueprint, Flask, Response, abort, current_app, render_template, request

from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.storage.store import SettingKey, Store
from kalimambo.web.system.hotspot import Hotspot
from kalimambo.web.system.portaldns import (
    ANDROID,
    APPLE,
    FIREFOX,
    GNOME,
    PROBE_HOSTS,
    WINDOWS,
)

ADMITTED_FOR_S: Final = 16 * 3600
"""How long a phone stays let through: a convention day."""
ARP: Final = Path("/proc/net/arp")

APPLE_SUCCESS: Final = ("<HTML><HEAD><TITLE>Success</TITLE></HEAD>"
                        "<BODY>Success</BODY></HTML>")
ONLINE_TEXT: Final = {  # (system, path) -> the body that system takes for "online"
    (WINDOWS, "/connecttest.txt"): "Microsoft Connect Test",
    (WINDOWS, "/ncsi.txt"): "Microsoft NCSI",
    (FIREFOX, "/success.txt"): "success\n",
    (GNOME, "/check_network_status.txt"): "NetworkManager is online\n",
}
ANDROID_PATHS: Final = ("/generate_204", "/gen_204")

bp = Blueprint("portal", __name__)


def neighbour_address(ip: str, arp: Path = ARP) -> str | None:
    """The MAC address the kernel's neighbour table holds for ``ip``, or None."""
    try:
        lines = arp.read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if len(fields) >= 4 and fields[0] == ip and fields[3] != "00:00:00:00:00:00":
            return fields[3].lower()
    return None


class Admissions:
    """The phones let through, by MAC (else by IP address), kept in the store."""

    def __init__(self, store: Store, arp: Path = ARP,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.arp = arp
        self.clock = clock
        self._lock = threading.Lock()
        stored = store.setting(SettingKey.PORTAL, {})
        self._since: dict[str, float] = {
            key: float(when) for key, when in (stored.items() if isinstance(stored, dict)
                                               else ()) if isinstance(when, (int, float))}

    def key(self, ip: str) -> str:
        mac = neighbour_address(ip, self.arp)
        return f"mac {mac}" if mac else f"ip {ip}"

    def admitted(self, ip: str) -> bool:
        since = self._since.get(self.key(ip))
        return since is not None and self.clock() - since < ADMITTED_FOR_S

    def admit(self, ip: str) -> None:
        """Let ``ip``'s phone through (on disk before the answer says so)."""
        key, now = self.key(ip), self.clock()
        with self._lock:
            since = self._since.get(key)
            if since is not None and now - since < ADMITTED_FOR_S / 4:
                return  # fresh enough: no write for every page load
            kept = {k: t for k, t in self._since.items() if now - t < ADMITTED_FOR_S}
            kept[key] = now
            self.store.set_settings({SettingKey.PORTAL: kept})
            self._since = kept


class Portal:
    """What the table answers the connectivity checks, for one hotspot."""

    def __init__(self, hotspot: Hotspot, admissions: Admissions, port: int) -> None:
        self.hotspot = hotspot
        self.admissions = admissions
        self.port = port

    def table_url(self) -> str:
        """The table's address in the hotspot: ``http://10.42.0.1/`` on port 80."""
        port = self.port
        return f"http://{self.hotspot.address}" + ("" if port == 80 else f":{port}") + "/"

    def welcome_url(self) -> str:
        return self.table_url() + "welcome"

    def answer(self, system: str, path: str, ip: str) -> Response:
        """The check's answer: "online" for a phone let through, else "sign in here"."""
        if self.admissions.admitted(ip):
            online = self._online(system, path)
            if online is not None:
                return _no_store(online)
        return _no_store(Response(status=302, headers={"Location": self.welcome_url()}))

    @staticmethod
    def _online(system: str, path: str) -> Response | None:
        if system == ANDROID:
            return Response(status=204) if path in ANDROID_PATHS else None
        if system == APPLE:
            return Response(APPLE_SUCCESS, mimetype="text/html")
        text = ONLINE_TEXT.get((system, path))
        return None if text is None else Response(text, mimetype="text/plain")


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


def _portal() -> Portal | None:
    portal = current_app.extensions.get("kalimambo.portal")
    return portal if isinstance(portal, Portal) else None


def _host_name() -> str:
    host = (request.host or "").lower()
    if host.startswith("["):
        return host.split("]")[0] + "]"
    return host.split(":")[0]


@bp.before_app_request
def connectivity_check() -> Response | None:
    """A check's request (by its host name) gets the check's answer; a phone opening the
    phone page is let through (it has opened the table)."""
    portal = _portal()
    if portal is None:
        return None
    system = PROBE_HOSTS.get(_host_name())
    ip = request.remote_addr or ""
    if system is not None:
        return portal.answer(system, request.path, ip)
    if request.method == "GET" and request.path == "/" and _is_hotspot_client(portal, ip):
        portal.admissions.admit(ip)
    return None


def _is_hotspot_client(portal: Portal, ip: str) -> bool:
    """Whether ``ip`` is in the hotspot's network (a /24 around the Pi's address)."""
    try:
        network = ipaddress.IPv4Network(f"{portal.hotspot.address}/24", strict=False)
        return ipaddress.ip_address(ip) in network
    except ValueError:
        return False


def _welcome_page(done: bool) -> Response:
    from kalimambo.web.http.pages import messages, page_lang

    portal = _portal()
    if portal is None:
        abort(404)  # no hotspot: the table's own "no such page"
    lang = page_lang()
    text = messages()[lang]
    table_url = portal.table_url()
    html = render_template("welcome.html", lang=lang, t=text, done=done, table_url=table_url)
    return _no_store(Response(html, mimetype="text/html"))


@bp.get("/welcome")
def welcome() -> Response:
    """The sign-in window's page: what this Wi-Fi is, and one button."""
    return _welcome_page(done=False)


@bp.post("/welcome")
def let_through() -> Response:
    """The button: this phone is let through; the page says where the table is."""
    portal = _portal()
    if portal is None:
        abort(404)
    portal.admissions.admit(request.remote_addr or "")
    return _welcome_page(done=True)


@bp.get("/wifi-qr.svg")
def wifi_qr() -> Response:
    """The hotspot's "join this Wi-Fi" QR code (404 without a hotspot)."""
    hotspot = current_app.extensions.get("kalimambo.hotspot")
    if not isinstance(hotspot, Hotspot):
        abort(404)
    from kalimambo.web.http.pages import qr_svg

    response = Response(qr_svg(hotspot.wifi_qr_text()), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"
    return response


def register(app: Flask, config: AppConfig, store: Store) -> None:
    """Answer the checks and show the Wi-Fi's code when the table runs a hotspot."""
    app.register_blueprint(bp)
    hotspot = config.hotspot
    if hotspot is None:
        return
    app.extensions["kalimambo.hotspot"] = hotspot
    app.extensions["kalimambo.portal"] = Portal(
        hotspot, Admissions(store, config.arp_file or ARP), config.port)
