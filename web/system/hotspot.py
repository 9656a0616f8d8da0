"""The convention hotspot as ``setup.sh --hotspot`` made it, read by the table.

``setup.sh`` writes ``/etc/kalimambo/hotspot.toml`` (readable by root and the table's
user only: it holds the Wi-Fi password) so the board page can show the "join the Wi-Fi"
QR code, and the table knows where the hotspot's DNS takes its answers about the phones'
connectivity checks (``web/system/portaldns.py``). No file: no hotspot, and none of it.
"""

from __future__ import annotations

import ipaddress
import tomllib
from dataclasses import dataclass
from pathlib import Path

HOTSPOT_FILE = Path("/etc/kalimambo/hotspot.toml")
"""Where ``setup.sh --hotspot`` writes it and ``--no-hotspot``/``--uninstall`` delete it."""


class HotspotFileError(ValueError):
    """The hotspot file cannot be used; the message says why, for a person."""


@dataclass(frozen=True)
class Hotspot:
    """The Wi-Fi the Pi makes: its name, its WPA2 password (None: open), the Pi's address
    in it, and the directory the hotspot's DNS watches for extra names (None: none)."""

    name: str
    password: str | None
    address: str
    dns_dir: Path | None

    def wifi_qr_text(self) -> str:
        """The ``WIFI:`` text phone cameras join from (iOS 11+, Android 10+)."""
        if self.password is None:
            return f"WIFI:T:nopass;S:{escape(self.name)};;"
        return f"WIFI:T:WPA;S:{escape(self.name)};P:{escape(self.password)};;"


def escape(text: str) -> str:
    """A ``WIFI:`` field: backslash, semicolon, comma, colon and double quote escaped."""
    for special in ("\\", ";", ",", ":", '"'):
        text = text.replace(special, "\\" + special)
    return text


def read_hotspot(path: Path) -> Hotspot | None:
    """The hotspot ``path`` describes, or None when there is no such file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as error:
        raise HotspotFileError(f"cannot read the hotspot file {path}: {error.strerror}") \
            from error
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise HotspotFileError(f"the hotspot file {path} is not valid TOML ({error}); "
                               "run 'sudo ./setup.sh --hotspot NAME' again") from error
    name, password = data.get("name"), data.get("password", "")
    address, dns_dir = data.get("address", "10.42.0.1"), data.get("dns_dir", "")
    if not isinstance(name, str) or not 1 <= len(name.encode()) <= 32:
        raise HotspotFileError(f"the hotspot file {path} needs a name of 1 to 32 bytes")
    if not isinstance(password, str) or (password and not 8 <= len(password) <= 63):
        raise HotspotFileError(f"the hotspot file {path}: the password has 8 to 63 "
                               "characters, or is \"\" for an open network")
    if not isinstance(dns_dir, str) or not isinstance(address, str):
        raise HotspotFileError(f"the hotspot file {path}: address and dns_dir are text")
    try:
        ipaddress.IPv4Address(address)
    except ValueError as error:
        raise HotspotFileError(f"the hotspot file {path}: address '{address}' is not an "
                               "IPv4 address") from error
    return Hotspot(name, password or None, address, Path(dns_dir) if dns_dir else None)
