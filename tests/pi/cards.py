"""Cards flashed from ``setup.sh --image``, for tests/pi/run-emulated --image.

The stand-in for the user's Raspberry Pi OS Lite image (tests/pi/standin.py) goes through
``sudo ./setup.sh --image`` as a volunteer runs it; the result is checked loop-mounted for
anything of the building machine, then copied to two cards, each booted whole (its own
cmdline.txt, its FAT and ext4 partitions) with no network route out. What each card chose
at its first boot is read back over SSH, and the two must differ in every item a hall of
tables needs to differ in.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import piroot
from pitools import CheckFailed, sh, wait_for
from pivm import Machine, fat_partition_offset

sys.path.insert(0, str(piroot.REPO / "deploy"))
from card_root import LOWER_ROOT, NO_ROOT_CHECK, READ_ONLY_WORD  # (deploy/ holds scripts)

MTOOLS_ENV = {**os.environ, "MTOOLS_SKIP_CHECK": "1"}
REPO_ON_CARD = "/usr/local/src/kalimambo"
"""Where setup.sh --image puts the repository on a card (deploy/build_image.py)."""



@dataclass(frozen=True)
class Identity:
    """What makes a card its own table, as read back from the booted card."""

    hostname: str
    mdns: str
    ssid: str
    password: str
    channel: int
    machine_id: str
    ssh_host_key: str
    table_key: str

    def shared_with(self, other: Identity) -> list[str]:
        """The items that are the same on both cards (none should be)."""
        return [name for name in ("hostname", "mdns", "ssid", "password", "machine_id",
                                  "ssh_host_key", "table_key")
                if getattr(self, name) == getattr(other, name)]


def build_image(base: Path, out: Path, log: Path) -> tuple[float, str]:
    """``sudo ./setup.sh --image BASE OUT`` as a volunteer runs it: its seconds and the line
    it ends with (time and size)."""
    begun = time.monotonic()
    done = sh(str(piroot.REPO / "setup.sh"), "--image", base, out, check=False, log=log,
              timeout=7200)
    took = time.monotonic() - begun
    text = log.read_text(errors="replace")
    if done.returncode != 0 or not out.exists():
        raise CheckFailed(f"setup.sh --image failed ({done.returncode}):\n"
                          + "\n".join(text.splitlines()[-30:]))
    built = [line for line in text.splitlines() if line.startswith("built ")]
    return took, built[-1] if built else ""


def partitions(image: Path) -> list[tuple[int, int]]:
    """(byte offset, byte size) of each partition."""
    table = json.loads(sh("sfdisk", "--json", image).stdout)["partitiontable"]
    sector = int(table.get("sectorsize", 512))
    return [(int(p["start"]) * sector, int(p["size"]) * sector) for p in table["partitions"]]


class MountedRoot:
    """The image's root partition loop-mounted (read-only unless asked) for a look."""

    def __init__(self, image: Path, writable: bool = False) -> None:
        self.image = image
        self.writable = writable
        self.dir = Path(tempfile.mkdtemp(prefix="kalimambo-card-"))

    def __enter__(self) -> Path:
        offset, size = partitions(self.image)[1]
        mode = "rw" if self.writable else "ro,noload"
        sh("mount", "-o", f"loop,{mode},offset={offset},sizelimit={size}", self.image,
           self.dir)
        return self.dir

    def __exit__(self, *exc: object) -> None:
        sh("umount", self.dir, check=False)
        self.dir.rmdir()


def host_traces() -> list[tuple[str, bytes]]:
    """What of this machine could leak into an image: its name, its local certificate
    authorities, its resolver."""
    name = socket.gethostname()
    traces = [] if len(name) < 6 or name in ("localhost", "raspberrypi") else [
        ("this machine's host name", name.encode())]  # (a short, common one is no trace)
    local = Path("/usr/local/share/ca-certificates")
    for crt in sorted(local.rglob("*.crt")) if local.is_dir() else []:
        lines = crt.read_bytes().splitlines()
        if len(lines) > 3:  # one line of its base64, deep enough to be its own
            traces.append((f"this machine's certificate authority {crt.name}", lines[3]))
    resolv = Path("/etc/resolv.conf").read_bytes()
    servers = re.findall(rb"^nameserver\s+(\S+)", resolv, re.M)
    traces += [(f"this machine's name server {s.decode()}", b"nameserver " + s)
               for s in servers if not s.startswith(b"127.")]
    return traces


