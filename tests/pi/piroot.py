"""The emulated Pi's root file system: a cached Debian base, dressed as Raspberry Pi OS.

The base is an arm64 Debian root (bookworm or trixie) made once by mmdebstrap under
qemu-user and kept as a tarball: what Raspberry Pi OS Lite brings that matters here
(systemd, udev, dbus, NetworkManager with wpa_supplicant, nftables, libnss-mdns, sudo,
python3, iw, an SSH server), Debian's arm64 kernel with a small initramfs, and on trixie
netplan, which Raspberry Pi OS Trixie uses for the first boot's Wi-Fi. Not in it, so that
setup.sh must install them itself: python3-venv, python3-lgpio, avahi-daemon, rfkill,
dnsmasq-base, the compilers.

Raspberry Pi's own archive is not reachable from here, so its ``python3-lgpio`` is made
from lgpio (PyPI's cp311 wheel for bookworm; for trixie's Python 3.13, which has no
wheel, compiled here from lgpio's sdist with Debian's arm64 cross compiler against
trixie's own Python headers) and offered to apt from a file
archive inside the root.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pitools import CheckFailed, sh

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "deploy"))
import build_image  # (standard library only, as this harness)

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kalimambo" / "pi"
MIRROR = "http://deb.debian.org/debian"
BASE_VERSION = "boot-v1"  # bump when BASE_PACKAGES change: the cached bases are rebuilt
BASE_PACKAGES = ("systemd,systemd-sysv,udev,dbus,kmod,iproute2,network-manager,wpasupplicant,"
                 "nftables,libnss-mdns,openssh-server,sudo,python3,ca-certificates,procps,"
                 "e2fsprogs,busybox,iw,netbase,initramfs-tools,linux-image-arm64")
RELEASE_PACKAGES = {"bookworm": "", "trixie": ",netplan.io"}
PYTHON_TAG = {"bookworm": "cp311", "trixie": "cp313"}
LGPIO_VERSION = "0.2.2.0"
LGPIO = f"lgpio=={LGPIO_VERSION}"
"""The lgpio that Raspberry Pi OS ships as python3-lgpio (Bookworm and Trixie alike)."""
INITRAMFS_MODULES = "virtio_pci\nvirtio_blk\nvirtio_net\nvirtio_rng\next4\ncrc32c_generic\n"
STANDINS = ("systemctl", "hostnamectl", "udevadm", "nmcli")
"""Tools that need a running systemd, udev or NetworkManager: logged stand-ins in the
chroot, removed before the first boot. The stand-in systemctl hands ``enable`` to the real
one (which works on files alone), so the first boot starts the units by itself."""
SYSTEMCTL_STANDIN = build_image.SYSTEMCTL_IN_CHROOT.replace(
    "#!/bin/sh\n", '#!/bin/sh\necho "systemctl $*" >> /var/log/kalimambo-standins.log\n', 1)
"""setup.sh --image's own (deploy/build_image.py), each call logged for the checks."""
CHROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
HOSTNAME = "raspberrypi"

# A fresh Raspberry Pi OS config.txt (Bookworm and Trixie), shortened.
CONFIG_TXT = """\
# For more options and information see
# http://rptl.io/configtxt
# Some settings may impact device functionality. See link above for details

# Uncomment some or all of these to enable the optional hardware interfaces
#dtparam=i2c_arm=on
#dtparam=i2s=on
#dtparam=spi=on

# Enable audio (loads snd_bcm2835)
dtparam=audio=on

# Automatically load overlays for detected cameras
camera_auto_detect=1

# Automatically load overlays for detected DSI displays
display_auto_detect=1

# Automatically load initramfs files, if found
auto_initramfs=1

# Enable DRM VC4 V3D driver
dtoverlay=vc4-kms-v3d
max_framebuffers=2

# Don't have the firmware create an initial video= setting in cmdline.txt.
# Use the kernel's default instead.
disable_fw_kms_setup=1

# Run in 64-bit mode
arm_64bit=1

# Disable compensation for displays with overscan
disable_overscan=1

# Run as fast as firmware / board allows
arm_boost=1

[cm4]
# Enable host mode on the 2711 built-in XHCI USB controller.
# This line should be removed if the legacy DWC2 controller is required
# (e.g. for USB device mode) or if USB support is not required.
otg_mode=1

[all]
"""

