#!/usr/bin/env python3
"""``sudo ./setup.sh --image BASE.img[.xz] OUT.img``: a flashable card with the table on it.

Why this way (docs/IMAGE.md): the LED strip needs Raspberry Pi's own kernel, so the card
must start from the user's own Raspberry Pi OS Lite image (arm64, Bookworm or Trixie), as
CustomPiOS builds OctoPi: copy it, grow its root, mount it, run ``./setup.sh`` in a chroot
(under qemu-user on a PC), and write it back. The install is the one ``sudo ./setup.sh``
makes on a Pi 2-4 (rpi-ws281x compiled, lgpio, both venvs, the units), with the hotspot's
packages too, so that the card's first boot needs no network: there
``kalimambo-card.service`` (deploy/card_setup.py) gives the card its own name, hotspot,
channel and keys and runs ``setup.sh`` once more, offline, for the model it is on. The
root is read-only on the card from its first boot on (deploy/card_root.py: overlayroot in
the initramfs, which is made again here); what each card keeps lives on its data
partition (deploy/card_data.py).

Nothing of the building machine stays in the image: no SSH host key, no machine-id, no
random seed, no apt or pip cache, no package lists, no resolver or proxy settings (they
are passed to the chroot for the build only, as environment and bind mounts).

Runs in a mount namespace of its own (mounts vanish with it) and mounts the root with
``-o loop``, whose loop device is freed as the mount goes; a signal ends the build the same
way as an error does. Bad input: one line and exit status 2.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from card_root import with_read_only  # (beside it in deploy/)

REPO = Path(__file__).resolve().parent.parent
PROG = "setup.sh --image"
GROW_MIB = 1536
"""Room added to the root for the install (about 700 MB: compilers for rpi-ws281x, two
venvs) with some to spare; Raspberry Pi OS grows the root to the card at first boot."""
IN_IMAGE = "/usr/local/src/kalimambo"
"""Where the repository lives on the card: setup.sh runs from there, at build and boot
(not under /opt/kalimambo, which is setup.sh's own and goes with --uninstall)."""
PI_MODEL = "Raspberry Pi 4 Model B Rev 1.4"
"""The model the chroot shows setup.sh: a Pi 2-4 install (rpi-ws281x compiled) is the
larger one; on a Pi 5 the card's first boot switches the strip to the PIO driver."""
RELEASES = ("bookworm", "trixie")
HOTSPOT_PACKAGES = ("rfkill", "dnsmasq-base", "wpasupplicant")
"""What ``setup.sh --hotspot`` installs; in the image so that first boot needs none."""
DATA_PACKAGES = ("fdisk", "e2fsprogs")
"""sfdisk and mkfs.ext4 for the data partition (deploy/card_data.py): Raspberry Pi OS Lite
has them; the image does not count on it."""
READ_ONLY_PACKAGES = ("overlayroot",)
"""The read-only root (deploy/card_root.py), as raspi-config's overlay mode installs it."""
INITRAMFS_FILES = {
    "deploy/initramfs/kalimambo-hook": "etc/initramfs-tools/hooks/kalimambo",
    "deploy/initramfs/kalimambo-machine-id":
        "etc/initramfs-tools/scripts/init-bottom/kalimambo-machine-id"}
INITRAMFS_CONF = """\
# setup.sh --image (deploy/build_image.py): the initramfs is made in a chroot, where
# mkinitramfs cannot see the root's file system type; the card's root is ext4.
FSTYPE=ext4
"""
REMOUNT_FS_DROPIN = """\
# setup.sh --image (deploy/build_image.py): with the read-only root (overlayroot), / is an
# overlay in RAM over the root partition, mounted read-only at /media/root-ro; it cannot be
# remounted with the options of its fstab line, and nothing else is to remount then.
[Unit]
ConditionPathIsMountPoint=!/media/root-ro
"""
CLOUD_INIT_CONF = """\
# setup.sh --image (deploy/build_image.py): with a read-only root, cloud-init applies the
# boot partition's user-data at every boot; the card's SSH host keys are its own, kept on
# its data partition (deploy/card_data.py), and must not be made again each time.
ssh_deletekeys: false
"""
BUILD_ONLY_TOOLS = ("systemctl", "hostnamectl", "nmcli", "udevadm")
"""Need a running systemd or NetworkManager: in the chroot they only log (``systemctl
enable`` works on files alone and is handed on), and they are gone before the image is."""
CHROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PASSED_ENV = ("http_proxy", "https_proxy", "no_proxy", "HTTP_PROXY", "HTTPS_PROXY",
              "NO_PROXY", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")
"""The builder's network settings, for the build only: never written into the image."""
SYSTEMCTL_IN_CHROOT = """#!/bin/sh
if [ "$1" = enable ]; then
    shift
    args=""
    for word in "$@"; do [ "$word" = --now ] || args="$args $word"; done
    # shellcheck disable=SC2086
    exec /usr/bin/systemctl enable $args
fi
exit 0
"""
LEFT_OUT = ("/etc/ssh/ssh_host_*", "/var/lib/systemd/random-seed",
            "/var/lib/systemd/credential.secret", "/var/lib/dbus/machine-id",
            "/var/cache/apt/*.bin", "/var/cache/apt/archives/*.deb",
            "/var/cache/apt/archives/partial/*", "/var/lib/apt/lists/*", "/root/.cache",
            "/root/.bash_history", "/tmp/*", "/var/tmp/*", "/var/lib/kalimambo/*",
            f"{IN_IMAGE}/.lgd-nfy*")
"""Removed from the image at the end: each card makes its own, or none belongs there."""


class BuildError(Exception):
    """Why the build stopped, in one line for the person building."""


class Interrupted(BaseException):
    """A signal: the build stops and cleans up like after an error."""


def sh(*args: str | Path, check: bool = True, capture: bool = True,
       **kwargs: object) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(a) for a in args], text=True, check=False,
                          capture_output=capture, **kwargs)  # type: ignore[call-overload]
    if check and done.returncode != 0:
        detail = (done.stderr or done.stdout or "").strip().splitlines()
        raise BuildError(f"'{' '.join(str(a) for a in args)}' failed"
                         + (f": {detail[-1]}" if detail else ""))
    return done  # type: ignore[no-any-return]


