#!/usr/bin/env python3
"""At every boot of a card made by ``setup.sh --image``: this card's own table, and the
volunteer's ``kalimambo.toml`` applied (``kalimambo-card.service``, before the table).

Why at boot and not at build: one image is flashed onto many cards, and tables side by side
in one hall must differ (DESIGN: a name fixed at build is shared by every card). So the
first boot chooses, once, what is this card's own (four letters for its name, a hotspot
password, a Wi-Fi channel among 1, 6 and 11) and keeps it in ``/etc/kalimambo/card.toml``;
systemd makes the machine-id, the OS the SSH host keys (a backstop here), the table its
host key. Then ``setup.sh`` runs once more, offline (the image holds every package),
with this card's name and hotspot and for the model it is on (a Pi 5 gets the PIO strip
driver and one reboot); at later boots only when a setting changed, or when the root is
read-only (deploy/card_root.py): then what setup.sh wrote is gone at each boot, and it runs
at every boot (offline, it changes only what the root forgot: seconds).

``[card] read_only`` turns the read-only root off and on: the card edits its cmdline.txt and
reboots once.

``kalimambo.toml`` on the FAT boot partition is read at every boot. A wrong value never
stops the card: that value's default is used, and the line and the reason go to the
journal and, through ``/etc/kalimambo/table.toml``, to the host page. The strip's values
and the PIN and pacing are the board file's own keys, written into it (comments kept) and
checked by the same rules as the lights check them.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import secrets
import subprocess
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from card_data import PROBLEM_FILE as DATA_PROBLEM_FILE  # (beside it in deploy/)
from card_data import write_whole
from card_root import read_only_in, with_read_only

from kalimambo.firmware.hardware import HardwareFileError, parse_hardware
from kalimambo.firmware.hardwarewrite import replace_text, with_values
from kalimambo.web.system.tablefile import LANGUAGES, TableSettings, table_file_text

BOOT_PARTITION = Path("/boot/firmware")
SETTINGS_FILE = BOOT_PARTITION / "kalimambo.toml"
CMDLINE_FILE = BOOT_PARTITION / "cmdline.txt"
CONFIG_FILE = BOOT_PARTITION / "config.txt"
ETC = Path("/etc/kalimambo")
SETTINGS_AS_READ = ETC / "kalimambo.toml.last-read"
"""kalimambo.toml as last read, on the data partition: used in a boot that comes up without
its boot partition (its fstab line has ``nofail``: deploy/build_image.py), so that the card
keeps the volunteer's settings rather than fall back to every default."""
CARD_FILE = ETC / "card.toml"
"""What this card chose at its first boot; root's only (the hotspot password)."""
TABLE_FILE = ETC / "table.toml"
"""What the table reads as it starts: its name, its language, the settings' problems."""
APPLIED_FILE = Path("/var/lib/kalimambo-card-applied")
"""The fingerprint of the settings setup.sh last applied to this root: the same at the next
boot, no run. On the root, not the data partition: it goes where setup.sh's changes go, so
a read-only root, which forgets them at every boot, forgets it too."""
BOARD_FILE = ETC / "board.toml"
KERNEL_CMDLINE = Path("/proc/cmdline")
REPO = Path(__file__).resolve().parent.parent
CHANNELS = (1, 6, 11)
"""The three 2.4 GHz channels that do not overlap."""
IMAGE_HOSTNAMES = ("", "localhost", "raspberrypi", "kalimambo")
"""Host names a card has before anyone chose one (Raspberry Pi OS's, setup.sh's default)."""
HOSTNAME = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
PASSWORD_LETTERS = "abcdefghjkmnpqrstuvwxyz23456789"
"""No 0/o, 1/l/i: the password is read off the board page and typed on a phone."""
SERVICE_USER = "kalimambo"


# ---- kalimambo.toml ----------------------------------------------------------------------

