"""A stand-in for a flashed Raspberry Pi OS Lite image, made from Debian's archive.

``sudo ./setup.sh --image BASE.img OUT.img`` works on the image a user downloaded; that
image cannot be downloaded here, so its tests start from this one instead, laid out the
same way: an MBR with partition 1 FAT32 ``bootfs`` (from sector 16384, 512 MiB:
config.txt, cmdline.txt, overlays/, ``kernel8.img`` and ``initramfs8``, mounted at
/boot/firmware) and partition 2 ext4 ``rootfs``, both named by PARTUUID (disk id + number)
in cmdline.txt and /etc/fstab. The root is the cached arm64 Debian base dressed as
Raspberry Pi OS (tests/pi/piroot.py), then left as a fresh flash is: no machine id yet, no
SSH host keys (a first-boot unit makes them, as Raspberry Pi OS's does), and nothing of
the building host's (its resolv.conf, CA certificates or pip settings): the build under
test must reach the network on its own.

No loop device and no FAT mount (this machine's kernel has no vfat): the FAT side is made
with ``mkfs.fat --offset`` and filled with mtools, the ext4 side with ``mkfs.ext4 -d`` at
the partition's byte offset.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
from pathlib import Path

import piroot
from pitools import CheckFailed, sh

STANDIN_VERSION = "v3"  # bump when the layout or the dressing changes: the images are remade
SECTOR = 512
BOOT_START = 16384
"""Partition 1's first sector (8 MiB), as Raspberry Pi OS's images have it."""
BOOT_SECTORS = 512 * 1024 * 1024 // SECTOR
ROOT_START = BOOT_START + BOOT_SECTORS
BLOCK = 4096
ROOT_FREE = 400 * 1024 * 1024
"""Free space left in the root: Raspberry Pi OS Lite's images are about as tight (they
grow at first boot on the SD card); the build under test grows the image itself."""
JOURNAL = 64 * 1024 * 1024
"""mke2fs's journal for a file system of 1-16 GiB."""
MTOOLS_ENV = {**os.environ, "MTOOLS_SKIP_CHECK": "1"}
"""mtools refuses a FAT whose geometry fields it finds odd; mkfs.fat's on a file are."""
HOST_TOOLS = {"mtools": "/usr/bin/mcopy", "dosfstools": "/usr/sbin/mkfs.fat",
              "fdisk": "/usr/sbin/sfdisk", "e2fsprogs": "/usr/sbin/mkfs.ext4"}
REGENERATE_SSH_HOST_KEYS = """\
[Unit]
Description=Regenerate SSH host keys
Before=ssh.service ssh.socket sshd-keygen.service
ConditionFileIsExecutable=/usr/bin/ssh-keygen

[Service]
Type=oneshot
ExecStart=/usr/bin/ssh-keygen -A -v
ExecStartPost=/usr/bin/systemctl disable regenerate_ssh_host_keys

[Install]
WantedBy=multi-user.target
"""
"""Raspberry Pi OS's (raspberrypi-sys-mods) first-boot unit, less its hardware RNG seed:
a flashed image carries no host keys, so every Pi gets its own. Before Debian trixie's own
sshd-keygen.service (first boot only), which then finds them made: without that order
both ran ``ssh-keygen -A`` at once, on the same files, in the first boot tried."""


INITRAMFS_TO_BOOT = """\
#!/bin/sh
# As Raspberry Pi OS's raspi-firmware hook does: a kernel's new initramfs goes onto the
# boot partition, where the firmware loads it (the stand-in has one kernel: initramfs8).
# update-initramfs runs this with the kernel version and the initramfs's path.
[ -d /boot/firmware ] && [ -n "$2" ] || exit 0
cp "$2" /boot/firmware/initramfs8
"""