# ---- the base image -----------------------------------------------------------------------

class Layout:
    """Where the two partitions of a Raspberry Pi OS image are, in bytes."""

    def __init__(self, image: Path) -> None:
        done = sh("sfdisk", "--json", image, check=False)
        if done.returncode != 0:
            raise BuildError("it has no partition table")
        table = json.loads(done.stdout)["partitiontable"]
        parts = table.get("partitions", [])
        if table.get("label") != "dos" or len(parts) != 2:
            raise BuildError(f"Raspberry Pi OS has an MBR with two partitions; this has a "
                             f"{table.get('label')} table with {len(parts)}")
        if parts[0].get("type") not in ("c", "b", "e") or parts[1].get("type") != "83":
            raise BuildError("Raspberry Pi OS has a FAT partition, then a Linux one; this "
                             f"has types {parts[0].get('type')} and {parts[1].get('type')}")
        sector = int(table.get("sectorsize", 512))
        self.sector = sector
        self.boot_start = int(parts[0]["start"]) * sector
        self.root_start_sector = int(parts[1]["start"])
        self.root_start = self.root_start_sector * sector
        self.root_size = int(parts[1]["size"]) * sector

    def mount_root(self, image: Path, root: Path, mounts: Mounts, options: str = "") -> None:
        """The root partition at ``root``, through a loop device freed with the mount."""
        mounts.mount("-o", f"loop,{options}offset={self.root_start},"
                           f"sizelimit={self.root_size}", image, root)

    def fat(self, image: Path) -> str:
        """mtools' name for the FAT partition (this machine may have no vfat to mount)."""
        return f"{image}@@{self.boot_start}"


def unpack_base(base: Path, out: Path) -> None:
    """The base, decompressed if it is .xz, as ``out`` (sparse where it can be)."""
    if base.suffix == ".xz":
        with out.open("wb") as sink:
            if subprocess.run(["xz", "-dc", str(base)], stdout=sink).returncode != 0:
                raise BuildError(f"{base} is not a readable .xz file")
    else:
        sh("cp", "--sparse=always", base, out)


