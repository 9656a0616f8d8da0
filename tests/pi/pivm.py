"""The emulated Pi as a machine: a disk image, a device tree naming the model, qemu, SSH.

``qemu-system-aarch64`` runs the ``virt`` machine under software emulation with Debian's
arm64 kernel and the root as a raw ext4 image (made without loop devices by
``mkfs.ext4 -d``). The device tree is qemu's own, dumped once and edited with ``dtc`` so
that its ``model`` names the Pi: then ``/proc/device-tree/model`` says "Raspberry Pi 4
Model B Rev 1.4" to every program, setup.sh included. Port 22 and port 80 reach this
machine through qemu's user network on loopback only. Pulling the power is killing
qemu: what the guest had not written to its disk is lost, as on a real Pi.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import time
from pathlib import Path

from pitools import CheckFailed, sh, state_answers, wait_for

BOOT_CEILING_S = 900.0
"""Power-on to SSH and the table: 2-3 minutes under emulation, far more on a busy host."""


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

    def power_on(self) -> None:
        """Start qemu (the guest boots by itself); the serial console goes to a file."""
        if self.proc is not None and self.proc.poll() is None:
            raise CheckFailed("the emulated Pi is already running")
        self.boots += 1
        console = self.work / f"console-{self.boots}.log"
        command = [
            "qemu-system-aarch64", "-machine", "virt", "-accel", "tcg,thread=multi",
            "-cpu", self.cpu, "-smp", str(self.cpus), "-m", str(self.memory_mb),
            "-display", "none", "-monitor", "none", "-serial", f"file:{console}",
            "-kernel", self.kernel, "-initrd", self.initrd, "-dtb", self.dtb,
            "-append", "root=/dev/vda rw rootwait console=ttyAMA0 net.ifnames=0 panic=-1",
            "-drive", f"if=none,id=disk,format=raw,cache=writeback,file={self.image}",
            "-device", "virtio-blk-pci,drive=disk",
            "-netdev", f"user,id=net,hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22,"
                       f"hostfwd=tcp:127.0.0.1:{self.web_port}-:80",
            "-device", "virtio-net-pci,netdev=net",
            "-device", "virtio-rng-pci"]
        with (self.work / "qemu.log").open("ab") as log:
            self.proc = subprocess.Popen([str(c) for c in command], stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        self.powered_on_at = time.monotonic()

    def pull_the_plug(self) -> None:
        """Kill qemu outright: the power cut, mid-whatever."""
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