def standin_image(release: str, log: Path) -> Path:
    """The stand-in base image for ``release``, made once (a few minutes) and kept."""
    image = piroot.CACHE / f"standin-{release}-{STANDIN_VERSION}.img"
    piroot.CACHE.mkdir(parents=True, exist_ok=True)
    with (piroot.CACHE / f"standin-{release}.lock").open("w") as lock:
        # Two runs asking at once: the second waits and takes the first one's image.
        fcntl.flock(lock, fcntl.LOCK_EX)
        if image.exists():
            print(f"cached: {image} ({image.stat().st_size / 2**30:.2f} GiB)")
            return image
        ensure_image_tools(log)
        piroot.ensure_host_tools(log)  # the dressing runs useradd in the arm64 root
        tarball, deb = piroot.base_and_lgpio(release, log)
        key = piroot.CACHE / "ssh-key"
        if not key.exists():
            sh("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key)
        root = piroot.CACHE / f"standin-{release}-root"
        partial = image.with_suffix(".part")
        try:
            piroot.unpack_root(tarball, root)
            disk_id = f"{secrets.randbits(32):08x}"
            boot = dress_as_flashed(root, release, deb, Path(f"{key}.pub").read_text(),
                                    disk_id, log)
            write_image(partial, root, boot, disk_id, log)
        finally:
            sh("rm", "-rf", "--one-file-system", root, boot_folder(root))
        partial.rename(image)
    print(f"made {image} ({image.stat().st_size / 2**30:.2f} GiB)")
    return image


def ensure_image_tools(log: Path) -> None:
    """mtools, dosfstools, sfdisk and mke2fs on this machine, from apt if missing."""
    missing = [pkg for pkg, tool in HOST_TOOLS.items() if not Path(tool).exists()]
    if missing:
        print(f"installing {' '.join(missing)} with apt")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        # dpkg's own lock too: ./setup.sh --dev's apt-get does not take piroot.APT's.
        apt = (*piroot.APT, "-o", "DPkg::Lock::Timeout=1800")
        sh(*apt, "update", "-qq", log=log)
        sh(*apt, "install", "-y", "-qq", "--no-install-recommends", *missing, log=log, env=env)


def dress_as_flashed(root: Path, release: str, deb: Path, public_key: str, disk_id: str,
                     log: Path) -> Path:
    """Dress the root as Raspberry Pi OS (as the emulated Pi's is), then take away what a
    flashed image has not; the boot partition's files, moved out of the root."""
    host_gave = ("etc/pip.conf", "etc/ssl/certs/ca-certificates.crt")
    before = {name: snapshot(root / name) for name in host_gave}
    local_cas = root / "usr/local/share/ca-certificates"
    had_cas = set(local_cas.rglob("*")) if local_cas.is_dir() else set()
    piroot.dress_as_raspberry_pi(root, release, deb, public_key, log)
    piroot.undress_for_boot(root)
    # Nothing of this host's: its resolver, its CAs (the bundle too), its pip settings.
    for name, was in before.items():
        restore(root / name, was)
    # Empty, not the base's: mmdebstrap left this host's resolver in the tarball too.
    # NetworkManager writes it from the DHCP lease at boot.
    restore(root / "etc/resolv.conf", ("file", b""))
    for path in sorted(set(local_cas.rglob("*")) - had_cas, reverse=True):
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink()
    # A first boot's: systemd makes the machine id, the unit below the host keys.
    (root / "etc/machine-id").write_text("uninitialized\n")
    dbus_id = root / "var/lib/dbus/machine-id"
    if dbus_id.exists() or dbus_id.is_symlink():
        dbus_id.unlink()
    dbus_id.parent.mkdir(parents=True, exist_ok=True)
    dbus_id.symlink_to("/etc/machine-id")
    for host_key in (root / "etc/ssh").glob("ssh_host_*"):
        host_key.unlink()
    unit = root / "usr/lib/systemd/system/regenerate_ssh_host_keys.service"
    piroot.write(unit, REGENERATE_SSH_HOST_KEYS)
    wants = root / "etc/systemd/system/multi-user.target.wants"
    wants.mkdir(parents=True, exist_ok=True)
    (wants / unit.name).symlink_to(f"/usr/lib/systemd/system/{unit.name}")
    piroot.write(root / "etc/fstab",
                 "proc            /proc           proc    defaults          0       0\n"
                 f"PARTUUID={disk_id}-01  /boot/firmware  vfat    defaults          0       2\n"
                 f"PARTUUID={disk_id}-02  /               ext4    defaults,noatime  0       1\n")
    piroot.write(root / "etc/initramfs/post-update.d/z50-raspi-firmware", INITRAMFS_TO_BOOT,
                 0o755)
    modules = sorted((root / "usr/lib/modules").glob("*/kernel/fs/fat/vfat.ko*"))
    if not modules:
        raise CheckFailed(f"no vfat module in {root}/usr/lib/modules: /boot/firmware "
                          "could not be mounted")
    # The boot partition's files leave the root: /boot/firmware is its mount point.
    boot = boot_folder(root)
    if boot.exists():
        shutil.rmtree(boot)
    shutil.move(root / "boot/firmware", boot)
    (root / "boot/firmware").mkdir(mode=0o755)
    kernels = sorted((root / "boot").glob("vmlinuz-*"))
    initrds = sorted((root / "boot").glob("initrd.img-*"))
    if not kernels or not initrds:
        raise CheckFailed(f"no kernel or initramfs in {root}/boot")
    shutil.copyfile(kernels[-1], boot / "kernel8.img")
    shutil.copyfile(initrds[-1], boot / "initramfs8")
    # Raspberry Pi OS Trixie's words, " resize" among them (its initramfs grows the root
    # at the first boot; this one's does not, and setup.sh --image takes the word out).
    (boot / "cmdline.txt").write_text(
        f"console=serial0,115200 console=tty1 root=PARTUUID={disk_id}-02 rootfstype=ext4 "
        "fsck.repair=yes rootwait resize\n")
    return boot


def boot_folder(root: Path) -> Path:
    """Where the boot partition's files wait, beside the root, until the FAT is made."""
    return root.parent / f"{root.name}-bootfs"


Snapshot = tuple[str, bytes | str] | None
"""A file as it was: ("link", target), ("file", content), or None when there was none."""


def snapshot(path: Path) -> Snapshot:
    if path.is_symlink():
        return ("link", os.readlink(path))
    if path.is_file():
        return ("file", path.read_bytes())
    return None


def restore(path: Path, was: Snapshot) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()
    if was is None:
        return
    kind, value = was
    if kind == "link":
        path.symlink_to(value)
    else:
        path.write_bytes(value if isinstance(value, bytes) else value.encode())


def tree_bytes(root: Path) -> int:
    """What the root takes in 4 KiB blocks (du's view, whatever this host's file system)."""
    total = 0
    for folder, _, files in os.walk(root):
        total += BLOCK
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink():
                total += -(-path.stat().st_size // BLOCK) * BLOCK
    return total


def write_image(image: Path, root: Path, boot: Path, disk_id: str, log: Path) -> None:
    """The MBR, the FAT32 ``bootfs`` filled from ``boot``, the ext4 ``rootfs`` from ``root``."""
    content = tree_bytes(root)
    # Inode tables (mke2fs: 256 bytes per 16 KiB) and the journal on top of content + free.
    root_bytes = (content + ROOT_FREE + JOURNAL) * 1025 // 1000
    root_blocks = -(-root_bytes // (4 * 2**20)) * (4 * 2**20) // BLOCK
    root_sectors = root_blocks * BLOCK // SECTOR
    image.unlink(missing_ok=True)
    with image.open("wb") as handle:
        handle.truncate((ROOT_START + root_sectors) * SECTOR)
    table = (f"label: dos\nlabel-id: 0x{disk_id}\nunit: sectors\n\n"
             f"start={BOOT_START}, size={BOOT_SECTORS}, type=c\n"
             f"start={ROOT_START}, size={root_sectors}, type=83\n")
    sh("sfdisk", "--quiet", "--no-reread", "--no-tell-kernel", image, input=table)
    sh("mkfs.fat", "-F", "32", "-n", "bootfs", "-S", str(SECTOR), "--offset", str(BOOT_START),
       image, str(BOOT_SECTORS * SECTOR // 1024), log=log)
    fat = f"{image}@@{BOOT_START * SECTOR}"
    for path in sorted(boot.rglob("*")):
        target = "::/" + str(path.relative_to(boot))
        if path.is_dir():
            sh("mmd", "-i", fat, target, env=MTOOLS_ENV, log=log)
        else:
            sh("mcopy", "-i", fat, path, target, env=MTOOLS_ENV, log=log)
    # nodiscard: discarding a file punches holes, and the partition table and FAT are in it.
    sh("mkfs.ext4", "-q", "-F", "-L", "rootfs", "-b", str(BLOCK), "-d", root,
       "-E", f"offset={ROOT_START * SECTOR},root_owner=0:0,nodiscard", image, str(root_blocks),
       log=log)
    dumped = sh("sfdisk", "--dump", image).stdout
    if f"label-id: 0x{disk_id}" not in dumped or "type=c" not in dumped:
        raise CheckFailed(f"the partition table of {image} is not the one written:\n{dumped}")
    # e2fsprogs opens a file system inside a file by "FILE?offset=BYTES".
    rootfs = f"{image}?offset={ROOT_START * SECTOR}"
    sh("e2fsck", "-f", "-n", rootfs, log=log)
    listed = [name.rstrip("/") for name in
              sh("mdir", "-i", fat, "-b", "::/", env=MTOOLS_ENV).stdout.split()]
    wanted = {"::/" + path.name for path in boot.iterdir()}
    if not wanted <= set(listed):
        raise CheckFailed(f"bootfs holds {listed}, not {sorted(wanted)}")
    header = sh("dumpe2fs", "-h", rootfs).stdout
    fields = dict(line.split(":", 1) for line in header.splitlines() if ":" in line)
    free = int(fields["Free blocks"]) * int(fields["Block size"])
    print(f"  rootfs: {root_blocks * BLOCK / 2**20:.0f} MiB, {free / 2**20:.0f} MiB free; "
          f"bootfs: {BOOT_SECTORS * SECTOR / 2**20:.0f} MiB")
