"""``setup.sh --image``: what it refuses (one line, exit 2, nothing written), and that it
leaves no mount, no loop device and no half image behind, after an error or a signal.

Small disk images are made here with sfdisk, mkfs.fat, mtools and mkfs.ext4 (the layout of
Raspberry Pi OS: MBR, FAT ``bootfs`` with config.txt and cmdline.txt, ext4 root). Needs
root (loop mounts), as the command does. The whole build on a stand-in Raspberry Pi OS
image, and the cards booted from it, run in tests/pi/run-emulated --image."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import ROOT

SETUP = ROOT / "setup.sh"
BUILDER = ROOT / "deploy" / "build_image.py"
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="loop mounts need root (CI is root)")
MIB = 1024 * 1024


def run(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True,
                          timeout=timeout, check=False)


def make_card(path: Path, *, boot_files: dict[str, str] | None = None,
              root: Path | None = None, label: str = "dos", parts: int = 2) -> Path:
    """A small image with Raspberry Pi OS's layout (or a broken one)."""
    boot_files = {"config.txt": "arm_64bit=1\n",
                  "cmdline.txt": "console=tty1 root=PARTUUID=1234abcd-02 rootwait\n"} \
        if boot_files is None else boot_files
    with path.open("wb") as handle:
        handle.truncate(96 * MIB)
    layout = ["start=2048, size=32768, type=c", "start=34816, type=83"][:parts]
    if label == "gpt":
        layout = ["start=2048, size=32768", "start=34816"]
    done = subprocess.run(["sfdisk", "-q", str(path)], input=f"label: {label}\n"
                          + "\n".join(layout) + "\n", text=True, capture_output=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert run("mkfs.fat", "-F", "16", "-n", "bootfs", "--offset", "2048", path,
               str(32768 // 2)).returncode == 0
    env_fat = f"{path}@@{2048 * 512}"
    for name, text in boot_files.items():
        source = path.with_name(name)
        source.write_text(text)
        assert subprocess.run(["mcopy", "-i", env_fat, str(source), f"::/{name}"],
                              env={**os.environ, "MTOOLS_SKIP_CHECK": "1"},
                              check=False).returncode == 0
    if parts == 2 and label == "dos":
        size_kib = (96 * MIB - 34816 * 512) // 1024
        args = ["mkfs.ext4", "-q", "-F", "-L", "rootfs", "-E", f"offset={34816 * 512}"]
        if root is not None:
            args += ["-d", str(root)]
        assert run(*args, path, f"{size_kib}k").returncode == 0
    return path


def aarch64_elf() -> bytes:
    """The first bytes of an arm64 program: enough for the builder's look at the root."""
    return b"\x7fELF\x02\x01\x01" + bytes(11) + (183).to_bytes(2, "little") + bytes(44)


def fake_root(where: Path, hang: bool = False) -> Path:
    """A root that passes the builder's look (Trixie, arm64) but is this machine's bash:
    with ``hang`` its apt-get waits on a FIFO for ever, so the build is still mounted."""
    root = where / "root"
    for folder in ("etc", "usr/bin", "boot/firmware", "bin", "lib", "lib64", "tmp", "proc",
                   "sys", "dev", "run", "opt", "usr/local/sbin", "usr/sbin", "var/lib/dpkg"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "etc/os-release").write_text('PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\n'
                                         "VERSION_CODENAME=trixie\n")
    (root / "usr/bin/dpkg").write_bytes(aarch64_elf())
    (root / "usr/bin/python3").write_bytes(aarch64_elf())
    if hang:
        for program in ("/bin/bash", "/usr/bin/env"):
            real = Path(program).resolve()
            shutil.copy(real, root / program.lstrip("/"))
            libraries = run("ldd", real).stdout.split()
            for library in (Path(w) for w in libraries if w.startswith("/")):
                target = root / str(library).lstrip("/")
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(library.resolve(), target)
        os.mkfifo(root / "wait")
        (root / "usr/bin/apt-get").write_text("#!/bin/bash\nread -r line < /wait\n")
        (root / "usr/bin/apt-get").chmod(0o755)
    return root


def leftovers(image: Path) -> list[str]:
    """Mounts of the build and loop devices on ``image`` still there."""
    mounts = [line for line in Path("/proc/self/mountinfo").read_text().splitlines()
              if "kalimambo-image-" in line or str(image) in line]
    loops = run("losetup", "-j", image).stdout.split("\n")
    return [*mounts, *[loop for loop in loops if loop.strip()]]


def build(base: Path, out: Path) -> list[str]:
    """The builder as ``setup.sh --image`` runs it, once that has the tools it needs
    (setup.sh installs those with apt; here ``./setup.sh --dev`` did, but qemu-user)."""
    return [sys.executable, str(BUILDER), str(base), str(out)]


def refused(base: Path, out: Path, words: str) -> None:
    done = run(*build(base, out))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(lines) == 1 and words in lines[0], lines
    assert not out.exists() and not out.with_name(out.name + ".part").exists()
    assert leftovers(base) == [] and leftovers(out.with_name(out.name + ".part")) == []


def test_image_goes_alone_and_needs_two_files(tmp_path: Path) -> None:
    done = run(SETUP, "--image", tmp_path / "a.img")
    assert done.returncode == 2 and "--image needs the base image" in done.stderr
    done = run(SETUP, "--image", tmp_path / "a.img", tmp_path / "b.img", "--hotspot", "x")
    assert done.returncode == 2 and "--image goes alone" in done.stderr


@as_root
@pytest.mark.parametrize(("name", "words"), [
    ("missing.img", "no such file"),
    ("notes.txt", "ends in .img or .img.xz"),
])
def test_a_base_that_is_no_image_file_is_refused(tmp_path: Path, name: str,
                                                 words: str) -> None:
    base = tmp_path / name
    if name.endswith(".txt"):
        base.write_text("hello")
    refused(base, tmp_path / "out.img", words)


@as_root
def test_an_image_that_is_not_raspberry_pi_os_is_refused(tmp_path: Path) -> None:
    noise = tmp_path / "noise.img"
    noise.write_bytes(os.urandom(4096) * 256)
    refused(noise, tmp_path / "out.img", "not a Raspberry Pi OS Lite image: it has no "
                                         "partition table")
    refused(make_card(tmp_path / "gpt.img", label="gpt"), tmp_path / "out.img",
            "an MBR with two partitions; this has a gpt table")
    refused(make_card(tmp_path / "one.img", parts=1), tmp_path / "out.img",
            "with 1")
    refused(make_card(tmp_path / "nocmd.img", boot_files={"config.txt": "x\n"}),
            tmp_path / "out.img", "its boot partition has no cmdline.txt")


@as_root
def test_a_root_that_is_not_bookworm_or_trixie_is_refused_and_unmounted(
        tmp_path: Path) -> None:
    """The root is mounted to be looked at: refused, it is unmounted and its loop freed."""
    plain = tmp_path / "plain"
    (plain / "etc").mkdir(parents=True)
    (plain / "etc/os-release").write_text("VERSION_CODENAME=bullseye\n")
    refused(make_card(tmp_path / "old.img", root=plain), tmp_path / "out.img",
            "not Raspberry Pi OS Bookworm or Trixie (/etc/os-release says bullseye)")
    amd = fake_root(tmp_path)
    (amd / "usr/bin/dpkg").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(11) + b"\x3e\x00")
    refused(make_card(tmp_path / "amd.img", root=amd), tmp_path / "out.img",
            "not a 64-bit (arm64) image")


@as_root
def test_interrupted_mid_install_it_leaves_nothing_behind(tmp_path: Path) -> None:
    """A signal while the install runs in the image (its apt-get waits for ever here):
    exit 130, no mount, no loop device, no half image; the base is untouched."""
    base = make_card(tmp_path / "base.img", root=fake_root(tmp_path, hang=True))
    before = base.read_bytes()
    out = tmp_path / "out.img"
    builder = subprocess.Popen(build(base, out), text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    log = out.with_name("out.img.log")
    deadline = time.monotonic() + 120
    while "apt-get update" not in (log.read_text() if log.exists() else ""):
        assert builder.poll() is None, builder.communicate()
        assert time.monotonic() < deadline, "the build never reached the install"
        time.sleep(0.2)
    part = out.with_name("out.img.part")
    assert leftovers(part), "the build's root is not mounted while it installs"
    builder.send_signal(signal.SIGTERM)
    stdout, stderr = builder.communicate(timeout=120)
    assert builder.returncode == 130, stdout + stderr
    assert "stopped (SIGTERM); nothing is left mounted" in stderr
    assert leftovers(part) == [] and leftovers(base) == []
    assert not out.exists() and not part.exists()
    assert base.read_bytes() == before


def test_the_repository_copy_leaves_out_images_and_what_is_not_the_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Built inside the checkout (as docs/IMAGE.md shows), the image being written must not
    be copied into itself; nor the venvs, tests, caches or git."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_image", BUILDER)
    assert spec and spec.loader
    builder = importlib.util.module_from_spec(spec)
    sys.modules["build_image_under_test"] = builder
    spec.loader.exec_module(builder)
    repo = tmp_path / "checkout"
    for name in ("setup.sh", "deploy/card_setup.py", "kalimambo.img.part", "kalimambo.img.log",
                 "base.img.xz", "old.img", ".venv/bin/python", "tests/test_x.py",
                 ".git/HEAD", "web/__pycache__/x.pyc", "docs/IMAGE.md"):
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(name)
    monkeypatch.setattr(builder, "REPO", repo)
    root = tmp_path / "root"
    builder.copy_repository(root)
    copied = sorted(str(p.relative_to(root / builder.IN_IMAGE.lstrip("/")))
                    for p in (root / builder.IN_IMAGE.lstrip("/")).rglob("*") if p.is_file())
    assert copied == ["deploy/card_setup.py", "docs/IMAGE.md", "setup.sh"]


@pytest.mark.parametrize(("cmdline", "first_boot"), [
    # Raspberry Pi OS Trixie's, as flashed: its initramfs grows the root at the first boot
    ("console=serial0,115200 console=tty1 root=PARTUUID=9c1a0b9e-02 rootfstype=ext4 "
     "fsck.repair=yes rootwait quiet splash plymouth.ignore-serial-consoles resize "
     "cfg80211.ieee80211_regdom=GB\n", " resize"),
    # Bookworm's: its first-boot init grows it
    ("console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
     "fsck.repair=yes rootwait quiet init=/usr/lib/raspberrypi-sys-mods/firstboot\n",
     " init=/usr/lib/raspberrypi-sys-mods/firstboot"),
])
def test_the_root_is_not_grown_over_the_data_partition(cmdline: str, first_boot: str) -> None:
    sys.path.insert(0, str(ROOT / "deploy"))
    import build_image

    kept = build_image.without_first_boot_growth(cmdline)
    assert kept == cmdline.replace(first_boot, "")
    assert build_image.without_first_boot_growth(kept) == kept
    assert build_image.without_first_boot_growth("root=PARTUUID=1-02 resized=1\n") == \
        "root=PARTUUID=1-02 resized=1\n"  # only the word itself


PI_OS_FSTAB = ("proc            /proc           proc    defaults          0       0\n"
               "PARTUUID=4e639091-01  /boot/firmware  vfat    defaults          0       2\n"
               "PARTUUID=4e639091-02  /               ext4    defaults,noatime  0       1\n")


def test_the_boot_partition_never_stops_the_boot() -> None:
    """A boot partition that does not come up in time (seen once in an emulated card: a
    module's signature check held udev) must not take a card into the emergency shell."""
    sys.path.insert(0, str(ROOT / "deploy"))
    import build_image

    made = build_image.with_boot_partition_optional(PI_OS_FSTAB)
    lines = made.splitlines()
    boot = lines[1].split()
    assert boot[:3] == ["PARTUUID=4e639091-01", "/boot/firmware", "vfat"]
    assert set(boot[3].split(",")) == {"defaults", "nofail", "x-systemd.device-timeout=90s"}
    assert boot[4:] == ["0", "2"]
    assert [lines[0], lines[2]] == [PI_OS_FSTAB.splitlines()[0], PI_OS_FSTAB.splitlines()[2]]
    assert build_image.with_boot_partition_optional(made) == made  # once, however often
    own = build_image.with_boot_partition_optional(
        "PARTUUID=1-01 /boot/firmware vfat ro,nofail,x-systemd.device-timeout=5s 0 2\n")
    assert own.split()[3] == "ro,nofail,x-systemd.device-timeout=90s"