# What cloud-init writes on Raspberry Pi OS Trixie's first boot for the Wi-Fi the user
# entered in Raspberry Pi Imager (netplan, rendered by NetworkManager). No such network
# is in range here: the hotspot must come up beside it, at every boot.
NETPLAN_FIRST_BOOT = """\
network:
  version: 2
  renderer: NetworkManager
  wifis:
    wlan0:
      dhcp4: true
      regulatory-domain: GB
      access-points:
        "HomeWiFi":
          password: "not-in-range-here"
      optional: true
"""


APT = ("flock", "--wait", "1800", "/tmp/kalimambo-apt.lock", "apt-get")
"""This machine's apt-get, one at a time: CI starts this Pi beside tests/debian/run-in-root,
whose apt-get (the same lock file) would otherwise hold dpkg's lock and fail this one at
once on a machine that has neither tool yet."""


def ensure_host_tools(log: Path) -> None:
    """Debian's mmdebstrap, qemu (user and system), binfmt, dtc and ssh on this machine."""
    wanted = {"mmdebstrap": "/usr/bin/mmdebstrap",
              "qemu-user-static": "/usr/bin/qemu-aarch64-static",
              "binfmt-support": "/usr/sbin/update-binfmts",
              "qemu-system-arm": "/usr/bin/qemu-system-aarch64",
              "ipxe-qemu": "/usr/lib/ipxe/qemu/efi-virtio.rom",
              "device-tree-compiler": "/usr/bin/dtc",
              "openssh-client": "/usr/bin/ssh",
              "e2fsprogs": "/usr/sbin/mkfs.ext4",
              "arch-test": "/usr/bin/arch-test"}
    missing = [pkg for pkg, tool in wanted.items() if not Path(tool).exists()]
    if missing:
        print(f"installing {' '.join(missing)} with apt")
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        sh(*APT, "update", "-qq", log=log)
        sh(*APT, "install", "-y", "-qq", "--no-install-recommends", *missing,
           log=log, env=env)
    binfmt = Path("/proc/sys/fs/binfmt_misc")
    if not (binfmt / "register").exists():
        sh("mount", "-t", "binfmt_misc", "none", binfmt)
    entry = binfmt / "qemu-aarch64"
    if not entry.exists() or "enabled" not in entry.read_text():
        sh("update-binfmts", "--enable", "qemu-aarch64", log=log)
    if not entry.exists() or "enabled" not in entry.read_text():
        raise CheckFailed("the qemu-aarch64 binfmt entry is not registered "
                          "(update-binfmts --enable qemu-aarch64)")


def base_tarball(release: str, log: Path) -> Path:
    """The arm64 base root for ``release``, made once (about 10 minutes) and kept."""
    tarball = CACHE / f"{release}-arm64-{BASE_VERSION}.tar"
    if tarball.exists():
        print(f"cached: {tarball}")
        return tarball
    print(f"mmdebstrap arm64 {release} (under qemu-user; done once)")
    hook = ('mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"'
            ' && echo MODULES=list > "$1/etc/initramfs-tools/conf.d/kalimambo"'
            f' && printf "{INITRAMFS_MODULES.replace(chr(10), chr(92) + "n")}"'
            ' > "$1/usr/share/initramfs-tools/modules.d/kalimambo"')
    partial = tarball.with_suffix(".part.tar")
    sh("mmdebstrap", "--arch=arm64", "--variant=minbase",
       f"--include={BASE_PACKAGES}{RELEASE_PACKAGES[release]}",
       f"--essential-hook={hook}", "--dpkgopt=force-unsafe-io", "--aptopt=Acquire::Retries=3",
       release, partial, MIRROR, log=log)
    partial.rename(tarball)
    return tarball


def unpack_root(tarball: Path, root: Path) -> None:
    if root.exists():
        sh("rm", "-rf", "--one-file-system", root)
    root.mkdir(parents=True)
    sh("tar", "-C", root, "--numeric-owner", "-xpf", tarball)


def chroot(root: Path, command: str, log: Path | None = None,
           check: bool = True) -> subprocess.CompletedProcess[str]:
    """``command`` (a shell line) as root inside the root, with a clean environment."""
    return sh("chroot", root, "/usr/bin/env", "-i", f"PATH={CHROOT_PATH}", "HOME=/root",
              "LANG=C.UTF-8", "TERM=dumb", "/bin/bash", "-c", command, log=log, check=check)


def pip_command() -> list[str]:
    """A pip on the host: the checkout's .venv (CI makes it first), else the system's."""
    venv = REPO / ".venv" / "bin" / "python"
    return [str(venv if venv.exists() else sys.executable), "-m", "pip"]