def check_boot_partition(image: Path, layout: Layout) -> None:
    listing = sh("mdir", "-b", "-i", layout.fat(image), "::/", check=False)
    if listing.returncode != 0:
        raise BuildError("its first partition is not a FAT file system")
    names = {Path(line.strip()).name for line in listing.stdout.splitlines()}
    missing = [name for name in ("config.txt", "cmdline.txt") if name not in names]
    if missing:
        raise BuildError(f"its boot partition has no {' or '.join(missing)}")


AARCH64 = 183
"""ELF's e_machine for 64-bit Arm."""


def elf_machine(program: Path) -> int | None:
    """The CPU a program is built for (ELF header's e_machine), without running it."""
    try:
        header = program.read_bytes()[:20]
    except OSError:
        return None
    if header[:4] != b"\x7fELF" or len(header) < 20:
        return None
    return int.from_bytes(header[18:20], "little" if header[5] == 1 else "big")


def check_root(root: Path) -> str:
    """The release (bookworm or trixie) of an arm64 Raspberry Pi OS root, or why not."""
    release = ""
    os_release = root / "etc/os-release"
    if os_release.exists():
        found = re.search(r"^VERSION_CODENAME=(\S+)", os_release.read_text(), re.M)
        release = found.group(1).strip('"') if found else ""
    if release not in RELEASES:
        raise BuildError(f"its root is not Raspberry Pi OS Bookworm or Trixie "
                         f"(/etc/os-release says {release or 'nothing'})")
    if elf_machine(root / "usr/bin/dpkg") != AARCH64:
        raise BuildError("it is not a 64-bit (arm64) image: choose 'Raspberry Pi OS Lite "
                         "(64-bit)' in Raspberry Pi Imager")
    for needed in ("usr/bin/python3", "boot/firmware"):
        if not (root / needed).exists():
            raise BuildError(f"its root has no /{needed}")
    return release


# ---- mounting -----------------------------------------------------------------------------

class Mounts:
    """Every mount the build makes, undone in reverse order whatever happens."""

    def __init__(self) -> None:
        self.targets: list[Path] = []

    def mount(self, *args: str | Path) -> None:
        sh("mount", *args)
        self.targets.append(Path(args[-1]))

    def undo(self) -> None:
        for target in reversed(self.targets):
            sh("umount", "-R", target, check=False)
            if sh("findmnt", "-n", target, check=False).returncode == 0:
                sh("umount", "-R", "-l", target, check=False)
        self.targets.clear()


def grow(image: Path, layout: Layout) -> Layout:
    """The image file, its root partition and the root's file system ``GROW_MIB`` larger.

    Offline (e2fsck, then resize2fs on a loop device of the partition): an online resize
    needs CAP_SYS_RESOURCE, which a container may not give even to root."""
    with image.open("r+b") as handle:
        handle.truncate(image.stat().st_size + GROW_MIB * 1024 * 1024)
    sh("sfdisk", "--no-reread", "--no-tell-kernel", "-q", "-N", "2", image, input=", +\n")
    grown = Layout(image)
    device = sh("losetup", "--find", "--show", "--offset", str(grown.root_start),
                "--sizelimit", str(grown.root_size), image).stdout.strip()
    try:
        if sh("e2fsck", "-f", "-y", device, check=False).returncode > 1:
            raise BuildError("its root file system has errors e2fsck cannot mend")
        sh("resize2fs", device)
    finally:
        sh("losetup", "-d", device, check=False)
    return grown


@contextmanager
def chroot_ready(root: Path, boot_dir: Path, mounts: Mounts) -> Iterator[None]:
    """Kernel file systems, the boot partition's files at /boot/firmware, the model a Pi 4
    shows, and the builder's resolver and certificates (bind mounts: nothing written)."""
    mounts.mount("-t", "proc", "proc", root / "proc")
    mounts.mount("-t", "sysfs", "sysfs", root / "sys")
    mounts.mount("-t", "tmpfs", "-o", "mode=0755", "kalimambo-model", root / "sys/firmware")
    base = root / "sys/firmware/devicetree/base"
    base.mkdir(parents=True)
    (base / "model").write_bytes(PI_MODEL.encode() + b"\0")
    mounts.mount("--rbind", "/dev", root / "dev")
    mounts.mount("-t", "tmpfs", "-o", "mode=0755", "kalimambo-run", root / "run")
    mounts.mount("--bind", boot_dir, root / "boot/firmware")
    # The builder's resolver over the image's (NetworkManager's file on Pi OS, or a link
    # into /run, which is the tmpfs above here): nothing of it is written to the image.
    target = root / "etc/resolv.conf"
    if target.is_symlink():
        link = os.readlink(target)
        target = root / link.lstrip("/") if link.startswith("/") else target.parent / link
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    mounts.mount("--bind", "/etc/resolv.conf", target)
    bundle = Path("/etc/ssl/certs/ca-certificates.crt")
    inside = root / "etc/ssl/certs/ca-certificates.crt"
    if bundle.exists() and inside.exists():
        mounts.mount("--bind", bundle, inside)  # a proxy's own authority, if the builder has one
    yield


