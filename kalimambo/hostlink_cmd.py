"""``kalimambo host-link``: the host link of a data dir (with its host key), and its QR code.

The host's way in when no host page is open: the first host of a Pi with no keyboard
(over ssh), or a host who lost their phone.  The table's own screen never shows the
key, so this, the line ``kalimambo serve`` prints when it starts (the journal on a
Pi) and the PIN are how a host gets in.  It only reads: the store is opened read-only,
and a data dir where no table has run yet (no key made) is one line, exit status 2.
It may run while the table serves, as the user that owns the store (on a Pi
``sudo -u kalimambo``: as root SQLite would leave a file beside the store that the
table could not write).
"""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from kalimambo.args import Parser, fail

PROG = "kalimambo host-link"


def read_key(path: Path) -> str | None:
    """The host key kept in the store at ``path`` (None if none was made yet); never
    writes.  ``sqlite3.Error`` if the store cannot be read."""
    from kalimambo.web.storage.store import SettingKey, Store

    store = Store(path, read_only=True)
    try:
        key = store.setting(SettingKey.HOST_KEY)
    finally:
        store.close()
    return key if isinstance(key, str) and len(key) >= 16 else None


def user_name(uid: int) -> str:
    import pwd

    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"#{uid}"


def main(argv: Sequence[str]) -> int:
    parser = Parser(prog=PROG, description="Print the host link (it opens the host page, "
                                           "logged in) and its QR code, for a phone to scan.")
    parser.add_argument("--data-dir", default="data",
                        help="the table's data dir (default ./data; on a Pi "
                             "/var/lib/kalimambo)")
    parser.add_argument("--port", type=int, default=8000,
                        help="the port the table serves on (default 8000; a Pi set up with "
                             "setup.sh: 80)")
    parser.add_argument("--no-qr", action="store_true", help="the link only, no QR code")
    args = parser.parse_args(list(argv))
    if not 1 <= args.port <= 65535:
        return fail(PROG, f"--port {args.port}: must be 1 to 65535")

    from kalimambo.web.storage.store import DB_NAME

    path = Path(args.data_dir) / DB_NAME
    as_owner = f"kalimambo host-link --data-dir {args.data_dir} --port {args.port}"
    try:
        owner = path.stat().st_uid
    except PermissionError:
        return fail(PROG, f"{path}: permission denied: run it as the table's user (on a "
                          f"Pi: sudo -u kalimambo {as_owner})")
    except OSError:
        return fail(PROG, f"--data-dir {args.data_dir}: no table has run there yet ({path} "
                          "is missing; the key is made when the table first starts)")
    if os.geteuid() == 0 and owner != 0:  # root would leave the store's -shm file as its own
        return fail(PROG, f"run it as the table's user, who owns {path}: sudo -u "
                          f"{user_name(owner)} {as_owner}")
    try:
        key = read_key(path)
    except (sqlite3.Error, ValueError) as error:
        return fail(PROG, f"{path}: cannot read the host key: {error}")
    if key is None:
        return fail(PROG, f"{path}: no host key yet (it is made when the table first "
                          "starts)")

    from kalimambo.web.system.netaddr import join_url

    link = f"{join_url(args.port)}host#key={key}"
    sys.stdout.write(f"Host link (opens the host page, logged in): {link}\n")
    if not args.no_qr:
        import segno

        segno.make(link, error="m").terminal(out=sys.stdout, compact=True)
    sys.stdout.write("Keep it to yourself: whoever has it can run the table.\n")
    return 0
