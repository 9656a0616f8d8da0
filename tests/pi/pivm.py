"""The emulated Pi as a machine: a disk image, a device tree naming the model, qemu, SSH.

``qemu-system-aarch64`` runs the ``virt`` machine under software emulation with Debian's
arm64 kernel and the root as a raw ext4 image (made without loop devices by
``mkfs.ext4 -d``). The device tree is qemu's own, dumped once and edited with ``dtc`` so
that its ``model`` names the Pi: then ``/proc/device-tree/model`` says "Raspberry Pi 4
Model B Rev 1.4" to every program, setup.sh included. Port 22 and port 80 reach this
machine through qemu's user network on loopback only. Pulling the power is killing
qemu: what the guest had not written to its disk is lost, as on a real Pi.

A whole partitioned image (a flashed SD card: ``use_image``) boots as it is: its kernel,
initramfs and command line are read from its FAT partition at each power-on and at each
reboot, as the Pi's firmware reads them, and its root is found by the PARTUUID its
cmdline.txt names. A reboot inside qemu would keep the command line qemu was started with,
so qemu runs with ``-no-reboot`` under a small loop (``python3 pivm.py firmware SPEC``, the
firmware's part) that starts it again after a reboot, the boot partition read anew.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from pitools import CheckFailed, sh, state_answers, wait_for

BOOT_CEILING_S = 900.0
"""Power-on to SSH and the table: 2-3 minutes under emulation, far more on a busy host."""
EMULATED_CONSOLE = "console=ttyAMA0"
"""The serial console qemu's virt machine has (a Pi's cmdline.txt names serial0 and tty1)."""
EMULATED_ARGS = ("net.ifnames=0", "panic=-1")
"""The emulator's: interfaces named eth0/wlan0 as on a Pi; a panic restarts the guest."""
FAT_TYPES = (0x0B, 0x0C, 0x0E)
"""MBR partition types of a FAT32 or FAT16 (LBA) partition: where a Pi's firmware looks."""
MTOOLS_ENV = {**os.environ, "MTOOLS_SKIP_CHECK": "1"}
"""mtools refuses a FAT whose geometry fields it finds odd; mkfs.fat's on a file are."""
KERNEL_START = "Booting Linux on physical CPU"
"""What the kernel prints first on the console, at every start."""
POWERED_DOWN = "reboot: Power down"
"""What the kernel prints last when it powers the machine off (a reboot or panic does not)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Machine:
    """One emulated Pi: its model, CPU, memory, disk image and forwarded ports."""

    def __init__(self, work: Path, model: str, cpu: str, memory_mb: int, cpus: int,
                 key: Path) -> None:
        self.work = work
        self.model = model
        self.cpu = cpu
        self.memory_mb = memory_mb
        self.cpus = cpus
        self.key = key
        self.image = work / "disk.img"
        self.kernel = work / "vmlinuz"
        self.initrd = work / "initrd.img"
        self.dtb = work / "pi.dtb"
        self.ssh_port = free_port()
        self.web_port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None
        self.boots = 0
        self.powered_on_at = 0.0
        self.whole_disk = False
        """The image is a whole disk (use_image): boot from its FAT partition's files."""

    @property
    def base(self) -> str:
        """The table's port 80, as this machine reaches it."""
        return f"http://127.0.0.1:{self.web_port}"

    # ---- making it ---------------------------------------------------------------------

    def make_disk(self, root: Path, size: str = "8G") -> None:
        """The kernel and initramfs taken out of the root's /boot, the root as ext4."""
        kernels = sorted((root / "boot").glob("vmlinuz-*"))
        initrds = sorted((root / "boot").glob("initrd.img-*"))
        if not kernels or not initrds:
            raise CheckFailed(f"no kernel or initramfs in {root}/boot")
        sh("cp", kernels[-1], self.kernel)
        sh("cp", initrds[-1], self.initrd)
        self.image.unlink(missing_ok=True)
        sh("mkfs.ext4", "-q", "-F", "-L", "piroot", "-E", "root_owner=0:0", "-d", root,
           self.image, size)

    def use_image(self, image: Path) -> None:
        """Boot ``image``, a whole disk (an MBR, a FAT boot partition, the root), as it is:
        how a flashed SD card boots, rather than a root made into a disk here."""
        self.image = image
        self.whole_disk = True
        self.read_boot_partition()

    def read_boot_partition(self) -> str:
        return read_boot_partition(self.image, self.kernel, self.initrd)

    def make_device_tree(self) -> None:
        """qemu's own device tree for these options, its model and compatible the Pi's."""
        raw = self.work / "virt.dtb"
        sh("qemu-system-aarch64", "-machine", f"virt,dumpdtb={raw}", "-cpu", self.cpu,
           "-smp", str(self.cpus), "-m", str(self.memory_mb), "-display", "none")
        source = sh("dtc", "-q", "-I", "dtb", "-O", "dts", raw).stdout
        compatible = ('"raspberrypi,5-model-b", "brcm,bcm2712"' if "Pi 5" in self.model
                      else '"raspberrypi,4-model-b", "brcm,bcm2711"')
        source, found = re.subn(r'(\n\tmodel = )"[^"]*";', rf'\1"{self.model}";', source,
                                count=1)
        if not found:
            source = source.replace("/ {\n", f'/ {{\n\tmodel = "{self.model}";\n', 1)
        source = re.sub(r'\n\tcompatible = "[^"]*";', f"\n\tcompatible = {compatible};",
                        source, count=1)
        edited = self.work / "pi.dts"
        edited.write_text(source)
        sh("dtc", "-q", "-I", "dts", "-O", "dtb", "-o", self.dtb, edited)

    # ---- running it ----------------------------------------------------------------------

    def power_on(self, restrict: bool = False) -> None:
        """Start qemu (the guest boots by itself); the serial console goes to a file.

        With ``restrict`` the guest has no way out (qemu's ``restrict=on``): the forwarded
        SSH and web ports still reach it and DHCP gives it its address, but no router and
        no DNS server, and nothing beyond answers.
        After use_image the kernel, initramfs and cmdline.txt are read from the image
        again at this power-on and at every reboot, as a Pi reads them at every boot (a
        build, a first boot or a change of mode may change them).
        """
        if self.proc is not None and self.proc.poll() is None:
            raise CheckFailed("the emulated Pi is already running")
        self.boots += 1
        console = self.work / f"console-{self.boots}.log"
        command = [
            "qemu-system-aarch64", "-machine", "virt", "-accel", "tcg,thread=multi",
            "-cpu", self.cpu, "-smp", str(self.cpus), "-m", str(self.memory_mb),
            "-display", "none", "-monitor", "none", "-no-reboot",
            "-chardev", f"file,id=console,path={console},append=on", "-serial", "chardev:console",
            "-kernel", self.kernel, "-initrd", self.initrd, "-dtb", self.dtb,
            "-drive", f"if=none,id=disk,format=raw,cache=writeback,file={self.image}",
            "-device", "virtio-blk-pci,drive=disk",
            "-netdev", f"user,id=net,{'restrict=on,' if restrict else ''}"
                       f"hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22,"
                       f"hostfwd=tcp:127.0.0.1:{self.web_port}-:80",
            "-device", "virtio-net-pci,netdev=net",
            "-device", "virtio-rng-pci"]
        spec = self.work / "firmware.json"
        spec.write_text(json.dumps({
            "qemu": [str(word) for word in command], "console": str(console),
            "image": str(self.image) if self.whole_disk else None,
            "kernel": str(self.kernel), "initrd": str(self.initrd),
            "append": None if self.whole_disk else
            "root=/dev/vda rw rootwait console=ttyAMA0 net.ifnames=0 panic=-1"}))
        with (self.work / "qemu.log").open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "firmware", str(spec)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
        self.powered_on_at = time.monotonic()

    def pull_the_plug(self) -> None:
        """Kill qemu (and the firmware loop around it) outright: the power cut."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=60)
        self.proc = None

    def shut_down(self) -> None:
        """``poweroff`` in the guest; qemu ends when it has."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.ssh("systemctl poweroff", check=False, timeout=30)
        try:
            self.proc.wait(timeout=300)
        except subprocess.TimeoutExpired:
            self.pull_the_plug()
        self.proc = None

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kernel_starts(self) -> int:
        """How often the kernel started since power-on: a reboot inside the guest starts
        qemu again on the same serial console file."""
        console = self.work / f"console-{self.boots}.log"
        if not console.exists():
            return 0
        return console.read_text(errors="replace").count(KERNEL_START)

    def console_tail(self, lines: int = 40) -> str:
        console = self.work / f"console-{self.boots}.log"
        if not console.exists():
            return ""
        return "\n".join(console.read_text(errors="replace").splitlines()[-lines:])

    # ---- talking to it -------------------------------------------------------------------

    def ssh(self, command: str, check: bool = True, timeout: float = 1800,
            log: Path | None = None) -> subprocess.CompletedProcess[str]:
        """``command`` as root in the guest, through the forwarded SSH port."""
        words = ["ssh", "-q", "-i", str(self.key), "-p", str(self.ssh_port),
                 "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                 "-o", "ConnectTimeout=20", "-o", "ServerAliveInterval=15",
                 "-o", "ServerAliveCountMax=8", "-o", "BatchMode=yes",
                 "root@127.0.0.1", command]
        try:
            return sh(*words, check=check, log=log, timeout=timeout,
                      stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as timed_out:
            raise CheckFailed(f"in the guest, '{command}' took over {timeout:.0f} s") \
                from timed_out

    def up(self) -> bool:
        if not self.running():
            raise CheckFailed("qemu ended:\n" + self.console_tail())
        try:
            return self.ssh("true", check=False, timeout=60).returncode == 0
        except CheckFailed:
            return False

    def wait_for_ssh(self) -> float:
        """Seconds from power-on until SSH answers."""
        wait_for("the emulated Pi's SSH", self.up, ceiling=BOOT_CEILING_S, every=3)
        return time.monotonic() - self.powered_on_at

    def wait_for_table(self) -> float:
        """Seconds from power-on until the table's /api/v1/state answers on port 80."""
        def answering() -> bool:
            if not self.running():
                raise CheckFailed("qemu ended:\n" + self.console_tail())
            return state_answers(self.base) is not None
        wait_for("the table on port 80", answering, ceiling=BOOT_CEILING_S, every=1)
        return time.monotonic() - self.powered_on_at

    def put(self, text: str, path: str, mode: str = "0644") -> None:
        """Write a file in the guest."""
        self.ssh(f"install -D -m {mode} /dev/stdin {shlex.quote(path)} <<'KALIMAMBO_EOF'\n"
                 f"{text}\nKALIMAMBO_EOF")


def read_boot_partition(image: Path, kernel: Path, initrd: Path) -> str:
    """The kernel and initramfs out of the image's FAT partition (kernel8.img, initramfs8)
    into ``kernel`` and ``initrd``, and the kernel command line from its cmdline.txt, as
    qemu's."""
    fat = f"{image}@@{fat_partition_offset(image)}"  # mtools' FILE@@OFFSET
    for name, target in (("kernel8.img", kernel), ("initramfs8", initrd)):
        target.unlink(missing_ok=True)
        sh("mcopy", "-i", fat, f"::/{name}", target, env=MTOOLS_ENV)
    cmdline = sh("mtype", "-i", fat, "::/cmdline.txt", env=MTOOLS_ENV).stdout
    return emulated_cmdline(cmdline)


def powered_down(console: Path) -> bool:
    """Whether the kernel last started on ``console`` powered the machine off (rather than
    rebooting or panicking, after which a Pi starts again)."""
    text = console.read_text(errors="replace") if console.exists() else ""
    return POWERED_DOWN in text[text.rfind(KERNEL_START):]


def firmware(spec_file: Path) -> int:
    """Run qemu (with ``-no-reboot``) as a Pi's firmware runs the kernel: when the guest
    reboots, qemu ends; read the boot partition again and start it again, until the guest
    powers off or qemu fails. Killing this loop's process group is pulling the plug."""
    spec = json.loads(spec_file.read_text())
    kernel, initrd = Path(spec["kernel"]), Path(spec["initrd"])
    while True:
        append = spec["append"] or read_boot_partition(Path(spec["image"]), kernel, initrd)
        status = subprocess.call([*spec["qemu"], "-append", append])
        if status != 0 or powered_down(Path(spec["console"])):
            return status


def fat_partition_offset(image: Path) -> int:
    """The byte offset of the first FAT partition in ``image``'s MBR (a Pi's boot
    partition), read from the table itself: no loop device, no sfdisk needed."""
    with image.open("rb") as handle:
        mbr = handle.read(512)
    if len(mbr) < 512 or mbr[510:512] != b"\x55\xaa":
        raise CheckFailed(f"{image} has no MBR partition table")
    for number in range(4):
        entry = mbr[446 + 16 * number:446 + 16 * (number + 1)]
        if entry[4] in FAT_TYPES:
            return int.from_bytes(entry[8:12], "little") * 512
    raise CheckFailed(f"{image} has no FAT partition")


def emulated_cmdline(cmdline: str) -> str:
    """A Pi's cmdline.txt as qemu's ``-append``: its consoles become the emulator's serial
    console and the emulator's words are added; every other word is the image's own."""
    words = [word for word in cmdline.split() if not word.startswith("console=")]
    return " ".join([EMULATED_CONSOLE, *words, *EMULATED_ARGS])


if __name__ == "__main__":
    if sys.argv[1:2] != ["firmware"] or len(sys.argv) != 3:
        sys.exit("usage: pivm.py firmware SPEC.json (Machine.power_on runs it)")
    sys.exit(firmware(Path(sys.argv[2])))