BINFMT = Path("/proc/sys/fs/binfmt_misc")


def arm64_runs_here(root: Path) -> None:
    """A PC runs the image's arm64 programs through qemu-user's binfmt entry (with the F
    flag, so the interpreter need not be inside the image); a 64-bit Pi runs them itself."""
    if elf_machine(root / "usr/bin/env") == elf_machine(Path("/proc/self/exe")):
        return  # the image's programs are this machine's own kind
    entry = BINFMT / "qemu-aarch64"
    if not (BINFMT / "register").exists():
        sh("mount", "-t", "binfmt_misc", "binfmt_misc", BINFMT, check=False)
    if not entry.exists() or "enabled" not in entry.read_text():
        sh("update-binfmts", "--enable", "qemu-aarch64", check=False)
    text = entry.read_text() if entry.exists() else ""
    if "enabled" not in text:
        raise BuildError("this machine cannot run arm64 programs: install qemu-user-static "
                         "and binfmt-support ('sudo apt-get install qemu-user-static "
                         "binfmt-support')")
    flags = re.search(r"^flags: (\S*)", text, re.M)
    if not flags or "F" not in flags.group(1):
        raise BuildError("qemu-aarch64's binfmt entry lacks the F flag (qemu-user-static "
                         "from Debian 11 or later sets it)")


def chroot(root: Path, command: str, log: Path) -> None:
    """``command`` as root in the image, the builder's proxy settings in its environment
    only; its output to ``log``, the last lines shown when it fails."""
    env = [f"{name}={os.environ[name]}" for name in PASSED_ENV if name in os.environ]
    with log.open("a") as out:
        out.write(f"\n$ {command}\n")
        out.flush()
        done = subprocess.run(
            ["chroot", str(root), "/usr/bin/env", "-i", f"PATH={CHROOT_PATH}", "HOME=/root",
             "LANG=C.UTF-8", "TERM=dumb", "DEBIAN_FRONTEND=noninteractive",
             "PIP_CERT=/etc/ssl/certs/ca-certificates.crt", "PIP_NO_CACHE_DIR=1",
             *env, "/bin/bash", "-c", command], stdout=out, stderr=subprocess.STDOUT,
            check=False)
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise BuildError(f"in the image, '{command}' failed ({done.returncode}); its last "
                         f"lines:\n{tail}")


def write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def copy_repository(root: Path) -> None:
    """The project as setup.sh needs it (what its own copy to /opt/kalimambo/src leaves
    out stays out here too: .git, venvs, tests, caches)."""
    target = root / IN_IMAGE.lstrip("/")
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    excludes = ["--exclude=./.git", "--exclude=./.venv", "--exclude=./tests",
                "--exclude=./node_modules", "--exclude=./build", "--exclude=./data",
                "--exclude=*.egg-info", "--exclude=__pycache__", "--exclude=.lgd-nfy*",
                "--exclude=.gunicorn", "--exclude=.pytest_cache", "--exclude=.mypy_cache",
                "--exclude=.ruff_cache", "--exclude=.hypothesis",
                # images, this one too while it is written, when built in the checkout
                "--exclude=*.img", "--exclude=*.img.xz", "--exclude=*.img.part",
                "--exclude=*.img.log"]
    pack = subprocess.Popen(["tar", "-C", str(REPO), *excludes, "--owner=0", "--group=0",
                             "-cf", "-", "."], stdout=subprocess.PIPE)
    sh("tar", "-C", target, "--no-same-owner", "-xf", "-", stdin=pack.stdout, capture=False)
    if pack.wait() != 0:
        raise BuildError(f"could not copy {REPO}")
    target.chmod(0o755)


