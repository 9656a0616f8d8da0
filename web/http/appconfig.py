"""The app's configuration: one typed, frozen value, built once and handed to
``create_app``.

``kalimambo serve`` builds it from its options, the board file and the hotspot's file
(the host PIN's precedence decided once, by ``host_pin_of``); a test builds it
with what it needs. A setting that does not exist cannot be set: a misspelt or retired
one is a TypeError, not a key nobody reads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from kalimambo.firmware.hardware import HardwareConfig, default_hardware
from kalimambo.web.system.hotspot import Hotspot
from kalimambo.web.system.tablefile import TableSettings

Runner = Literal["auto", "thread", "inline"]


@dataclass(frozen=True, kw_only=True)
class AppConfig:
    """What the table's web app is made with."""

    data_dir: Path
    """Where the SQLite file lives."""
    host_pin: str | None = None
    """The host's PIN; None: the host key alone logs in."""
    host_key: str | None = None
    """The host key; None: the one kept in the store (made once)."""
    hardware: HardwareConfig = field(default_factory=default_hardware)
    """The board file, read (its track, strip and pacing)."""
    lights_socket: str | None = None
    """Where the lights process connects; None: no lights."""
    port: int = 8000
    """The port the table listens on (for the join URL and the hotspot's address)."""
    join_url: str | Callable[[], str] | None = None
    """The address phones open; None: the Pi's LAN address (or kalimambo.local)."""
    runner: Runner = "auto"
    """Where computer players and hints think: in threads, or inline (tests)."""
    heartbeat_s: float = 15.0
    """Seconds between the event streams' heartbeat comments."""
    hotspot: Hotspot | None = None
    """The convention hotspot setup.sh made, or none."""
    table: TableSettings | None = None
    """What a card tells its table (docs/IMAGE.md), or none."""
    arp_file: Path | None = None
    """The kernel's neighbour table; None: /proc/net/arp."""
    routes_file: Path | None = None
    """The routing table; None: /proc/net/route."""
    testing: bool = False
    """Flask's testing mode (errors raised in the test, not answered)."""


def host_pin_of(option: str | None, hardware: HardwareConfig) -> str | None:
    """The host's PIN, decided here alone: ``--host-pin``'s, else the board file's, else
    none (the host key alone logs in)."""
    if option:
        return option
    return str(hardware.host_pin) if hardware.host_pin else None