def lgpio_deb(release: str, log: Path) -> Path:
    """python3-lgpio as Raspberry Pi OS ships it for ``release``'s Python, made once (no
    base root needed: a cold run makes it beside the base)."""
    tag = PYTHON_TAG[release]
    debs = sorted(CACHE.glob(f"python3-lgpio_*+{tag}_arm64.deb"))
    if debs:
        print(f"cached: {debs[-1]}")
        return debs[-1]
    work = CACHE / f"lgpio-{release}"
    shutil.rmtree(work, ignore_errors=True)
    tree = work / "deb"
    site = tree / "usr/lib/python3/dist-packages"
    site.mkdir(parents=True)
    if tag == "cp311":
        wheels = work / "wheels"
        sh(*pip_command(), "download", "--quiet", "--no-deps", "--only-binary=:all:",
           *(f"--platform=manylinux_2_{glibc}_aarch64" for glibc in (36, 34, 31, 28, 17)),
           "--python-version", "3.11", "--implementation", "cp", "--abi", "cp311",
           "-d", wheels, LGPIO, log=log)
        sh("python3", "-m", "zipfile", "-e", next(wheels.glob("lgpio-*.whl")), site)
    else:
        cross_build_lgpio(release, work / "build", site, log)
    for so in site.rglob("*.so*"):
        so.chmod(0o755)
    (tree / "DEBIAN").mkdir()
    (tree / "DEBIAN/control").write_text(
        f"Package: python3-lgpio\nVersion: {LGPIO_VERSION}-1+{tag}\nArchitecture: arm64\n"
        "Maintainer: Kalimambo tests <nobody@invalid>\nDepends: python3\n"
        "Section: python\nPriority: optional\n"
        "Description: lgpio for Python 3 (stand-in for Raspberry Pi OS's package)\n"
        " Made from lgpio by tests/pi for the emulated Raspberry Pi.\n")
    deb = CACHE / f"python3-lgpio_{LGPIO_VERSION}-1+{tag}_arm64.deb"
    sh("dpkg-deb", "--root-owner-group", "--build", tree, deb, log=log)
    shutil.rmtree(work)
    return deb


def base_and_lgpio(release: str, log: Path) -> tuple[Path, Path]:
    """The base tarball and python3-lgpio, each made (when not cached) at the same time."""
    with ThreadPoolExecutor(max_workers=1) as beside:
        lgpio = beside.submit(lgpio_deb, release, log.with_name("lgpio.log"))
        tarball = base_tarball(release, log)
        return tarball, lgpio.result()


CROSS_TOOLS = {"gcc-aarch64-linux-gnu": "/usr/bin/aarch64-linux-gnu-gcc",
               "libc6-dev-arm64-cross": "/usr/aarch64-linux-gnu/include/stdio.h",
               "swig": "/usr/bin/swig"}
"""This machine's compilers for an arm64 lgpio (Debian's cross toolchain, and swig)."""


def cross_build_lgpio(release: str, work: Path, site: Path, log: Path) -> None:
    """lgpio for the release's own Python, for which PyPI has no wheel, compiled here for
    arm64 as lgpio's setup.py builds it with PYPI=1 (its C library's sources linked in):
    swig and Debian's cross compiler on this machine, against the Python headers of the
    release's own arm64 package (unpacked by mmdebstrap's extract variant: signatures
    checked, nothing run). Seconds, where a build in an arm64 root under qemu-user took
    ten minutes of a core."""
    missing = [pkg for pkg, tool in CROSS_TOOLS.items() if not Path(tool).exists()]
    if missing:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        apt = (*APT, "-o", "DPkg::Lock::Timeout=1800")
        sh(*apt, "update", "-qq", log=log)
        sh(*apt, "install", "-y", "-qq", "--no-install-recommends", *missing, log=log, env=env)
    tag = PYTHON_TAG[release]
    python = f"{tag[2]}.{tag[3:]}"  # cp313: 3.13
    work.mkdir(parents=True)
    headers = work / "headers"
    sh("mmdebstrap", "--quiet", "--variant=extract", "--arch=arm64",
       f"--include=libpython{python}-dev", "--aptopt=Acquire::Retries=3", release, headers,
       MIRROR, log=log)
    sh(*pip_command(), "download", "--quiet", "--no-deps", "--no-binary=:all:", "-d", work,
       LGPIO, log=log)
    with tarfile.open(next(work.glob("lgpio-*.tar.gz"))) as sdist:
        sdist.extractall(work, filter="data")
    source = next(p for p in work.glob("lgpio-*") if p.is_dir())
    sh("swig", "-python", "-Isrc", "-o", "lgpio_wrap.c", "lgpio.i", cwd=source, log=log)
    module = site / f"_lgpio.cpython-{tag[2:]}-aarch64-linux-gnu.so"
    sh("aarch64-linux-gnu-gcc", "-O3", "-pthread", "-fPIC", "-shared", "-Isrc",
       f"-I{headers}/usr/include/python{python}", "-idirafter", f"{headers}/usr/include",
       *sorted((source / "src").glob("lg*.c")), source / "src/rgpiod.c", "lgpio_wrap.c",
       "-lrt", "-ldl", "-o", module, cwd=source, log=log)
    shutil.copy(source / "lgpio.py", site / "lgpio.py")
    # Its metadata as Debian's packages carry it: pip in a venv that sees the system's
    # packages then finds lgpio installed (without it pip builds lgpio from its sdist).
    shutil.copytree(source / "lgpio.egg-info", site / f"lgpio-{LGPIO_VERSION}.egg-info")