CARD_UNITS = ("kalimambo-data.service", "kalimambo-card.service")
"""Each card's own, at every boot: its data partition, then its name, hotspot and settings."""
FIRST_BOOT_GROWTH = (" resize", " init=/usr/lib/raspberrypi-sys-mods/firstboot")
"""What Raspberry Pi OS's cmdline.txt carries for its first boot to grow the root over the
whole card (Trixie's initramfs, Bookworm's init): it would grow over the data partition."""


def make_room_for_the_data_partition(root: Path) -> None:
    """The data partition goes behind the root (deploy/card_data.py): Raspberry Pi OS must
    not grow the root over it at the first boot (its initramfs's and its unit's resize)."""
    (root / "var/lib/kalimambo-data").mkdir(mode=0o755, exist_ok=True)
    masked = root / "etc/systemd/system/rpi-resize.service"
    masked.unlink(missing_ok=True)
    masked.symlink_to("/dev/null")


BOOT_PARTITION_OPTIONS = "nofail,x-systemd.device-timeout=90s"
"""The boot partition's fstab line: a card whose boot partition does not come up in time
boots on without it (its settings as last read: deploy/card_setup.py), never into the
emergency shell a required mount gives, which no volunteer at a booth can get out of."""


def with_boot_partition_optional(fstab: str) -> str:
    """fstab with ``BOOT_PARTITION_OPTIONS`` on the /boot/firmware line (once)."""
    def optional(line: str) -> str:
        fields = line.split()
        if len(fields) < 4 or fields[0].startswith("#") or fields[1] != "/boot/firmware":
            return line
        options = [o for o in fields[3].split(",") if o != "defaults" and not (
            o == "nofail" or o.startswith("x-systemd.device-timeout="))]
        fields[3] = ",".join([*options, BOOT_PARTITION_OPTIONS] if options
                             else ["defaults", BOOT_PARTITION_OPTIONS])
        return "  ".join(fields)
    return "".join(optional(line.rstrip("\n")) + "\n" for line in fstab.splitlines())


def prepare_read_only_root(root: Path) -> None:
    """What the initramfs needs for a read-only root: the overlay module (missing after
    some kernel updates otherwise: raspi-config#306), the root's type, the machine-id
    kept on the data partition (deploy/initramfs/); no remount of the overlay at boot;
    SSH host keys that Raspberry Pi OS would make again (its unit deletes them first)
    come from the data partition, and cloud-init leaves them alone."""
    modules = root / "etc/initramfs-tools/modules"
    listed = modules.read_text() if modules.exists() else ""
    if "overlay" not in listed.split():
        write(modules, listed + ("" if listed.endswith("\n") or not listed else "\n")
              + "overlay\n")
    write(root / "etc/initramfs-tools/conf.d/kalimambo", INITRAMFS_CONF)
    for source, target in INITRAMFS_FILES.items():
        write(root / target, (REPO / source).read_text(), 0o755)
    write(root / "etc/systemd/system/systemd-remount-fs.service.d/kalimambo-read-only.conf",
          REMOUNT_FS_DROPIN)
    masked = root / "etc/systemd/system/regenerate_ssh_host_keys.service"
    masked.parent.mkdir(parents=True, exist_ok=True)
    masked.unlink(missing_ok=True)
    masked.symlink_to("/dev/null")
    if (root / "etc/cloud").is_dir():
        write(root / "etc/cloud/cloud.cfg.d/90-kalimambo.cfg", CLOUD_INIT_CONF)


def refresh_initramfs(root: Path, since: float, log: Path) -> None:
    """Every kernel's initramfs made again with overlayroot, unless overlayroot's trigger
    just did (it makes the newest kernel's only; Raspberry Pi OS has one for the Pi 2-4
    and one for the Pi 5). Raspberry Pi OS's own hook copies each to the boot partition
    (initramfs8, initramfs_2712)."""
    for initrd in sorted((root / "boot").glob("initrd.img-*")):
        if initrd.stat().st_mtime < since:
            version = initrd.name.removeprefix("initrd.img-")
            chroot(root, f"update-initramfs -u -k {version}", log)