def check_nothing_of_the_builder(image: Path) -> list[str]:
    """The image holds no identity and nothing of the machine that built it; returns
    what was looked for (each one a check that held)."""
    looked: list[str] = []
    problems: list[str] = []

    def absent(root: Path, pattern: str, what: str) -> None:
        found = [str(p.relative_to(root)) for p in root.glob(pattern.lstrip("/"))
                 if not (p.is_symlink() and p.name == "machine-id")]
        looked.append(what)
        if found:
            problems.append(f"{what}: {found[:5]}")

    with MountedRoot(image) as root:
        absent(root, "/etc/ssh/ssh_host_*", "SSH host keys")
        machine_id = (root / "etc/machine-id").read_text().strip()
        looked.append("a machine-id")
        if machine_id not in ("", "uninitialized"):
            problems.append(f"/etc/machine-id holds {machine_id!r}")
        absent(root, "/var/lib/dbus/machine-id", "a D-Bus machine-id file")
        absent(root, "/var/lib/systemd/random-seed", "systemd's random seed")
        absent(root, "/var/lib/systemd/credential.secret", "systemd's credential secret")
        absent(root, "/var/lib/kalimambo/*", "a table key or any table data")
        for name in ("card.toml", "table.toml", "card-applied", "hotspot.toml"):
            absent(root, f"/etc/kalimambo/{name}", f"a card's own /etc/kalimambo/{name}")
        absent(root, "/etc/NetworkManager/system-connections/kalimambo-hotspot*",
               "a hotspot connection (each card makes its own)")
        absent(root, "/var/cache/apt/archives/*.deb", "apt's downloaded packages")
        absent(root, "/var/lib/apt/lists/*_Packages", "apt's package lists")
        absent(root, "/root/.cache", "root's caches (pip)")
        absent(root, "/usr/sbin/policy-rc.d", "the build's policy-rc.d")
        for tool in ("systemctl", "hostnamectl", "nmcli", "udevadm"):
            absent(root, f"/usr/local/sbin/{tool}", f"the build's stand-in {tool}")
        absent(root, "/usr/bin/qemu-aarch64*", "qemu-user")
        absent(root, "/etc/apt/apt.conf.d/*proxy*", "an apt proxy setting")
        absent(root, "/etc/pip.conf", "a pip configuration")
        absent(root, f"{REPO_ON_CARD}/.git", "the builder's git history")
        absent(root, f"{REPO_ON_CARD}/tests", "the tests")
        environment = (root / "etc/environment").read_text() if (
            root / "etc/environment").exists() else ""
        looked.append("a proxy in /etc/environment")
        if "proxy" in environment.lower():
            problems.append("/etc/environment names a proxy")
        searched = [root / "etc", root / "root", root / "var/lib/kalimambo",
                    root / "opt/kalimambo/venv/pyvenv.cfg"]
        for what, needle in host_traces():
            looked.append(what)
            hits = sh("grep", "-rlswF", "--", needle.decode(errors="replace"),
                      *[str(p) for p in searched if p.exists()], check=False).stdout.split()
            if hits and needle.strip():
                problems.append(f"{what} in {hits[:3]}")
        for target, unit in (("multi-user", "kalimambo-card"), ("sysinit", "kalimambo-data")):
            wanted = root / f"etc/systemd/system/{target}.target.wants/{unit}.service"
            looked.append(f"{unit}.service enabled (a positive check)")
            if not wanted.is_symlink():
                problems.append(f"{unit}.service is not enabled")
        # Raspberry Pi OS's first-boot units: one would grow the root over the data
        # partition, the other delete the SSH host keys the card keeps there.
        for unit in ("rpi-resize", "regenerate_ssh_host_keys"):
            masked = root / f"etc/systemd/system/{unit}.service"
            looked.append(f"{unit}.service masked (a positive check)")
            if not (masked.is_symlink() and str(masked.readlink()) == "/dev/null"):
                problems.append(f"{unit}.service is not masked")
        absent(root, "/var/lib/kalimambo-card-applied", "a card's own setup fingerprint")
        # A boot partition that does not come up in time must not stop the card's boot.
        boot_lines = [line.split() for line in (root / "etc/fstab").read_text().splitlines()
                      if len(line.split()) >= 4 and line.split()[1] == "/boot/firmware"]
        looked.append("nofail on the boot partition's line in /etc/fstab (a positive check)")
        if not boot_lines or "nofail" not in boot_lines[0][3].split(","):
            problems.append(f"the boot partition's fstab line would stop the boot: {boot_lines}")
        for script in ("hooks/kalimambo", "scripts/init-bottom/kalimambo-machine-id"):
            looked.append(f"the initramfs's {script} (a positive check)")
            if not (root / "etc/initramfs-tools" / script).exists():
                problems.append(f"no /etc/initramfs-tools/{script}")
    fat = f"{image}@@{fat_partition_offset(image)}"
    listed = sh("mdir", "-b", "-i", fat, "::/", env=MTOOLS_ENV).stdout
    looked.append("kalimambo.toml on the boot partition (a positive check)")
    if "kalimambo.toml" not in listed:
        problems.append("no kalimambo.toml on the boot partition")
    cmdline = sh("mtype", "-i", fat, "::/cmdline.txt", env=MTOOLS_ENV).stdout.split()
    looked.append("no first-boot growth of the root in cmdline.txt (resize, init=)")
    if "resize" in cmdline or any(word.startswith("init=") for word in cmdline):
        problems.append(f"cmdline.txt grows the root at the first boot: {cmdline}")
    looked.append(f"{READ_ONLY_WORD} {NO_ROOT_CHECK} in cmdline.txt (a positive check)")
    if READ_ONLY_WORD not in cmdline or NO_ROOT_CHECK not in cmdline:
        problems.append(f"cmdline.txt does not make the root read-only: {cmdline}")
    if problems:
        raise CheckFailed("the image holds what it must not:\n  " + "\n  ".join(problems))
    return looked