def trust_what_the_host_trusts(root: Path) -> None:
    """Where this machine reaches Debian and PyPI through a proxy with its own certificate
    authority, the emulated Pi needs it too: the host's local CAs, and pip told to use the
    system's bundle (pip's own certifi knows no local CA). A real Pi needs neither."""
    local = Path("/usr/local/share/ca-certificates")
    certificates = sorted(local.rglob("*.crt")) if local.is_dir() else []
    if not certificates:
        return
    for certificate in certificates:
        target = root / str(certificate).lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(certificate, target)
    bundle = root / "etc/ssl/certs/ca-certificates.crt"
    with bundle.open("a") as handle:
        for certificate in certificates:
            handle.write(certificate.read_text())
    conf = root / "etc/pip.conf"
    had = conf.read_text() if conf.exists() else ""
    # pip's file needs its section: a bare key made pip refuse to start in the root
    # that builds lgpio for trixie (it had no pip.conf before this).
    conf.write_text((had or "[global]\n") + "cert = /etc/ssl/certs/ca-certificates.crt\n")


def write(path: Path, text: str, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)


def dress_as_raspberry_pi(root: Path, release: str, deb: Path, public_key: str,
                          log: Path) -> None:
    """What Raspberry Pi OS has that the Debian base has not, and the test rig's access."""
    write(root / "boot/firmware/config.txt", CONFIG_TXT)
    (root / "boot/firmware/overlays").mkdir(exist_ok=True)
    write(root / "etc/hostname", f"{HOSTNAME}\n")
    write(root / "etc/hosts", "127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost "
                              f"ip6-loopback\n\n127.0.1.1\t{HOSTNAME}\n")
    write(root / "etc/fstab", "/dev/vda\t/\text4\tdefaults,noatime\t0\t1\n")
    shutil.copy("/etc/resolv.conf", root / "etc/resolv.conf")
    # pip through qemu's user network: a connection reset now and then; retry longer.
    write(root / "etc/pip.conf", "[global]\nretries = 15\ntimeout = 60\n")
    trust_what_the_host_trusts(root)
    # The Pi's Wi-Fi: two simulated radios, wlan0 the Pi's, wlan1 the test's phone (which
    # NetworkManager leaves alone; the phone takes it into a network namespace of its own).
    write(root / "etc/modules-load.d/kalimambo-test-radios.conf", "mac80211_hwsim\n")
    write(root / "etc/modprobe.d/kalimambo-test-radios.conf", "options mac80211_hwsim radios=2\n")
    write(root / "etc/NetworkManager/conf.d/90-kalimambo-test-phone.conf",
          "[keyfile]\nunmanaged-devices=interface-name:wlan1\n")
    if release == "trixie":
        write(root / "etc/netplan/50-cloud-init.yaml", NETPLAN_FIRST_BOOT, 0o600)
    # The rig reaches the Pi over SSH (root, by key only) through qemu's port forward.
    write(root / "root/.ssh/authorized_keys", public_key, 0o600)
    (root / "root/.ssh").chmod(0o700)
    # Services must not start while apt installs them in the chroot (removed at boot).
    write(root / "usr/sbin/policy-rc.d", "#!/bin/sh\nexit 101\n", 0o755)
    write(root / "etc/dpkg/dpkg.cfg.d/kalimambo-unsafe-io", "force-unsafe-io\n")
    for tool in STANDINS:
        write(root / "usr/local/sbin" / tool, SYSTEMCTL_STANDIN if tool == "systemctl" else
              f'#!/bin/sh\necho "{tool} $*" >> /var/log/kalimambo-standins.log\n', 0o755)
    # The stand-in for Raspberry Pi's archive: python3-lgpio only.
    archive = root / "var/local/raspberrypi-archive"
    archive.mkdir(parents=True, exist_ok=True)
    shutil.copy(deb, archive / deb.name)
    control = sh("dpkg-deb", "-f", deb).stdout.strip()
    data = deb.read_bytes()
    write(archive / "Packages", f"{control}\nFilename: ./{deb.name}\nSize: {len(data)}\n"
                                f"SHA256: {hashlib.sha256(data).hexdigest()}\n\n")
    write(root / "etc/apt/sources.list.d/raspberrypi-stand-in.list",
          "deb [trusted=yes] file:/var/local/raspberrypi-archive ./\n")
    # Raspberry Pi OS's groups and its first user, pi, who may sudo without a password.
    chroot(root, "groupadd -f -r gpio && groupadd -f -r spi && groupadd -f -r i2c && "
                 "(id pi >/dev/null 2>&1 || useradd -m -u 1000 -s /bin/bash "
                 "-G sudo,gpio,spi,i2c,video,audio,plugdev pi)", log=log)
    write(root / "etc/sudoers.d/010_pi-nopasswd", "pi ALL=(ALL) NOPASSWD: ALL\n", 0o440)


