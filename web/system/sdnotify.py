"""One datagram to systemd's notify socket (``sd_notify(3)``), standard library only.

Kept apart from ``liveness`` so the master and a booting worker can use it before gevent
patches anything: it imports only ``os``, ``socket`` and ``logging``.
"""

from __future__ import annotations

import logging
import os
import socket

log = logging.getLogger(__name__)


def sd_notify(message: str, address: str | None = None) -> bool:
    """Send ``message`` to ``address`` (default ``$NOTIFY_SOCKET``); false without one."""
    address = address if address is not None else os.environ.get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address.startswith("@"):  # an abstract socket
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode())
    except OSError as error:
        log.warning("watchdog: cannot notify systemd: %s", error)
        return False
    return True