def without_first_boot_growth(cmdline: str) -> str:
    """cmdline.txt without the words that grow the root at the first boot."""
    for word in FIRST_BOOT_GROWTH:
        cmdline = re.sub(rf"{re.escape(word)}(?=\s|$)", "", cmdline)
    return cmdline


def install(root: Path, log: Path) -> None:
    """``./setup.sh --port 80`` in the image, the hotspot's packages, the card's own unit."""
    for tool in BUILD_ONLY_TOOLS:
        write(root / "usr/local/sbin" / tool, SYSTEMCTL_IN_CHROOT if tool == "systemctl"
              else "#!/bin/sh\nexit 0\n", 0o755)
    write(root / "usr/sbin/policy-rc.d", "#!/bin/sh\nexit 101\n", 0o755)  # start nothing
    try:
        begun = time.time()
        prepare_read_only_root(root)  # before overlayroot's trigger makes the initramfs
        chroot(root, "apt-get update -qq", log)
        chroot(root, "apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 "
                     + " ".join(HOTSPOT_PACKAGES + DATA_PACKAGES + READ_ONLY_PACKAGES), log)
        refresh_initramfs(root, begun, log)
        chroot(root, f"cd {IN_IMAGE} && ./setup.sh --port 80", log)
        # The strip's driver follows the model the card boots on (Pi 5: PIO, else
        # rpi-ws281x), not the Pi 4 the chroot showed.
        board = root / "etc/kalimambo/board.toml"
        text = board.read_text()
        board.write_text(re.sub(r'^(backend\s*=\s*)"[a-z0-9]+"', r'\1"auto"', text,
                                count=1, flags=re.M))
        for unit in CARD_UNITS:
            shutil.copy(REPO / "deploy" / unit, root / "etc/systemd/system" / unit)
        chroot(root, "/usr/bin/systemctl enable " + " ".join(CARD_UNITS), log)
        make_room_for_the_data_partition(root)
        fstab = root / "etc/fstab"
        fstab.write_text(with_boot_partition_optional(fstab.read_text()))
        chroot(root, "apt-get clean", log)
    finally:
        for tool in BUILD_ONLY_TOOLS:
            (root / "usr/local/sbin" / tool).unlink(missing_ok=True)
        (root / "usr/sbin/policy-rc.d").unlink(missing_ok=True)


def leave_nothing_of_the_builder(root: Path) -> None:
    """Each card makes its own keys and ids at first boot; caches and lists go."""
    for pattern in LEFT_OUT:
        for path in root.glob(pattern.lstrip("/")):
            if path.is_symlink() and path.name == "machine-id":
                continue  # Debian's link to /etc/machine-id
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
    # systemd makes an id at first boot ("uninitialized": ConditionFirstBoot holds once).
    write(root / "etc/machine-id", "uninitialized\n", 0o444)