def _hostname(value: object) -> str | None:
    if isinstance(value, str) and HOSTNAME.match(value.lower()):
        return value.lower()
    return None


def _language(value: object) -> str | None:
    return value if value in LANGUAGES else None


def _ssid(value: object) -> str | None:
    ok = isinstance(value, str) and 1 <= len(value.encode()) <= 32 and value.isprintable()
    return value if ok else None  # type: ignore[return-value]


def _password(value: object) -> str | None:
    ok = isinstance(value, str) and (value == "" or (
        8 <= len(value) <= 63 and value.isascii() and value.isprintable()))
    return value if ok else None  # type: ignore[return-value]


def _country(value: object) -> str | None:
    if isinstance(value, str) and re.fullmatch(r"[A-Za-z]{2}", value):
        return value.upper()
    return None


def _bool(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


@dataclass(frozen=True)
class Setting:
    """One line a volunteer may set: where it goes and what a right value is."""

    section: str
    key: str
    means: str
    """What a right value is, for the message about a wrong one."""
    check: Callable[[object], Any] | None = None
    """Own settings: the value to use, or None when wrong."""
    board: tuple[str, str] | None = None
    """Board-file settings: the board file's section and key (its rules check them)."""
    secret: bool = False
    """Never repeated in a message: the host page is open to anyone who finds it."""

    def shown(self, value: object) -> str:
        return f"{self.key} (its value not shown)" if self.secret else \
            f"{self.key} = {json.dumps(value)}"


SETTINGS = (
    Setting("table", "name", "small letters, digits and dashes, like \"kalimambo-3\"",
            _hostname),
    Setting("table", "language", f"one of {', '.join(LANGUAGES)}", _language),
    Setting("table", "host_pin", "4 to 8 digits in quotes", board=("host", "pin"),
            secret=True),
    Setting("table", "pacing", "\"auto\" or \"step\"", board=("animation", "pacing")),
    Setting("table", "pause_ms", "milliseconds", board=("animation", "pause_ms")),
    Setting("hotspot", "enabled", "true or false", _bool),
    Setting("hotspot", "name", "1 to 32 characters", _ssid),
    Setting("hotspot", "password", "8 to 63 letters, digits or signs, or \"\" (open)",
            _password, secret=True),
    Setting("hotspot", "country", "two letters, like \"DE\"", _country),
    Setting("strip", "led_count", "a number of LEDs", board=("strip", "led_count")),
    Setting("strip", "gpio", "a BCM pin number", board=("strip", "gpio")),
    Setting("strip", "colour_order", "like \"GRB\"", board=("strip", "colour_order")),
    Setting("strip", "power_limit_ma", "the supply's current in mA",
            board=("power", "supply_ma")),
    Setting("card", "read_only", "true or false", _bool),
)
SECTIONS = tuple(dict.fromkeys(s.section for s in SETTINGS))


@dataclass
class Settings:
    """kalimambo.toml read: the right values, and a sentence for each line that was not."""

    own: dict[str, Any] = field(default_factory=dict)
    """``section.key`` to a checked value (the table's, the hotspot's)."""
    board: dict[tuple[str, str], Any] = field(default_factory=dict)
    """Board-file keys to their values, each one checked against the board file."""
    problems: list[str] = field(default_factory=list)


def line_of(text: str, section: str, key: str) -> int | None:
    """The line (from 1) where ``key`` of ``[section]`` is set, for the messages."""
    current = ""
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"^\s*\[\s*([A-Za-z0-9_-]+)\s*\]", line)
        if header:
            current = header.group(1)
        elif current == section and re.match(rf"^\s*{re.escape(key)}\s*=", line):
            return number
    return None


def where(text: str, section: str, key: str) -> str:
    number = line_of(text, section, key)
    return f"kalimambo.toml line {number}" if number else "kalimambo.toml"


