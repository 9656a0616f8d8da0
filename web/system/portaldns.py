"""The hotspot's DNS for the phones' connectivity checks: the Pi, or the world.

A phone that joins a Wi-Fi asks a well-known address whether it is online (Android,
iPhone, Windows, Firefox each their own). With no way out to the internet, the
hotspot's DNS (NetworkManager's dnsmasq, told by setup.sh's drop-in to watch
``dns_dir``) answers those names with the Pi, so the table answers the checks
(``web/http/portal.py``). When the Pi has another way out (Ethernet at the venue), the
hotspot shares it and the table answers nothing itself: the file goes, and the checks
reach the real servers.

The table looks at the routing table every few seconds (no traffic, no privileges) and
rewrites one hosts file only when the answer changes; dnsmasq reads the directory by
inotify.
"""

from __future__ import annotations

import ipaddress
import logging
import os
import threading
from pathlib import Path

log = logging.getLogger(__name__)

ANDROID, APPLE, WINDOWS, FIREFOX, GNOME = "android", "apple", "windows", "firefox", "gnome"

PROBE_HOSTS: dict[str, str] = {
    "connectivitycheck.gstatic.com": ANDROID, "connectivitycheck.android.com": ANDROID,
    "www.google.com": ANDROID, "clients1.google.com": ANDROID,
    "clients3.google.com": ANDROID, "play.googleapis.com": ANDROID,
    "captive.apple.com": APPLE, "www.apple.com": APPLE,                  # iOS, macOS
    "www.msftconnecttest.com": WINDOWS, "www.msftncsi.com": WINDOWS,
    "detectportal.firefox.com": FIREFOX,
    "nmcheck.gnome.org": GNOME,                                           # Linux desktops
}
"""The names the systems' connectivity checks ask for (their own code and docs), and
whose check each is: the hotspot's DNS answers them with the Pi, and the table answers
each system's check in that system's words (web/http/portal.py)."""

HOSTS_NAME = "kalimambo-probes"
"""The one file in ``dns_dir`` (dnsmasq skips names starting with a dot or ending in ~)."""
ROUTES = Path("/proc/net/route")
CHECK_EVERY_S = 5.0


def way_out(routes: str, hotspot_address: str) -> bool:
    """Whether ``/proc/net/route`` (its text) has a default route through an interface
    other than the hotspot's (the one whose network holds ``hotspot_address``)."""
    address = int(ipaddress.IPv4Address(hotspot_address))
    hotspot_ifaces, defaults = set(), set()
    for line in routes.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 8:
            continue
        iface, destination, mask = fields[0], _host_order(fields[1]), _host_order(fields[7])
        if destination is None or mask is None:
            continue
        if mask == 0 and destination == 0:
            defaults.add(iface)
        elif mask and address & mask == destination:
            hotspot_ifaces.add(iface)
    return bool(defaults - hotspot_ifaces)


def _host_order(field: str) -> int | None:
    """A /proc/net/route address (hex, the kernel's little-endian order) as an integer."""
    try:
        return int.from_bytes(bytes.fromhex(field), "little")
    except ValueError:
        return None


def hosts_text(hotspot_address: str) -> str:
    return "".join(f"{hotspot_address} {name}\n" for name in PROBE_HOSTS)


class PortalDns:
    """Keeps ``dns_dir``'s hosts file in step with the Pi's way out."""

    def __init__(self, dns_dir: Path, hotspot_address: str, routes: Path = ROUTES) -> None:
        self.file = dns_dir / HOSTS_NAME
        self.address = hotspot_address
        self.routes = routes
        self.answering: bool | None = None
        """True while the names point at the Pi; None before the first look."""
        self._stop = threading.Event()

    def update(self) -> bool | None:
        """Look once; write or delete the file if that changes. The state, or None when
        the routing table cannot be read (the file is left as it is)."""
        try:
            out = way_out(self.routes.read_text(), self.address)
        except OSError as error:
            log.warning("cannot read %s (%s): the hotspot's DNS is left as it is",
                        self.routes, error.strerror)
            return None
        answering = not out
        if answering != self.answering or answering != self.file.exists():
            try:
                self._write(answering)
            except OSError as error:
                log.warning("cannot change %s (%s): the phones' connectivity checks may "
                            "fail on the hotspot", self.file, error.strerror)
                return None
            log.info("the hotspot's DNS: %s", "the connectivity checks ask the table"
                     if answering else "another way out; the checks go to the internet")
            self.answering = answering
        return answering

    def _write(self, answering: bool) -> None:
        if not answering:
            self.file.unlink(missing_ok=True)
            return
        fresh = self.file.with_name("." + self.file.name)  # dnsmasq ignores dot files
        fresh.write_text(hosts_text(self.address))
        fresh.chmod(0o644)  # dnsmasq reads it as its own unprivileged user
        os.replace(fresh, self.file)  # one IN_MOVED_TO: dnsmasq never reads half a file

    def start(self) -> PortalDns:
        threading.Thread(target=self._run, name="portal-dns", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.update()
            self._stop.wait(CHECK_EVERY_S)
