"""The address phones should open: the Pi's own LAN address, found without traffic.

Reads each interface's IPv4 address with an ioctl on an unconnected UDP socket (no
packet is ever sent), prefers Wi-Fi and Ethernet over container bridges, and falls
back to ``kalimambo.local``; never localhost, which on a phone is the phone.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import time

FALLBACK_HOST = "kalimambo.local"
SIOCGIFADDR = 0x8915
SKIP_PREFIXES = ("lo", "docker", "veth", "br-", "virbr", "tun", "tap", "wg", "zt")


def interface_addresses() -> list[tuple[str, str]]:
    """``(interface, IPv4 address)`` for every interface that has one (Linux only)."""
    try:
        import fcntl
    except ImportError:
        return []
    found = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for _, name in socket.if_nameindex():
            try:
                packed = fcntl.ioctl(sock.fileno(), SIOCGIFADDR,
                                     struct.pack("256s", name[:15].encode()))
            except OSError:
                continue
            found.append((name, socket.inet_ntoa(packed[20:24])))
    return found


def _rank(item: tuple[str, str]) -> tuple[int, str]:
    name, _ = item
    return (0 if name.startswith(("wlan", "wl")) else 1 if name.startswith(("eth", "en"))
            else 2, name)


def lan_address(addresses: list[tuple[str, str]] | None = None) -> str | None:
    """The best address phones on the same network can reach, or None."""
    usable = []
    for name, address in interface_addresses() if addresses is None else addresses:
        ip = ipaddress.ip_address(address)
        if name.startswith(SKIP_PREFIXES) or ip.is_loopback or ip.is_link_local \
                or ip.is_unspecified or ip.is_multicast:
            continue
        usable.append((name, address))
    return min(usable, key=_rank)[1] if usable else None


def join_url(port: int, host: str | None = None) -> str:
    """``http://ADDRESS[:PORT]/`` for the QR code; ``kalimambo.local`` when no address."""
    address = host or lan_address() or FALLBACK_HOST
    return f"http://{address}/" if port == 80 else f"http://{address}:{port}/"


class JoinUrl:
    """``join_url(port)`` looked up again at most every ``ttl`` seconds.

    The address can change while the table runs: at boot the service often starts
    before Wi-Fi (or the convention hotspot's 10.42.0.1) is up, and a QR code
    pointing at ``kalimambo.local`` fails on phones without mDNS.
    """

    def __init__(self, port: int, ttl: float = 15.0) -> None:
        self.port = port
        self.ttl = ttl
        self._url = ""
        self._checked = float("-inf")

    def __call__(self) -> str:
        now = time.monotonic()
        if now - self._checked >= self.ttl:
            self._url = join_url(self.port)
            self._checked = now
        return self._url