CARD_ROOM_MIB = 640
"""A card is larger than the image: the room behind it, where the first boot makes the
data partition (deploy/card_data.py)."""
DATA_MOUNT = "/var/lib/kalimambo-data"


def flash(image: Path, card: Path, settings: str | None = None) -> None:
    """A copy of the image as one card (with room behind it, as on any real card);
    ``settings`` (if given) as its kalimambo.toml, written from a laptop onto the FAT
    partition."""
    sh("cp", "--sparse=always", image, card)
    with card.open("r+b") as handle:
        handle.truncate(card.stat().st_size + (CARD_ROOM_MIB << 20))
    if settings is not None:
        text = card.with_suffix(".toml")
        text.write_text(settings)
        sh("mcopy", "-o", "-i", f"{card}@@{fat_partition_offset(card)}", text,
           "::/kalimambo.toml", env=MTOOLS_ENV)


def add_test_rig(card: Path, attack_tools: str, log: Path) -> None:
    """The test's own tools on the card before its first boot, as a person would copy them:
    the checkout at /home/pi/kalimambo (the guest probe, the attack tests), and pytest
    for them (pure Python, fetched here) beside the services' venv."""
    with MountedRoot(card, writable=True) as root:
        piroot.copy_checkout(root)
        target = root / attack_tools.lstrip("/")
        sh(*piroot.pip_command(), "install", "--quiet", "--no-compile", "--target", target,
           "pytest", log=log)


def identity(pi: Machine) -> Identity:
    """What this card chose at its first boot and uses, read off the running card."""
    card = tomllib.loads(pi.ssh("cat /etc/kalimambo/card.toml").stdout)
    hostname = pi.ssh("hostname").stdout.strip()
    hotspot = tomllib.loads(pi.ssh("cat /etc/kalimambo/hotspot.toml").stdout)
    channel = pi.ssh("nmcli -g 802-11-wireless.channel connection show kalimambo-hotspot"
                     ).stdout.strip()
    mdns = wait_for(f"{hostname}.local on the card itself", lambda: pi.ssh(
        f"getent hosts {hostname}.local", check=False).stdout.split()[:1], ceiling=120,
        every=3)[0]
    key = pi.ssh("ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub").stdout.split()[1]
    journal = pi.ssh("journalctl -b -u kalimambo -o cat --no-pager", check=False).stdout
    keys = re.findall(r"Host link.*#key=(\S+)", journal)
    if not keys:
        raise CheckFailed("no host link in the table's journal")
    found = Identity(hostname=hostname, mdns=f"{hostname}.local -> {mdns}",
                     ssid=str(hotspot["name"]), password=str(hotspot.get("password", "")),
                     channel=int(channel or 0),
                     machine_id=pi.ssh("cat /etc/machine-id").stdout.strip(),
                     ssh_host_key=key, table_key=keys[-1])
    if hostname != f"kalimambo-{card['letters']}" and not card.get("first_hostname"):
        raise CheckFailed(f"the card is called {hostname!r}, not kalimambo-{card['letters']}")
    if found.channel not in (1, 6, 11):
        raise CheckFailed(f"the hotspot is on channel {found.channel}, not 1, 6 or 11")
    if found.password != card["password"] or found.ssid != hostname:
        raise CheckFailed(f"the hotspot is {found.ssid!r} with {found.password!r}; the card "
                          f"chose {card}")
    if not re.fullmatch(r"[0-9a-f]{32}", found.machine_id):
        raise CheckFailed(f"the machine-id is {found.machine_id!r}")
    return found


