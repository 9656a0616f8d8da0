#!/usr/bin/env python3
"""The card's data partition: made once, at a card's first boot, then checked, repaired
and mounted at every boot, before anything writes to it.

Why a partition of its own: at a booth the plug is pulled every evening. The games, the
archive and what makes the card its own table (``/etc/kalimambo``, the hotspot's
connection) live here, apart from the root that the OS, apt and the journal write to: a
cut that catches the root mid-write cannot take a game with it. It is ext4 with its data
journalled too (``data=journal``: a write is whole or absent after a cut, files and
metadata alike) and no access times; ``e2fsck`` repairs it at every boot without asking,
before it is mounted.

Every step can be cut at any moment; the next boot finds where it stopped and goes on:

1. the partition: none after the root, so one is appended in the free space behind it
   (``sfdisk --append``; the kernel learns it with ``partx``, the root still mounted);
2. its file system: made under a provisional label, which becomes ``kalimambo-data`` as
   the last step (a half-made file system never carries the final label);
3. at every boot: ``e2fsck -p`` (``-y`` when preening is not enough), the mount, and each
   of ``PLACES`` bound over its place: seeded once from what the image has there (copied
   beside, then renamed: a cut leaves no half copy);
4. what the card is, kept for a read-only root (deploy/card_root.py), which forgets every
   write at each boot: the machine-id systemd made at the first boot (the initramfs hands
   it back to systemd at later boots: deploy/initramfs/) and the SSH host keys (copied
   into /etc/ssh at every boot, before ssh starts).

Standard library only: it runs before the services' venv is needed.
"""

from __future__ import annotations

import argparse
import contextlib
import grp
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

LABEL = "kalimambo-data"
NEW_LABEL = "kalimambo-new"
"""The label while the file system is being made: a cut before ``e2label`` makes it again."""
MOUNT = Path("/var/lib/kalimambo-data")
MOUNT_OPTIONS = "noatime,data=journal,errors=remount-ro"
DATA_MIB = 1024
"""The partition's size on a card with room for it; a card with less gets what is left."""
MIN_MIB = 64
ALIGN_SECTORS = 8192
"""4 MiB in 512-byte sectors: where SD cards' erase blocks begin."""
SECTOR = 512
PLACES = {"etc": Path("/etc/kalimambo"),
          "games": Path("/var/lib/kalimambo"),
          "network": Path("/etc/NetworkManager/system-connections")}
"""What lives on the data partition (its folder there: its place in the root)."""
MACHINE_ID = Path("/etc/machine-id")
SSH_DIR = Path("/etc/ssh")
SSH_KEY_TYPES = ("rsa", "ecdsa", "ed25519")
"""What ``ssh-keygen -A`` makes, and OpenSSH's server looks for."""
PROBLEM_FILE = Path("/run/kalimambo-data.problem")
"""Why the data partition could not be used this boot, for the host page
(deploy/card_setup.py): the table then keeps its games on the root."""


class DataError(Exception):
    """The data partition cannot be made or used: one line for the journal and the host
    page."""


@dataclass(frozen=True)
class Disk:
    """The card: its device and the number of its root partition (the data one follows)."""

    device: str
    root_number: int

    @property
    def data_number(self) -> int:
        return self.root_number + 1