def read_settings(text: str, board_text: str) -> Settings:
    """Every setting in ``text`` checked one by one; a wrong one is left out and named."""
    found = Settings()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        found.problems.append(f"kalimambo.toml is not valid TOML ({error}): every setting "
                              "has its default until it is mended")
        return found
    known = {(s.section, s.key): s for s in SETTINGS}
    for section, values in data.items():
        if not isinstance(values, dict) or section not in SECTIONS:
            found.problems.append(f"kalimambo.toml: [{section}] is not a section this "
                                  f"card knows ({', '.join(SECTIONS)}); ignored")
            continue
        for key, value in values.items():
            setting = known.get((section, key))
            if setting is None:
                found.problems.append(f"{where(text, section, key)}: '{key}' is not a "
                                      f"setting of [{section}]; ignored")
                continue
            if setting.check is not None:
                checked = setting.check(value)
                if checked is None:
                    found.problems.append(f"{where(text, section, key)}: "
                                          f"{setting.shown(value)} is not {setting.means}; "
                                          "the default is used")
                else:
                    found.own[f"{section}.{key}"] = checked
                continue
            assert setting.board is not None
            problem = board_problem(board_text, {**found.board, setting.board: value})
            if problem:
                if setting.secret:
                    problem = f"it is not {setting.means}"
                found.problems.append(f"{where(text, section, key)}: {setting.shown(value)}: "
                                      f"{problem}; the board file's value is kept")
            else:
                found.board[setting.board] = value
    return found


def board_problem(board_text: str, values: Mapping[tuple[str, str], Any]) -> str | None:
    """Why the board file with ``values`` would not be one the lights accept, or None."""
    try:
        parse_hardware(tomllib.loads(with_values(board_text, values)))
    except (HardwareFileError, tomllib.TOMLDecodeError) as error:
        return str(error)
    return None


# ---- what this card chose once ----------------------------------------------------------