def undress_for_boot(root: Path) -> None:
    """Take away what only the chroot needed: the stand-ins, policy-rc.d, unsafe dpkg."""
    for tool in STANDINS:
        (root / "usr/local/sbin" / tool).unlink(missing_ok=True)
    (root / "usr/sbin/policy-rc.d").unlink(missing_ok=True)
    (root / "etc/dpkg/dpkg.cfg.d/kalimambo-unsafe-io").unlink(missing_ok=True)


def copy_checkout(root: Path) -> Path:
    """The checkout as `git clone` would give it (tracked and new files), owned by pi."""
    dest = root / "home/pi/kalimambo"
    files = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others",
                            "--exclude-standard"], capture_output=True, check=True).stdout
    for name in filter(None, files.decode().split("\0")):
        source = REPO / name
        target = dest / name
        if source.is_symlink():  # a link stays a link, as git keeps it
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.readlink(source), target)
            continue
        if not source.is_file():
            continue  # deleted but not yet committed
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    # What lgpio leaves where it ran (a notify pipe): setup.sh must not copy it to /opt.
    os.mkfifo(dest / ".lgd-nfy0")
    for path in [dest, *dest.rglob("*")]:
        os.lchown(path, 1000, 1000)
    return dest


def mount_for_chroot(root: Path, model: str, release: str) -> list[Path]:
    """Kernel file systems, the faked device-tree model and the caches; what to unmount."""
    mounts: list[Path] = []

    def mount(*args: str | Path) -> None:
        sh("mount", *args)
        mounts.append(Path(args[-1]))

    mount("-t", "proc", "proc", root / "proc")
    mount("-t", "sysfs", "sysfs", root / "sys")
    mount("-t", "tmpfs", "-o", "mode=0755", "kalimambo-firmware", root / "sys/firmware")
    base = root / "sys/firmware/devicetree/base"
    base.mkdir(parents=True)
    (base / "model").write_bytes(model.encode() + b"\0")  # as the kernel has it
    mount("--rbind", "/dev", root / "dev")
    mount("-t", "tmpfs", "-o", "mode=0755", "kalimambo-run", root / "run")
    for source, target, owner in ((CACHE / f"apt-{release}", root / "var/cache/apt/archives", 0),
                                  (CACHE / "pip-root", root / "root/.cache/pip", 0),
                                  (CACHE / "pip-pi", root / "home/pi/.cache/pip", 1000)):
        (source / "partial").mkdir(parents=True, exist_ok=True)
        target.mkdir(parents=True, exist_ok=True)
        for path in (source, source / "partial", target):
            os.chown(path, owner, owner)
        mount("--bind", source, target)
    os.chown(root / "home/pi/.cache", 1000, 1000)
    return mounts


def unmount(mounts: list[Path]) -> None:
    for target in reversed(mounts):
        sh("umount", "-R", "-l", target, check=False)