def fingerprints(folder: Path) -> dict[str, str]:
    """Each file under ``folder`` (its path there) to its SHA-256."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


def boot_files_back(image: Path, layout: Layout, boot_dir: Path,
                    before: dict[str, str]) -> None:
    """What the build changed on the boot partition (config.txt, cmdline.txt, the
    initramfs), and kalimambo.toml."""
    fat = layout.fat(image)
    for name, digest in fingerprints(boot_dir).items():
        if before.get(name) != digest:
            for parent in reversed(Path(name).parents[:-1]):
                sh("mmd", "-i", fat, f"::/{parent}", check=False)  # (there already: fine)
            sh("mcopy", "-o", "-i", fat, boot_dir / name, f"::/{name}")
    names = {Path(line.strip()).name for line in
             sh("mdir", "-b", "-i", fat, "::/").stdout.splitlines()}
    if "kalimambo.toml" not in names:
        sh("mcopy", "-i", fat, REPO / "deploy/kalimambo.toml", "::/kalimambo.toml")
        print("  kalimambo.toml written on the boot partition, for the volunteer")


def build(base: Path, out: Path) -> None:
    begun = time.monotonic()
    partial = out.with_name(out.name + ".part")
    log = out.with_name(out.name + ".log")
    log.write_text(f"setup.sh --image {base} {out}\n")
    mounts = Mounts()
    work = Path(tempfile.mkdtemp(prefix="kalimambo-image-"))
    try:
        print(f"copying {base} to {partial}", flush=True)
        unpack_base(base, partial)
        try:
            layout = Layout(partial)
            check_boot_partition(partial, layout)
        except BuildError as why:
            raise BuildError(f"{base} is not a Raspberry Pi OS Lite image: {why}") from None
        boot_dir = work / "boot"
        boot_dir.mkdir()
        sh("mcopy", "-s", "-p", "-n", "-i", layout.fat(partial), "::/*", boot_dir)
        before = fingerprints(boot_dir)
        root = work / "root"
        root.mkdir()
        layout.mount_root(partial, root, mounts, "ro,")
        try:
            release = check_root(root)
        except BuildError as why:
            raise BuildError(f"{base} is not a Raspberry Pi OS Lite image: {why}") from None
        mounts.undo()
        grown = grow(partial, layout)
        grown.mount_root(partial, root, mounts)
        print(f"  Raspberry Pi OS {release.capitalize()} (arm64); the root grown by "
              f"{GROW_MIB} MiB", flush=True)
        arm64_runs_here(root)
        copy_repository(root)
        print(f"installing (./setup.sh in the image; its output in {log})", flush=True)
        with chroot_ready(root, boot_dir, mounts):
            install(root, log)
        mounts.undo()
        grown.mount_root(partial, root, mounts)
        leave_nothing_of_the_builder(root)
        used = sh("df", "--output=used", "-B1", root).stdout.split()[-1]
        mounts.undo()
        cmdline = boot_dir / "cmdline.txt"
        cmdline.write_text(with_read_only(without_first_boot_growth(cmdline.read_text()),
                                          True))
        boot_files_back(partial, grown, boot_dir, before)
        partial.rename(out)
        took = time.monotonic() - begun
        size = out.stat().st_size
        print(f"built {out} in {took / 60:.0f} min {took % 60:.0f} s: {size / 1e9:.2f} GB "
              f"({int(used) / 1e9:.2f} GB in use in the root); flash it with Raspberry Pi "
              "Imager ('Use custom'), then edit kalimambo.toml on the card's boot partition")
    finally:
        mounts.undo()
        shutil.rmtree(work, ignore_errors=True)
        partial.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(f"{PROG}: needs BASE.img (or .img.xz) and OUT.img", file=sys.stderr)
        return 2
    base, out = Path(argv[0]), Path(argv[1])
    problem = None
    if os.geteuid() != 0:
        problem = "needs root (loop mounts, chroot): run it with sudo"
    elif not base.is_file():
        problem = f"{base}: no such file"
    elif not base.name.endswith((".img", ".img.xz")):
        problem = f"{base}: a Raspberry Pi OS image ends in .img or .img.xz"
    elif not out.name.endswith(".img"):
        problem = f"{out}: the image to write ends in .img"
    elif out.exists() and out.resolve() == base.resolve():
        problem = "BASE and OUT are the same file"
    elif not out.parent.is_dir():
        problem = f"{out.parent}: no such folder"
    if problem:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 2
    os.environ["MTOOLS_SKIP_CHECK"] = "1"  # a FAT made by another tool may not be "standard"
    if os.environ.get("KALIMAMBO_IMAGE_NAMESPACE") != "1":
        # A mount namespace of its own: whatever ends the build, its mounts go with it.
        os.environ["KALIMAMBO_IMAGE_NAMESPACE"] = "1"
        # In a chroot "/" is no mount point and cannot be made private: there the
        # namespace keeps its parent's propagation (a chroot's tools run in a private one).
        private = subprocess.run(["unshare", "--mount", "--propagation", "private", "true"],
                                 capture_output=True, check=False).returncode == 0
        os.execvp("unshare", ["unshare", "--mount", "--propagation",
                              "private" if private else "unchanged", "--",
                              sys.executable, *sys.argv])

    def stop(number: int, _frame: object) -> None:
        raise Interrupted(signal.Signals(number).name)

    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, stop)
    try:
        build(base, out)
    except BuildError as why:
        print(f"{PROG}: {why}", file=sys.stderr)
        return 2
    except Interrupted as why:
        print(f"{PROG}: stopped ({why}); nothing is left mounted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