def card_journal(pi: Machine) -> str:
    """What kalimambo-card.service said in this boot (kalimambo.toml's problems too)."""
    return pi.ssh("journalctl -b -u kalimambo-card -o cat --no-pager", check=False).stdout


def check_data_partition(pi: Machine) -> str:
    """The data partition the card made behind its root: labelled, mounted for sudden
    power loss, the card's settings, games and network connections on it."""
    source, options = pi.ssh(f"findmnt -no SOURCE,OPTIONS {DATA_MOUNT}",
                             check=False).stdout.split() or ["", ""]
    label = pi.ssh(f"blkid -o value -s LABEL {source}", check=False).stdout.strip()
    binds = {place: pi.ssh(f"findmnt -no SOURCE {place}", check=False).stdout.strip()
             for place in ("/etc/kalimambo", "/var/lib/kalimambo",
                           "/etc/NetworkManager/system-connections")}
    wanted = {"/etc/kalimambo": f"{source}[/etc]", "/var/lib/kalimambo": f"{source}[/games]",
              "/etc/NetworkManager/system-connections": f"{source}[/network]"}
    games = pi.ssh(f"test -s {DATA_MOUNT}/games/kalimambo.sqlite3", check=False).returncode
    if (not re.fullmatch(r"/dev/vda3", source) or label != "kalimambo-data"
            or not {"noatime", "data=journal"} <= set(options.split(","))
            or binds != wanted or games != 0):
        raise CheckFailed(f"the data partition: {source or 'not mounted'} {label!r} "
                          f"({options}); bound: {binds}; the game store there: {games == 0}")
    size = pi.ssh(f"df -BM --output=size {DATA_MOUNT}").stdout.split()[-1]
    return f"{source} ({size}, {label}, data=journal), settings, games and connections on it"


# ---- the read-only root -------------------------------------------------------------------

def root_digest(card: Path) -> str:
    """SHA-256 of the card's root partition (partition 2), read from the card file: a
    read-only root is the image's, bit for bit, whatever happened to the card."""
    offset, size = partitions(card)[1]
    digest = hashlib.sha256()
    with card.open("rb") as handle:
        handle.seek(offset)
        left = size
        while left:
            chunk = handle.read(min(left, 8 << 20))
            if not chunk:
                raise CheckFailed(f"{card} ends inside its root partition")
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


def root_mode(pi: Machine) -> str:
    """``read-only`` (overlayroot: / an overlay in RAM, the root partition read-only under
    it) or ``writable`` (the root partition itself, read-write), or what else it is."""
    root = pi.ssh("findmnt -no FSTYPE,OPTIONS /").stdout.split()
    lower = pi.ssh(f"findmnt -no SOURCE,OPTIONS {LOWER_ROOT}", check=False).stdout.split()
    if root[:1] == ["overlay"] and len(lower) == 2 and lower[0] == "/dev/vda2" \
            and "ro" in lower[1].split(","):
        return "read-only"
    if root[:1] == ["ext4"] and "rw" in root[1].split(",") and not lower:
        return "writable"
    return f"neither: / is {root}, {LOWER_ROOT} is {lower or 'not mounted'}"


BOOT_TROUBLE = ("emergency mode", "Give root password", "UNEXPECTED INCONSISTENCY",
                "recovery required on readonly filesystem", "Kernel panic",
                "You are in rescue mode")
"""What a console shows when a boot went wrong after a cut (or would write the root)."""


def boot_trouble(pi: Machine) -> list[str]:
    """The console's lines of this power-on that show a boot in trouble."""
    console = pi.work / f"console-{pi.boots}.log"
    text = console.read_text(errors="replace") if console.exists() else ""
    return [line.strip() for line in text.splitlines()
            if any(sign in line for sign in BOOT_TROUBLE)]


def set_card_settings(pi: Machine, lines: dict[str, str]) -> None:
    """Lines of kalimambo.toml set on the card's boot partition, as a volunteer does from
    a laptop: each ``key`` line (commented out or not) becomes ``key = value``."""
    for key, value in lines.items():
        pi.ssh(f"sed -i -E 's/^#?{key} = .*/{key} = {value}/' /boot/firmware/kalimambo.toml")
    pi.ssh("sync /boot/firmware/kalimambo.toml")