def busiest_channels() -> dict[int, int]:
    """How many Wi-Fi networks are heard near each of 1, 6 and 11 (empty: no scan)."""
    try:
        listed = subprocess.run(["nmcli", "-t", "-f", "CHAN", "device", "wifi", "list",
                                 "--rescan", "yes"], capture_output=True, text=True,
                                timeout=20, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    heard = [int(line) for line in listed.split() if line.isdigit()]
    return {channel: sum(abs(other - channel) < 5 for other in heard)
            for channel in CHANNELS}


def choose_channel(heard: Mapping[int, int], rng: random.Random) -> int:
    """The least crowded of 1, 6 and 11; among equals (or with no scan) any one, so cards
    that cannot hear each other yet still spread over the three."""
    quietest = min((heard.get(channel, 0) for channel in CHANNELS), default=0)
    return rng.choice([c for c in CHANNELS if heard.get(c, 0) == quietest])


def choose_identity(current_hostname: str, heard: Mapping[int, int]) -> dict[str, Any]:
    """What makes this card its own table, chosen once at its first boot."""
    rng = random.SystemRandom()
    return {
        "letters": "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(4)),
        "password": "-".join("".join(secrets.choice(PASSWORD_LETTERS) for _ in range(4))
                             for _ in range(3)),
        "channel": choose_channel(heard, rng),
        "first_hostname": current_hostname,
    }


def toml_lines(values: Mapping[str, Any]) -> str:
    return "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())


IDENTITY_KEYS = ("letters", "password", "channel")


def load_identity() -> dict[str, Any]:
    """This card's identity, chosen at its first boot and kept (chosen again only if the
    file is gone or unreadable)."""
    try:
        kept = tomllib.loads(CARD_FILE.read_text())
        if all(key in kept for key in IDENTITY_KEYS):
            return kept
    except (FileNotFoundError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        pass
    identity = choose_identity(current_hostname(), busiest_channels())
    write_private(CARD_FILE, "# Chosen at this card's first boot (deploy/card_setup.py)\n"
                  + toml_lines(identity), 0o600)
    return identity


def current_hostname() -> str:
    try:
        return Path("/etc/hostname").read_text().strip()
    except FileNotFoundError:
        return ""


def write_private(path: Path, text: str, mode: int, group: str | None = None) -> None:
    """Write a file whole (a power cut leaves the old or the new one), readable by no one
    else at any moment (the hotspot's password), then sync it and its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, text, mode, group)


# ---- the table this card is --------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    """What setup.sh is run with, and what the table is told."""

    name: str
    hotspot: bool
    ssid: str
    password: str
    channel: int
    country: str | None
    language: str | None

    def setup_args(self) -> list[str]:
        words = ["--port", "80", "--hostname", self.name]
        if not self.hotspot:
            return [*words, "--no-hotspot"]
        words += ["--hotspot", self.ssid, "--hotspot-channel", str(self.channel)]
        if self.password:
            words += ["--hotspot-password", self.password]
        if self.country:
            words += ["--country", self.country]
        return words


def decide(settings: Settings, identity: Mapping[str, Any]) -> Table:
    """kalimambo.toml's values where set and right, else this card's own."""
    own = settings.own
    first = str(identity.get("first_hostname", ""))
    # A name chosen in Raspberry Pi Imager (cloud-init or firstrun.sh) is kept; the file wins.
    chosen = first if first not in IMAGE_HOSTNAMES and HOSTNAME.match(first) else None
    name = own.get("table.name") or chosen or f"kalimambo-{identity['letters']}"
    return Table(name=name, hotspot=own.get("hotspot.enabled", True),
                 ssid=own.get("hotspot.name", name),
                 password=own.get("hotspot.password", identity["password"]),
                 channel=int(identity["channel"]), country=own.get("hotspot.country"),
                 language=own.get("table.language"))


def fingerprint(table: Table, board_text: str) -> str:
    setup = (REPO / "setup.sh").read_bytes()
    parts = json.dumps([table.setup_args(), board_text, hashlib.sha256(setup).hexdigest()])
    return hashlib.sha256(parts.encode()).hexdigest()


def run_setup(table: Table) -> bool:
    """``setup.sh`` with this card's settings (offline: the image has every package);
    whether it worked."""
    done = subprocess.run(["./setup.sh", *table.setup_args()], cwd=REPO, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False,
                          env={**os.environ, "KALIMAMBO_AT_BOOT": "1"})
    shown = done.stdout
    if table.password:
        shown = shown.replace(table.password, "********")
    print(shown, flush=True)
    return done.returncode == 0


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return b""


def set_read_only(cmdline_file: Path, on: bool) -> bool:
    """The read-only root on or off in cmdline.txt, for the next boot; whether that changed
    it (written whole: a cut leaves the old line or the new one, never a card that does
    not boot)."""
    text = cmdline_file.read_text()
    if read_only_in(text) == on:
        return False
    write_whole(cmdline_file, with_read_only(text, on))
    return True


def imager_runs_first(cmdline: str) -> bool:
    """Raspberry Pi Imager's Bookworm customisation (``systemd.run=.../firstrun.sh``) sets
    the user, Wi-Fi and host name during this boot, then reboots: the card chooses its
    table at the next boot, when the host name the user chose is there to keep."""
    return any(word.startswith("systemd.run=") and word.endswith("firstrun.sh")
               for word in cmdline.split())


def ssh_host_keys() -> None:
    """Raspberry Pi OS makes them at first boot; a backstop for an image without that."""
    ssh = Path("/etc/ssh")
    if ssh.is_dir() and not list(ssh.glob("ssh_host_*_key")) and Path(
            "/usr/bin/ssh-keygen").exists():
        subprocess.run(["ssh-keygen", "-A"], check=False)
        subprocess.run(["systemctl", "--no-block", "restart", "ssh.service"], check=False)


def volunteer_file(boot_mounted: bool) -> tuple[str, list[str]]:
    """kalimambo.toml's text, and what kept it from being read this boot.

    Without the boot partition (a device that did not come up in time) the copy kept at the
    last boot that read it stands in: the card stays the table it was."""
    if not boot_mounted:
        kept = SETTINGS_AS_READ.read_text(encoding="utf-8") if SETTINGS_AS_READ.exists() else ""
        return kept, ["the boot partition was not mounted this boot: kalimambo.toml "
                      + ("as last read is used" if kept else "not read: every setting has "
                         "its default") + "; the card's settings stay as they were"]
    try:
        text = SETTINGS_FILE.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = ""
    except (OSError, UnicodeDecodeError) as error:
        return "", [f"kalimambo.toml cannot be read ({error}): every setting has its default"]
    if read_bytes(SETTINGS_AS_READ) != text.encode():
        write_whole(SETTINGS_AS_READ, text, 0o600)  # (it may hold the hotspot password)
    return text, []


def main() -> int:
    ssh_host_keys()
    if imager_runs_first(KERNEL_CMDLINE.read_text()):
        print("Raspberry Pi Imager's firstrun.sh runs in this boot, then reboots: this card "
              "becomes its table at the next boot")
        return 0
    boot_mounted = os.path.ismount(BOOT_PARTITION)
    text, unread = volunteer_file(boot_mounted)
    board_text = BOARD_FILE.read_text()
    settings = read_settings(text, board_text)
    settings = replace(settings, problems=[*unread, *settings.problems])
    for problem in settings.problems:
        print(problem, file=sys.stderr, flush=True)
    identity = load_identity()
    table = decide(settings, identity)
    if settings.board:
        new_board = with_values(board_text, settings.board)
        if new_board != board_text:
            replace_text(BOARD_FILE, new_board)
            board_text = new_board
    wanted = fingerprint(table, board_text)
    applied = APPLIED_FILE.read_text().strip() if APPLIED_FILE.exists() else ""
    worked, config_before = True, read_bytes(CONFIG_FILE)
    if applied == wanted and current_hostname() == table.name:
        print(f"this card is the table '{table.name}'; nothing changed since the last boot")
    else:
        print(f"this card is the table '{table.name}' (hotspot "
              f"{repr(table.ssid) if table.hotspot else 'off'}, channel {table.channel}): "
              "./setup.sh with its settings", flush=True)
        worked = run_setup(table)
    problems = settings.problems
    if DATA_PROBLEM_FILE.exists():  # deploy/card_data.py's, this boot
        problems = [*problems, DATA_PROBLEM_FILE.read_text().strip()]
    if worked:
        write_private(APPLIED_FILE, wanted + "\n", 0o600)
    else:
        problems = [*problems, "setup.sh could not apply this card's settings: "
                               "journalctl -u kalimambo-card says why"]
        print(problems[-1], file=sys.stderr)
    # (the table starts after this unit: it reads the file then)
    write_private(TABLE_FILE, table_file_text(TableSettings(table.name, table.language,
                                                            tuple(problems))),
                  0o640, SERVICE_USER)
    read_only = bool(settings.own.get("card.read_only", True))
    print(f"the root is {'read-only' if read_only_in(KERNEL_CMDLINE.read_text()) else 'writable'}"
          " this boot", flush=True)
    reboot = ""  # (without the boot partition there is no config.txt or cmdline.txt)
    if boot_mounted and read_bytes(CONFIG_FILE) != config_before:
        reboot = "the strip's driver changed (config.txt)"
    if boot_mounted and CMDLINE_FILE.exists() and set_read_only(CMDLINE_FILE, read_only):
        reboot = f"the root becomes {'read-only' if read_only else 'writable'} (cmdline.txt)"
    if reboot:
        print(f"{reboot}: rebooting once", flush=True)
        subprocess.run(["systemctl", "--no-block", "reboot"], check=False)
    return 0 if worked else 1


if __name__ == "__main__":
    sys.exit(main())