def run(*args: str | Path, stdin: str | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run([str(a) for a in args], input=stdin, capture_output=True,
                              text=True, check=False)
    except FileNotFoundError:
        raise DataError(f"{args[0]} is missing on this card") from None
    if check and done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines() or [f"exit {done.returncode}"]
        raise DataError(f"{Path(str(args[0])).name} failed: {said[-1]}")
    return done


def root_disk(cmdline: str) -> Disk:
    """The card the root was booted from, read from the kernel's command line (under an
    overlay, ``/`` names no device)."""
    found = re.search(r"(?:^|\s)root=(\S+)", cmdline)
    if not found:
        raise DataError("the kernel command line names no root")
    root = found.group(1)  # PARTUUID=..., as Raspberry Pi OS's cmdline.txt names it
    device = run("blkid", "-o", "device", "-t", root).stdout.strip() if "=" in root else root
    name = Path(os.path.realpath(device)).name
    number = Path(f"/sys/class/block/{name}/partition")
    if not device or not number.exists():
        raise DataError(f"the root {root} is no partition of a disk")
    disk = run("lsblk", "-ndo", "PKNAME", f"/dev/{name}").stdout.strip()
    return Disk(f"/dev/{disk}", int(number.read_text()))


def partitions(device: str) -> tuple[list[dict[str, int]], int]:
    """The disk's partitions (``node``'s number, ``start``, ``size`` in sectors) and its
    last usable sector."""
    table = json.loads(run("sfdisk", "--json", device).stdout)["partitiontable"]
    if table.get("label") != "dos":
        raise DataError(f"{device} has no MBR partition table")
    found = [{"number": int(re.findall(r"\d+$", p["node"])[0]), "start": int(p["start"]),
              "size": int(p["size"])} for p in table.get("partitions", [])]
    last = int(table.get("lastlba") or 0)
    if not last:
        last = int(run("blockdev", "--getsz", device).stdout) - 1
    return found, last


def partition_device(disk: Disk, number: int) -> str | None:
    """The device node of the disk's partition ``number``, once the kernel has it."""
    name = Path(disk.device).name
    for entry in Path(f"/sys/class/block/{name}").glob(f"{name}*"):
        part = entry / "partition"
        if part.exists() and int(part.read_text()) == number:
            return f"/dev/{entry.name}"
    return None


def ensure_partition(disk: Disk) -> str:
    """The data partition's device: made now if the disk has none after the root."""
    found, last = partitions(disk.device)
    numbers = {p["number"]: p for p in found}
    if disk.root_number not in numbers:
        raise DataError(f"{disk.device} has no partition {disk.root_number}")
    if disk.data_number not in numbers:
        root = numbers[disk.root_number]
        start = -(-(root["start"] + root["size"]) // ALIGN_SECTORS) * ALIGN_SECTORS
        room = last + 1 - start
        if any(p["start"] >= start for p in found) or room * SECTOR < MIN_MIB << 20:
            raise DataError(f"no room on the card for the data partition ({MIN_MIB} MiB "
                            "after the root): use a larger card")
        size = min(room, (DATA_MIB << 20) // SECTOR)
        run("sfdisk", "--append", "--no-reread", "--no-tell-kernel", disk.device,
            stdin=f"start={start}, size={size}, type=83\n")
        print(f"made the data partition: {size * SECTOR >> 20} MiB after the root",
              flush=True)
    device = partition_device(disk, disk.data_number)
    if device is None:  # the kernel reads the table at boot; a new entry needs telling
        run("partx", "--add", "--nr", str(disk.data_number), disk.device, check=False)
        run("udevadm", "settle", check=False)
        device = partition_device(disk, disk.data_number)
    if device is None:
        raise DataError(f"the kernel does not see partition {disk.data_number} of "
                        f"{disk.device}")
    return device


def label_of(device: str) -> str:
    return run("blkid", "-o", "value", "-s", "LABEL", device, check=False).stdout.strip()


def ensure_filesystem(device: str) -> None:
    """ext4 labelled ``LABEL`` on ``device``: made now unless it is there (whatever else
    the card held there before, or a file system a cut left half made)."""
    if label_of(device) == LABEL:
        return
    run("mkfs.ext4", "-q", "-F", "-L", NEW_LABEL, "-E",
        "lazy_itable_init=0,lazy_journal_init=0", device)
    run("e2label", device, LABEL)
    print(f"made the data partition's file system ({device})", flush=True)


def check(device: str) -> str | None:
    """``e2fsck``, never asking; what it repaired, or None when the file system was clean."""
    done = run("e2fsck", "-p", device, check=False)
    if done.returncode == 0:
        return None
    if done.returncode in (1, 2):
        return "repaired what a cut left (e2fsck -p)"
    forced = run("e2fsck", "-y", "-f", device, check=False)
    if forced.returncode not in (0, 1, 2):
        raise DataError(f"e2fsck could not repair the data partition {device} "
                        f"(exit {forced.returncode}): the table keeps its games in memory")
    return "repaired what preening could not (e2fsck -y)"


def mounted_at(path: Path) -> bool:
    return run("mountpoint", "-q", path, check=False).returncode == 0


def mount(device: str, at: Path) -> None:
    if mounted_at(at):
        return
    at.mkdir(parents=True, exist_ok=True)
    run("mount", "-t", "ext4", "-o", MOUNT_OPTIONS, device, at)


def bind_places(data: Path, places: dict[str, Path]) -> None:
    """Each place's folder on the data partition bound over it; seeded once from what the
    root has there, owners and modes kept (the table's folder is its user's; the hotspot's
    file root's and the table's group's): copied beside it, then renamed into place."""
    for name, place in places.items():
        kept = data / name
        if not kept.exists():
            seed = data / f".{name}.seed"
            shutil.rmtree(seed, ignore_errors=True)
            if place.is_dir():
                run("cp", "-a", place, seed)
            else:
                seed.mkdir(mode=0o755)
            os.sync()
            seed.rename(kept)
        place.mkdir(parents=True, exist_ok=True)
        if not mounted_at(place):
            run("mount", "--bind", kept, place)


def write_whole(path: Path, text: str, mode: int | None = None,
                group: str | None = None) -> None:
    """A file written beside, synced, then renamed: a cut leaves the old one or the new.
    With ``mode``, readable by no one else at any moment (a password): made 0600, given
    ``group`` (if there is one), then ``mode``, before it takes its place."""
    temp = path.with_name(f".{path.name}.new")
    temp.unlink(missing_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    with os.fdopen(os.open(temp, flags, 0o600 if mode is not None else 0o666), "w") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    if mode is not None:
        if group is not None:
            with contextlib.suppress(KeyError):  # (no such group: root's alone)
                os.chown(temp, 0, grp.getgrnam(group).gr_gid)
        os.chmod(temp, mode)
    os.replace(temp, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def keep_machine_id(data: Path, machine_id: Path = MACHINE_ID) -> None:
    """The id systemd made at the card's first boot, kept once it is made (a later boot
    of a read-only root gets it back from the initramfs: without it every boot would
    be a first boot, with a new id)."""
    kept = data / "machine-id"
    if kept.exists() or not machine_id.exists():
        return
    current = machine_id.read_text().strip()
    if re.fullmatch(r"[0-9a-f]{32}", current):
        write_whole(kept, current + "\n")


def keep_ssh_host_keys(data: Path, ssh_dir: Path = SSH_DIR) -> None:
    """The card's SSH host keys: made at its first boot and kept on the data partition,
    then put in ``ssh_dir`` at every boot where they are not (a read-only root forgets
    them; the image has none, so that every card has its own)."""
    if not ssh_dir.is_dir():
        return  # no OpenSSH on this card
    kept = data / "ssh"
    if not kept.is_dir():
        for kind in SSH_KEY_TYPES:
            key = ssh_dir / f"ssh_host_{kind}_key"
            if not key.exists():
                key.with_name(f"{key.name}.pub").unlink(missing_ok=True)
                run("ssh-keygen", "-q", "-t", kind, "-N", "", "-C", "", "-f", key)
        seed = data / ".ssh.seed"
        shutil.rmtree(seed, ignore_errors=True)
        seed.mkdir(mode=0o755)
        for key in ssh_dir.glob("ssh_host_*"):
            shutil.copy2(key, seed / key.name)
        os.sync()
        seed.rename(kept)
    for key in kept.glob("ssh_host_*"):
        target = ssh_dir / key.name
        if not target.exists() or target.read_bytes() != key.read_bytes():
            shutil.copy2(key, target)


def prepare(disk: Disk, at: Path, places: dict[str, Path]) -> str:
    """Every step, from wherever the last boot stopped: the data partition's device."""
    device = ensure_partition(disk)
    ensure_filesystem(device)
    repaired = check(device)
    if repaired:
        print(f"the data partition: {repaired}", flush=True)
    mount(device, at)
    bind_places(at, places)
    return device


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cmdline", type=Path, default=Path("/proc/cmdline"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        prepare(root_disk(args.cmdline.read_text()), MOUNT, PLACES)
        keep_machine_id(MOUNT)
        keep_ssh_host_keys(MOUNT)
    except DataError as why:
        print(f"the data partition: {why}", file=sys.stderr, flush=True)
        PROBLEM_FILE.write_text(f"the data partition: {why}\n")
        return 1
    PROBLEM_FILE.unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
