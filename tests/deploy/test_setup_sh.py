"""setup.sh: dry runs against fake Raspberry Pi roots, its file-edit helper, shellcheck, the unit.

The dry runs point ``KALIMAMBO_ROOT`` at a temporary tree holding a Pi's
``/proc/device-tree/model``, ``/boot/firmware/config.txt`` and a few ``/etc`` files, and check
the concrete lines a person who knows Raspberry Pi OS would look for.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import platform
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from kalimambo.firmware.hardware import MAX_LEDS, HardwareFileError, load_hardware_file
from tests.conftest import LGPIO_MACHINES
from tests.helpers import ROOT

SETUP = ROOT / "setup.sh"
HELPER = ROOT / "deploy" / "install_helper.py"
UNIT_TEMPLATE = ROOT / "deploy" / "kalimambo.service.in"
LIGHTS_TEMPLATE = ROOT / "deploy" / "kalimambo-lights.service.in"
PI4 = "Raspberry Pi 4 Model B Rev 1.4"
PI5 = "Raspberry Pi 5 Model B Rev 1.0"
ZERO2 = "Raspberry Pi Zero 2 W Rev 1.0"
ZERO_W = "Raspberry Pi Zero W Rev 1.1"
PI1 = "Raspberry Pi Model B Plus Rev 1.2"


def load_helper() -> ModuleType:
    spec = importlib.util.spec_from_file_location("install_helper", HELPER)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


helper = load_helper()


def fake_pi(root: Path, model: str, config_txt: str = "[all]\ndtparam=audio=on\n",
            hostname: str = "raspberrypi", model_file: str = "proc/device-tree/model") -> Path:
    """A tree that looks like a fresh Raspberry Pi OS to setup.sh."""
    (root / model_file).parent.mkdir(parents=True)
    (root / model_file).write_bytes(model.encode() + b"\0")  # as the kernel has it
    (root / "boot/firmware/overlays").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(config_txt)
    (root / "boot/firmware/overlays/ws2812-pio.dtbo").write_bytes(b"")
    etc = root / "etc"
    etc.mkdir()
    (etc / "hostname").write_text(hostname + "\n")
    (etc / "hosts").write_text(f"127.0.0.1\tlocalhost\n127.0.1.1\t{hostname}\n")
    (etc / "group").write_text("root:x:0:\ngpio:x:997:pi\nspi:x:999:pi\n")
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    raspi_config = root / "usr/bin/raspi-config"
    raspi_config.parent.mkdir(parents=True)
    raspi_config.write_text("#!/bin/sh\n")
    raspi_config.chmod(0o755)
    return root


def web_unit(port: int = 80) -> str:
    """kalimambo.service as setup.sh writes it."""
    caps = "CAP_NET_BIND_SERVICE" if port < 1024 else ""
    return str(helper.render(UNIT_TEMPLATE, [
        f"REPO={ROOT}", "VENV=/opt/kalimambo/venv", "CONFIG=/etc/kalimambo/board.toml",
        f"PORT={port}", f"CAPS={caps}"]))


def lights_unit(as_root: bool, venv: str = "/opt/kalimambo/venv") -> str:
    """kalimambo-lights.service as setup.sh writes it (root on a Pi 2-4 / Zero 2 W, else not)."""
    if as_root:
        values = ["USER=root", "GROUPS=kalimambo", "CAPS=CAP_SYS_RAWIO",
                  "WHY=runs as root: rpi-ws281x drives GPIO 18 through /dev/mem "
                  "(CAP_SYS_RAWIO only)"]
    else:
        values = ["USER=kalimambo", "GROUPS=gpio", "CAPS=",
                  "WHY=runs as kalimambo: the Pi 5 strip (/dev/leds0) and the pins only "
                  "need group gpio"]
    return str(helper.render(LIGHTS_TEMPLATE, [
        f"REPO={ROOT}", f"VENV={venv}", "CONFIG=/etc/kalimambo/board.toml", *values]))


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() if path.is_file() else b"<dir>"
            for path in sorted(root.rglob("*"))}


def setup_sh(*args: str, root: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "KALIMAMBO_ROOT"}
    env["PYTHON"] = sys.executable
    if root is not None:
        env["KALIMAMBO_ROOT"] = str(root)
    return subprocess.run(["bash", str(SETUP), *args], capture_output=True, text=True,
                          env=env, timeout=60, stdin=subprocess.DEVNULL)


def dry_run(root: Path, *args: str) -> str:
    before = snapshot(root)
    done = setup_sh("--dry-run", *args, root=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert snapshot(root) == before, "a dry run changed files"
    return done.stdout


def lines_with(text: str, needle: str) -> list[str]:
    return [line for line in text.splitlines() if needle in line]


# ---- the command line ------------------------------------------------------------------

def test_help_names_every_mode() -> None:
    done = setup_sh("--help")
    assert done.returncode == 0
    for option in ("--dev", "--dry-run", "--hotspot NAME", "--uninstall", "--purge"):
        assert option in done.stdout


@pytest.mark.parametrize(("args", "says"), [
    (["--bogus"], "unknown option '--bogus'"),
    (["--purge"], "--purge only goes with --uninstall"),
    (["--hotspot"], "--hotspot needs a value"),
    (["--port", "80x"], "--port takes a port number"),
    (["--country", "gb"], "two-letter country code"),
    (["--hostname", "Kali Mambo"], "not a usable host name"),
    (["--hotspot", "Booth", "--hotspot-password", "short"], "8 to 63 characters"),
])
def test_bad_options_end_in_one_line_and_status_2(args: list[str], says: str) -> None:
    done = setup_sh("--dry-run", *args)
    assert done.returncode == 2
    assert says in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_fake_root_only_with_dry_run(tmp_path: Path) -> None:
    done = setup_sh(root=fake_pi(tmp_path, PI4))
    assert done.returncode == 2
    assert "only works with --dry-run" in done.stderr


def test_hotspot_needs_a_pi(tmp_path: Path) -> None:
    done = setup_sh("--dry-run", "--hotspot", "Booth", root=tmp_path)
    assert done.returncode == 2
    assert "for a Raspberry Pi" in done.stderr


def test_dry_run_off_a_pi_only_makes_the_venv(tmp_path: Path) -> None:
    out = dry_run(tmp_path, "--dev")
    assert "would run:" in out
    assert lines_with(out, "pip install --quiet -e '.[dev]'")
    for pi_only in ("apt-get install", "systemctl", "kalimambo.service", "config.txt", "nmcli"):
        assert pi_only not in out
    if sys.platform == "linux" and platform.machine() in LGPIO_MACHINES:
        # lgpio's wheel (PyPI's, or built for Python 3.12+) before pip would try its sdist
        lines = out.splitlines()
        build = lines.index("   would run: .venv/bin/python deploy/build_lgpio.py --install")
        assert build < lines.index("   would run: .venv/bin/python -m pip install --quiet "
                                   "-e '.[dev]'")


def test_without_dev_lgpio_is_neither_built_nor_installed(tmp_path: Path) -> None:
    out = dry_run(tmp_path)
    assert lines_with(out, "pip install --quiet -e .")
    assert "lgpio" not in out


# ---- Raspberry Pi dry runs -------------------------------------------------------------

def test_dry_run_pi4(tmp_path: Path) -> None:
    out = dry_run(fake_pi(tmp_path, PI4))
    assert f"Machine: {PI4}" in out
    apt = lines_with(out, "apt-get install")
    assert len(apt) == 1
    for package in ("python3-venv", "python3-lgpio", "avahi-daemon", "python3-dev"):
        assert f" {package}" in apt[0]
    # rpi-ws281x through the [pi] extra, into the service's venv that sees apt's lgpio
    assert "with rpi-ws281x for the strip on GPIO 18" in out
    assert lines_with(out, "venv --system-site-packages /opt/kalimambo/venv")
    assert lines_with(out, "--root-user-action=ignore '/opt/kalimambo/src[pi]'")
    assert "ws2812-pio" not in out
    assert "config.txt" not in out  # nothing to add on a Pi 4 with GPIO 18
    assert "blacklist snd_bcm2835" in out
    assert lines_with(out, "install -m 0644 ") == [
        f"   would run: install -m 0644 {ROOT}/hardware/boards/pi4-gpio18.toml "
        "/etc/kalimambo/board.toml"]
    assert lines_with(out, "install -d -m 0750 -o kalimambo -g kalimambo /var/lib/kalimambo")
    assert "would install /etc/systemd/system/kalimambo.service" in out
    assert "would install /etc/systemd/system/kalimambo-lights.service" in out
    # the table as kalimambo with one capability; the lights as root (rpi-ws281x, /dev/mem)
    assert lines_with(out, "   |  User=") == ["   |  User=kalimambo", "   |  User=root"]
    assert "   |  AmbientCapabilities=CAP_NET_BIND_SERVICE" in out
    assert "   |  CapabilityBoundingSet=CAP_SYS_RAWIO" in out
    assert "   |  SupplementaryGroups=kalimambo" in out  # to open the table's socket
    assert len(lines_with(out, "useradd --system")) == 1
    exec_start = lines_with(out, "ExecStart=")
    assert exec_start == [
        "   |  ExecStart=/opt/kalimambo/venv/bin/kalimambo serve --port 80 "
        "--data-dir /var/lib/kalimambo --config /etc/kalimambo/board.toml "
        "--lights external --lights-socket /run/kalimambo/lights.sock",
        "   |  ExecStart=/opt/kalimambo/venv/bin/kalimambo lights "
        "--socket /run/kalimambo/lights.sock --config /etc/kalimambo/board.toml"]
    assert "   |  Restart=on-failure" in out
    assert "   |  Restart=always" in out
    assert lines_with(out, "would run: systemctl enable kalimambo.service "
                           "kalimambo-lights.service")
    assert lines_with(out, "would run: systemctl enable --now avahi-daemon.service")
    assert lines_with(out, "would run: hostnamectl set-hostname kalimambo")
    assert "would set /etc/hosts: 127.0.1.1 kalimambo" in out
    assert "reboot" in out  # the audio blacklist takes effect at boot
    # quiet apt, no recommends (X11 libraries, fonts); one venv, the services' (no second
    # copy in the checkout: 'kalimambo' on the PATH is the services'), rpi-ws281x compiled
    # for it with a current pip
    assert "--no-install-recommends" in apt[0] and " -qq " in apt[0]
    assert not lines_with(out, "Python environment")
    assert not lines_with(out, "pip install --quiet -e")
    assert len(lines_with(out, "[pi]")) == 1
    assert lines_with(out, "/opt/kalimambo/venv/bin/python -m pip install --quiet "
                           "--root-user-action=ignore --upgrade pip")
    assert lines_with(out, "to /opt/kalimambo/src, owned by root")


def test_dry_run_pi5(tmp_path: Path) -> None:
    out = dry_run(fake_pi(tmp_path, PI5))
    assert f"Machine: {PI5}" in out
    apt = lines_with(out, "apt-get install")
    assert len(apt) == 1
    for package in ("python3-venv", "python3-lgpio", "avahi-daemon"):
        assert f" {package}" in apt[0]
    assert "python3-dev" not in apt[0]  # nothing to compile on a Pi 5
    commands = "\n".join(line for line in out.splitlines() if not line.startswith("   |"))
    assert "rpi-ws281x" not in commands
    assert "[pi]" not in out
    assert lines_with(out, "pip install --quiet --root-user-action=ignore /opt/kalimambo/src")
    overlay = "dtoverlay=ws2812-pio,gpio=18,num_leds=64"
    assert lines_with(out, overlay) == [f"   |  {overlay}"]
    assert "would append to /boot/firmware/config.txt:" in out
    assert "snd_bcm2835" not in out
    assert lines_with(out, "install -m 0644 ") == [
        f"   would run: install -m 0644 {ROOT}/hardware/boards/pi5-pio-2led.toml "
        "/etc/kalimambo/board.toml"]
    useradd = lines_with(out, "useradd")
    assert len(useradd) == 1
    assert "--system" in useradd[0]
    assert "--groups" not in useradd[0]  # only the lights unit gets group gpio
    assert "would install /etc/udev/rules.d/99-kalimambo-leds.rules" in out
    assert lines_with(out, "   |  User=") == ["   |  User=kalimambo"] * 2
    assert "   |  SupplementaryGroups=gpio" in out
    assert "   |  CapabilityBoundingSet=" in out  # the lights: no capability at all
    assert lines_with(out, "install -d -m 0750 -o kalimambo -g kalimambo /var/lib/kalimambo")
    assert lines_with(out, "would run: systemctl restart kalimambo.service "
                           "kalimambo-lights.service")
    assert "missing" not in out  # the fake root has the overlay file


def test_a_second_run_on_an_installed_pi5_changes_only_what_it_must(tmp_path: Path) -> None:
    """Safe twice: with everything in place, no file is rewritten and no user is made."""
    root = fake_pi(tmp_path, PI5, hostname="kalimambo")
    helper.config_block(root / "boot/firmware/config.txt",
                        ["dtoverlay=ws2812-pio,gpio=18,num_leds=64"], dry_run=False)
    unit = root / "etc/systemd/system/kalimambo.service"
    unit.parent.mkdir(parents=True)
    unit.write_text(web_unit())
    (unit.parent / "kalimambo-lights.service").write_text(lights_unit(as_root=False))
    rules = root / "etc/udev/rules.d/99-kalimambo-leds.rules"
    rules.parent.mkdir(parents=True)
    shutil.copy(ROOT / "deploy/99-kalimambo-leds.rules", rules)
    (root / "etc/kalimambo").mkdir()
    shutil.copy(ROOT / "hardware/boards/pi5-pio-2led.toml", root / "etc/kalimambo/board.toml")
    (root / "var/lib/kalimambo").mkdir(parents=True)
    (root / "opt/kalimambo/venv/bin").mkdir(parents=True)
    (root / "opt/kalimambo/venv/bin/python").write_text("")
    (root / "opt/kalimambo/venv/bin/python").chmod(0o755)
    (root / "usr/local/bin").mkdir(parents=True)
    (root / "usr/local/bin/kalimambo").symlink_to("/opt/kalimambo/venv/bin/kalimambo")
    with (root / "etc/passwd").open("a") as passwd:
        passwd.write("kalimambo:x:998:998::/var/lib/kalimambo:/usr/sbin/nologin\n")

    out = dry_run(root)
    assert "unchanged: /etc/systemd/system/kalimambo.service" in out
    assert "unchanged: /etc/systemd/system/kalimambo-lights.service" in out
    assert "unchanged: /usr/local/bin/kalimambo" in out
    assert "unchanged: /etc/udev/rules.d/99-kalimambo-leds.rules" in out
    assert "unchanged: /boot/firmware/config.txt already has dtoverlay=ws2812-pio" in out
    assert "kept: /etc/kalimambo/board.toml" in out
    for not_again in ("would install", "would append", "daemon-reload", "useradd", "gpasswd",
                      "python3 -m venv", "-m venv", "hostnamectl", "reboot once"):
        assert not_again not in out, not_again
    # what a second run still does on purpose: refresh the code and restart the service
    assert lines_with(out, "would run: systemctl restart kalimambo.service")


def test_an_older_set_up_loses_its_gpio_group_and_gets_two_units(tmp_path: Path) -> None:
    """Before the lights had their own service, the one unit ran with group gpio."""
    root = fake_pi(tmp_path, PI5)
    with (root / "etc/passwd").open("a") as passwd:
        passwd.write("kalimambo:x:998:998::/var/lib/kalimambo:/usr/sbin/nologin\n")
    (root / "etc/group").write_text("root:x:0:\ngpio:x:997:pi,kalimambo\nspi:x:999:pi\n")
    out = dry_run(root)
    assert lines_with(out, "would run: gpasswd -d kalimambo gpio")
    assert "gpasswd -d kalimambo spi" not in out
    assert "useradd" not in out


@pytest.mark.parametrize("model", [ZERO_W, PI1, "Raspberry Pi Zero Rev 1.3"])
def test_armv6_pis_are_refused_by_name_before_any_change(tmp_path: Path, model: str) -> None:
    done = setup_sh("--dry-run", root=fake_pi(tmp_path, model))
    assert done.returncode == 2
    assert f"{model} (ARMv6: Pi 1, Zero, Zero W) is not supported" in done.stderr
    assert "armv6l" in done.stderr
    assert "would run" not in done.stdout


def test_the_model_is_also_read_where_an_emulated_root_fakes_it(tmp_path: Path) -> None:
    root = fake_pi(tmp_path, PI5, model_file="sys/firmware/devicetree/base/model")
    out = dry_run(root)
    assert f"Machine: {PI5}" in out
    assert lines_with(out, "dtoverlay=ws2812-pio")


def test_country_without_hotspot_sets_the_wifi_country(tmp_path: Path) -> None:
    out = dry_run(fake_pi(tmp_path, PI4), "--country", "GB")
    assert lines_with(out, "would run: raspi-config nonint do_wifi_country GB")
    assert "nmcli" not in out


def test_country_without_raspi_config_is_refused(tmp_path: Path) -> None:
    root = fake_pi(tmp_path, PI4)
    (root / "usr/bin/raspi-config").unlink()
    done = setup_sh("--dry-run", "--country", "GB", root=root)
    assert done.returncode == 2
    assert "--country sets the Wi-Fi country with raspi-config, which is missing" in done.stderr


def test_zero_2_w_counts_as_a_pi_1_to_4(tmp_path: Path) -> None:
    out = dry_run(fake_pi(tmp_path, ZERO2))
    assert lines_with(out, "/opt/kalimambo/src[pi]")
    assert "ws2812-pio" not in out


@pytest.mark.parametrize("gpio", [12, 13, 18, 19])
def test_every_pwm_pin_switches_the_analog_audio_off(tmp_path: Path, gpio: int) -> None:
    """rpi-ws281x's PWM0 (GPIO 12, 18) and PWM1 (13, 19) are the analog audio's PWM."""
    root = fake_pi(tmp_path, PI4)
    (root / "etc/kalimambo").mkdir()
    (root / "etc/kalimambo/board.toml").write_text(f"[strip]\ngpio = {gpio}\n")
    out = dry_run(root)
    assert "blacklist snd_bcm2835" in out
    assert "config.txt" not in out


@pytest.mark.parametrize("gpio", [10, 21])
def test_spi_and_pcm_keep_the_analog_audio(tmp_path: Path, gpio: int) -> None:
    root = fake_pi(tmp_path, PI4)
    (root / "etc/kalimambo").mkdir()
    (root / "etc/kalimambo/board.toml").write_text(f"[strip]\ngpio = {gpio}\n")
    out = dry_run(root)
    assert "snd_bcm2835" not in out


@pytest.mark.parametrize(("model", "clock"), [
    (PI4, ["core_freq=500", "core_freq_min=500"]),
    ("Raspberry Pi 400 Rev 1.0", ["core_freq=500", "core_freq_min=500"]),
    ("Raspberry Pi 3 Model B Plus Rev 1.3", ["core_freq=250"]),
    (ZERO2, ["core_freq=250"]),
], ids=["pi4", "pi400", "pi3", "zero2w"])
def test_spi_gets_spi_on_and_a_steady_core_clock(tmp_path: Path, model: str,
                                                 clock: list[str]) -> None:
    """rpi-ws281x's README: on SPI a Pi 3 needs core_freq=250, a Pi 4 core_freq=500 and
    core_freq_min=500, or the SPI clock (divided from the core's) comes out wrong."""
    root = fake_pi(tmp_path, model)
    (root / "etc/kalimambo").mkdir()
    (root / "etc/kalimambo/board.toml").write_text("[strip]\ngpio = 10\n")
    out = dry_run(root)
    block = [line.removeprefix("   |  ") for line in out.splitlines()
             if line.startswith("   |  ") and "=" in line and "kalimambo" not in line
             and not line.startswith("   |  [")]
    assert block[:1 + len(clock)] == ["dtparam=spi=on", *clock]
    config = root / "boot/firmware/config.txt"
    assert helper.config_block(config, ["dtparam=spi=on", *clock], dry_run=False) == "add"
    assert "unchanged: /boot/firmware/config.txt already has dtparam=spi=on " + " ".join(
        clock) in dry_run(root)


def test_pi5_without_the_overlay_file_is_told_to_upgrade(tmp_path: Path) -> None:
    root = fake_pi(tmp_path, PI5)
    (root / "boot/firmware/overlays/ws2812-pio.dtbo").unlink()
    out = dry_run(root)
    assert "ws2812-pio.dtbo is missing" in out
    assert "full-upgrade" in out


def test_existing_board_file_is_kept_and_drives_the_overlay(tmp_path: Path) -> None:
    root = fake_pi(tmp_path, PI5)
    (root / "etc/kalimambo").mkdir()
    (root / "etc/kalimambo/board.toml").write_text(
        '[track]\nspaces = 40\n[strip]\nbackend = "auto"\nled_count = 80\ngpio = 12\n')
    out = dry_run(root)
    assert "kept: /etc/kalimambo/board.toml" in out
    assert "hardware/boards/" not in out
    assert lines_with(out, "dtoverlay=ws2812-pio,gpio=12,num_leds=80")


def test_overlay_already_there_is_not_added_again(tmp_path: Path) -> None:
    config = tmp_path / "config.txt"
    config.write_text("[all]\ndtparam=audio=on\n")
    overlay = "dtoverlay=ws2812-pio,gpio=18,num_leds=64"
    assert helper.config_block(config, [overlay], dry_run=False) == "add"
    root = fake_pi(tmp_path / "root", PI5, config_txt=config.read_text(),
                   hostname="kalimambo")
    out = dry_run(root)
    assert "unchanged: /boot/firmware/config.txt already has " + overlay in out
    assert "append" not in out
    assert "hostnamectl" not in out


def test_a_hand_written_overlay_line_is_respected(tmp_path: Path) -> None:
    root = fake_pi(tmp_path, PI5, config_txt="[all]\ndtoverlay=ws2812-pio,gpio=4\n")
    out = dry_run(root)
    assert "append" not in out
    assert "kept your own line for dtoverlay=ws2812-pio" in out


@pytest.mark.parametrize(("model", "board", "says"), [
    (PI5, '[strip]\nbackend = "ws281x"\n',
     'strip.backend = "ws281x" does not work on a Raspberry Pi 5'),  # the wrong Pi
    (PI4, "[strip]\ngpio = 99\n", "strip.gpio"),  # broken: the message names the key
], ids=["wrong pi", "broken"])
def test_a_board_file_setup_cannot_use_is_refused_before_any_change(
        tmp_path: Path, model: str, board: str, says: str) -> None:
    root = fake_pi(tmp_path, model)
    (root / "etc/kalimambo").mkdir()
    (root / "etc/kalimambo/board.toml").write_text(board)
    done = setup_sh("--dry-run", root=root)
    assert done.returncode == 2
    assert says in done.stderr
    assert "would run" not in done.stdout


def test_hotspot_dry_run(tmp_path: Path) -> None:
    out = dry_run(fake_pi(tmp_path, PI4), "--hotspot", "Kalimambo Booth",
                  "--hotspot-password", "rhinodung42", "--country", "DE")
    assert lines_with(out, "raspi-config nonint do_wifi_country DE")
    add = lines_with(out, "nmcli connection add")
    assert len(add) == 1
    for part in ("type wifi ifname wlan0 con-name kalimambo-hotspot",
                 "802-11-wireless.ssid 'Kalimambo Booth'", "802-11-wireless.mode ap",
                 "ipv4.method shared", "ipv4.addresses 10.42.0.1/24",
                 "connection.autoconnect yes", "wifi-sec.key-mgmt wpa-psk"):
        assert part in add[0]
    assert "rhinodung42" not in out  # the password is never printed
    assert lines_with(out, "nmcli connection up kalimambo-hotspot")
    assert "open http://10.42.0.1/" in out
    # port 80 without root: the table runs as kalimambo with CAP_NET_BIND_SERVICE
    assert "--port 80 " in lines_with(out, "ExecStart=")[0]
    assert "   |  AmbientCapabilities=CAP_NET_BIND_SERVICE" in out


def test_hotspot_channel_and_the_table_restarted_without_waiting_at_boot(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A card's boot service (KALIMAMBO_AT_BOOT) passes its channel; the table's restarts
    are queued (--no-block): that service runs before the table and would wait for itself."""
    root = fake_pi(tmp_path, PI4)
    out = dry_run(root, "--hotspot", "kalimambo-abcd", "--hotspot-channel", "11")
    assert "802-11-wireless.channel 11" in lines_with(out, "nmcli connection add")[0]
    assert lines_with(out, "systemctl restart kalimambo.service")
    assert not lines_with(out, "--no-block")
    monkeypatch.setenv("KALIMAMBO_AT_BOOT", "1")
    booted = dry_run(root, "--hotspot", "kalimambo-abcd", "--hotspot-channel", "11")
    monkeypatch.delenv("KALIMAMBO_AT_BOOT")
    assert lines_with(booted, "systemctl --no-block restart kalimambo.service")
    assert not lines_with(booted, "systemctl restart kalimambo")
    for wrong, words in (("14", "from 1 to 13, not '14'"), ("six", "not 'six'")):
        done = setup_sh("--dry-run", "--hotspot", "x", "--hotspot-channel", wrong, root=root)
        assert done.returncode == 2 and words in done.stderr
    done = setup_sh("--dry-run", "--hotspot-channel", "6", root=root)
    assert done.returncode == 2 and "--hotspot-channel goes with --hotspot" in done.stderr


def test_hotspot_installs_what_it_calls(tmp_path: Path) -> None:
    """rfkill, dnsmasq-base (NetworkManager's shared mode) and wpasupplicant: Raspberry Pi
    OS has them, a trimmed system may not (the first booted install stopped at rfkill)."""
    out = dry_run(fake_pi(tmp_path, PI4), "--hotspot", "Booth")
    install = lines_with(out, "apt-get install")
    assert any(all(pkg in line for pkg in ("rfkill", "dnsmasq-base", "wpasupplicant"))
               for line in install), install
    assert out.index("rfkill dnsmasq-base") < out.index("rfkill unblock wifi")


def test_hotspot_tells_the_table_and_its_dns(tmp_path: Path) -> None:
    """The hotspot's name and password for the board's Wi-Fi code (root and the table's
    user only, the password never printed), and the DNS drop-in with its folder made
    before the hotspot (and so its dnsmasq) comes up."""
    out = dry_run(fake_pi(tmp_path, PI4), "--hotspot", "Booth", "--hotspot-password",
                  "rhinodung42")
    assert "rhinodung42" not in out
    assert "would write /etc/kalimambo/hotspot.toml (mode 0640, root:kalimambo" in out
    folder = lines_with(out, "would run: install -d -m 0755 -o kalimambo -g kalimambo "
                             "/var/lib/kalimambo-portal")
    assert folder
    assert "would install /etc/NetworkManager/dnsmasq-shared.d/kalimambo-portal.conf" in out
    assert "   |  hostsdir=/var/lib/kalimambo-portal" in out
    assert out.index("kalimambo-portal.conf") < out.index(
        "would run: nmcli connection up kalimambo-hotspot")
    # the hotspot shares the Ethernet through NetworkManager's nft table: its kernel parts
    # early in the boot, and a second try if the table is missing all the same
    assert ("would install /etc/modules-load.d/kalimambo-hotspot.conf (mode 0644)" in out)
    assert "   |  nft_masq" in out
    assert ("would install /etc/NetworkManager/dispatcher.d/90-kalimambo-hotspot-nat "
            "(mode 0755)") in out


@pytest.mark.parametrize("how", [("--no-hotspot",), ("--uninstall",)])
def test_no_hotspot_and_uninstall_remove_what_the_hotspot_added(
        tmp_path: Path, how: tuple[str, ...]) -> None:
    root = fake_pi(tmp_path, PI4)
    for path in ("etc/kalimambo/hotspot.toml", "var/lib/kalimambo-portal/kalimambo-probes",
                 "etc/NetworkManager/dnsmasq-shared.d/kalimambo-portal.conf",
                 "etc/NetworkManager/dispatcher.d/90-kalimambo-hotspot-nat",
                 "etc/modules-load.d/kalimambo-hotspot.conf"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x\n")
    out = dry_run(root, *how)
    for path in ("/etc/kalimambo/hotspot.toml", "/var/lib/kalimambo-portal",
                 "/etc/NetworkManager/dnsmasq-shared.d/kalimambo-portal.conf",
                 "/etc/NetworkManager/dispatcher.d/90-kalimambo-hotspot-nat",
                 "/etc/modules-load.d/kalimambo-hotspot.conf"):
        assert lines_with(out, f"would run: rm -rf {path}"), path


@pytest.mark.parametrize(("password", "secured_before", "removes_security"), [
    ("rhinodung42", True, False), (None, True, True), (None, False, False)])
def test_an_existing_hotspot_is_changed_in_place(
        tmp_path: Path, password: str | None, secured_before: bool,
        removes_security: bool) -> None:
    """A second run must change nothing: the same connection is modified, never deleted and
    added again (a new UUID, a new file, phones dropped); going open drops the security."""
    root = fake_pi(tmp_path, PI4)
    keyfile = root / "etc/NetworkManager/system-connections/kalimambo-hotspot.nmconnection"
    keyfile.parent.mkdir(parents=True)
    keyfile.write_text("[connection]\nid=kalimambo-hotspot\n"
                       + ("[wifi-security]\nkey-mgmt=wpa-psk\n" if secured_before else ""))
    args = ["--hotspot", "Booth"] + (["--hotspot-password", password] if password else [])
    out = dry_run(root, *args)
    assert not lines_with(out, "nmcli connection add")
    assert not lines_with(out, "nmcli connection delete")
    assert len(lines_with(out, "nmcli connection modify kalimambo-hotspot connection.")) == 1
    removed = lines_with(out, "remove 802-11-wireless-security")
    assert bool(removed) == removes_security


def test_uninstall_dry_run_keeps_data_unless_purged(tmp_path: Path) -> None:
    root = fake_pi(tmp_path, PI5, hostname="kalimambo")
    config = root / "boot/firmware/config.txt"
    helper.config_block(config, ["dtoverlay=ws2812-pio,gpio=18,num_leds=64"], dry_run=False)
    for path in ("etc/systemd/system/kalimambo.service",
                 "etc/systemd/system/kalimambo-lights.service",
                 "run/kalimambo/lights.sock", "var/lib/kalimambo/.lgd-nfy0",
                 "var/lib/kalimambo/.gunicorn/control",
                 "etc/udev/rules.d/99-kalimambo-leds.rules", "etc/kalimambo/board.toml",
                 "etc/NetworkManager/system-connections/kalimambo-hotspot.nmconnection",
                 "var/lib/kalimambo/games/1.json", "opt/kalimambo/venv/bin/python"):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x\n")
    (root / "etc/kalimambo/setup-state").write_text("previous_hostname=raspberrypi\n")
    with (root / "etc/passwd").open("a") as passwd:
        passwd.write("kalimambo:x:998:998::/var/lib/kalimambo:/usr/sbin/nologin\n")

    out = dry_run(root, "--uninstall")
    for wanted in ("systemctl disable --now kalimambo-lights.service kalimambo.service",
                   "rm -f /etc/systemd/system/kalimambo-lights.service "
                   "/etc/systemd/system/kalimambo.service", "rm -rf /run/kalimambo",
                   "rm -rf /var/lib/kalimambo/.lgd-nfy0", "rm -rf /var/lib/kalimambo/.gunicorn",
                   "chown -R root:root /var/lib/kalimambo",
                   "rm -f /etc/udev/rules.d/99-kalimambo-leds.rules",
                   "rm -rf /opt/kalimambo", "nmcli connection delete kalimambo-hotspot",
                   "userdel kalimambo", "hostnamectl set-hostname raspberrypi"):
        assert lines_with(out, "would run: " + wanted), wanted
    assert "would remove setup.sh's block from /boot/firmware/config.txt" in out
    assert "kept: /etc/kalimambo/board.toml" in out
    assert "kept: /var/lib/kalimambo, owned by root" in out
    assert "rm -rf /var/lib/kalimambo/games" not in out
    # the saved games are kept, then the user goes: chown before userdel
    assert out.index("chown -R root:root") < out.index("userdel kalimambo")

    purged = dry_run(root, "--uninstall", "--purge")
    assert lines_with(purged, "would run: rm -rf /etc/kalimambo")
    assert lines_with(purged, "would run: rm -rf /var/lib/kalimambo")
    assert "chown" not in purged


def test_uninstall_on_a_clean_machine_changes_nothing(tmp_path: Path) -> None:
    out = dry_run(fake_pi(tmp_path, PI4), "--uninstall")
    assert "would run" not in out
    assert "would remove" not in out


# ---- the helper's edits: exact and idempotent -----------------------------------------

def test_config_block_add_again_replace_remove(tmp_path: Path) -> None:
    config = tmp_path / "config.txt"
    original = "# Pi OS\n[all]\ndtparam=audio=on\n[cm4]\notg_mode=1\n"
    config.write_text(original)
    line = "dtoverlay=ws2812-pio,gpio=18,num_leds=64"
    assert helper.config_block(config, [line], dry_run=True) == "add"
    assert config.read_text() == original  # a dry run writes nothing
    assert helper.config_block(config, [line], dry_run=False) == "add"
    text = config.read_text()
    assert text.startswith(original)
    assert text.count(line) == 1
    # the block opens with [all], so it is not swallowed by the [cm4] section above it
    assert text[len(original):].splitlines()[1:3] == ["[all]", line]
    assert helper.config_block(config, [line], dry_run=False) == "unchanged"
    assert config.read_text() == text
    bigger = "dtoverlay=ws2812-pio,gpio=18,num_leds=80"
    assert helper.config_block(config, [bigger], dry_run=False) == "replace"
    assert line not in config.read_text()
    assert config.read_text().count(bigger) == 1
    assert helper.config_block(config, [], dry_run=False) == "remove"
    assert config.read_text() == original
    assert helper.config_block(config, [], dry_run=False) == "absent"


def test_hosts_names_the_pi(tmp_path: Path) -> None:
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1\tlocalhost\n127.0.1.1\traspberrypi\n::1\tlocalhost\n")
    assert helper.hosts(hosts, "kalimambo", dry_run=False) == "replace"
    assert hosts.read_text() == "127.0.0.1\tlocalhost\n127.0.1.1\tkalimambo\n::1\tlocalhost\n"
    assert helper.hosts(hosts, "kalimambo", dry_run=False) == "unchanged"
    with pytest.raises(helper.HelperError):
        helper.hosts(hosts, "Bad Name", dry_run=False)


def test_render_refuses_a_missing_value(tmp_path: Path) -> None:
    with pytest.raises(helper.HelperError, match="no value for"):
        helper.render(UNIT_TEMPLATE, ["USER=root"])


def test_board_info_defaults_and_errors(tmp_path: Path) -> None:
    board = tmp_path / "board.toml"
    board.write_text("[track]\nspaces = 30\n")
    info = helper.board_info(board)
    assert (info["backend"], info["gpio"], info["led_count"]) == ("auto", "18", "30")
    board.write_text('[strip]\nbackend = "neopixel"\n')
    with pytest.raises(helper.HelperError, match=r"strip\.backend"):
        helper.board_info(board)
    board.write_text("[strip\n")
    with pytest.raises(helper.HelperError, match="not valid TOML"):
        helper.board_info(board)


@pytest.mark.parametrize("text", [
    "[track]\nspaces = 30\n[layout]\nleds_per_space = 3\n",  # 90 LEDs needed, 30 counted
    f"[strip]\nled_count = {MAX_LEDS + 1}\n",
    "[strip]\nlayout = 3\n",
])
def test_board_info_refuses_what_the_lights_refuse(tmp_path: Path, text: str) -> None:
    board = tmp_path / "board.toml"
    board.write_text(text)
    with pytest.raises(HardwareFileError) as lights:
        load_hardware_file(board)
    with pytest.raises(helper.HelperError) as setup:
        helper.board_info(board)
    assert str(setup.value) == str(lights.value)


def test_board_info_runs_without_a_venv(tmp_path: Path) -> None:
    """setup.sh reads the board file with the system python3, before any venv exists."""
    board = tmp_path / "board.toml"
    board.write_text("[track]\nspaces = 40\n[strip]\nled_count = 80\ngpio = 12\n")
    done = subprocess.run([sys.executable, "-S", "-P", str(HELPER), "board-info", str(board)],
                          capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "led_count=80" in done.stdout.splitlines()
    board.write_text(f"[strip]\nled_count = {MAX_LEDS + 1}\n")
    done = subprocess.run([sys.executable, "-S", "-P", str(HELPER), "board-info", str(board)],
                          capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert done.returncode == 2
    assert f"strip.led_count: must be a whole number from 1 to {MAX_LEDS}" in done.stderr


# ---- tools -----------------------------------------------------------------------------

def test_shellcheck_passes() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed ('./setup.sh --dev' as root installs it; "
                    "otherwise 'sudo apt-get install shellcheck')")
    done = subprocess.run([shellcheck, "--severity=style", str(SETUP)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("which", ["web", "lights as root", "lights as kalimambo"])
def test_units_pass_systemd_analyze_verify(tmp_path: Path, which: str) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not on this machine")
    venv = Path(sys.prefix)
    if not (venv / "bin" / "kalimambo").exists():
        pytest.skip(f"{venv}/bin/kalimambo is missing: run ./setup.sh first")
    if which == "web":
        unit = tmp_path / "kalimambo.service"
        unit.write_text(web_unit().replace("/opt/kalimambo/venv", str(venv)))
    else:
        unit = tmp_path / "kalimambo-lights.service"
        unit.write_text(lights_unit(as_root=which == "lights as root", venv=str(venv)))
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    # an unknown key or a bad value is only a warning for systemd: refuse those too
    assert str(unit) not in done.stdout + done.stderr, done.stdout + done.stderr


def exposure(unit: Path) -> float:
    """systemd-analyze's overall exposure score (0 safe .. 10 unsafe) for a unit file."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not on this machine")
    done = subprocess.run([analyze, "security", "--offline=true", str(unit)],
                          capture_output=True, text=True, timeout=120)
    if "offline" in done.stderr and done.returncode != 0:
        pytest.skip("this systemd-analyze has no --offline (systemd 252 or newer has)")
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d)", done.stdout)
    assert found, done.stdout + done.stderr
    return float(found.group(1))


def test_the_units_are_sandboxed(tmp_path: Path) -> None:
    """The table's unit scores below 4.0 (the single root unit before scored 9.0)."""
    web = tmp_path / "kalimambo.service"
    web.write_text(web_unit())
    assert exposure(web) < 4.0
    for as_root in (True, False):
        lights = tmp_path / "kalimambo-lights.service"
        lights.write_text(lights_unit(as_root))
        assert exposure(lights) < 4.0


def test_a_high_port_gets_no_capability() -> None:
    text = web_unit(port=8080)
    assert "AmbientCapabilities=\n" in text
    assert "CapabilityBoundingSet=\n" in text  # empty: no capability at all


def test_lgpio_pipes_are_ignored_and_never_copied() -> None:
    assert ".lgd-nfy*" in (ROOT / ".gitignore").read_text().splitlines()
    assert "--exclude='.lgd-nfy*'" in SETUP.read_text()


def test_the_emulated_pi_harness_parses_and_names_its_models() -> None:
    """tests/pi/run-emulated itself needs root and minutes; here only its command line."""
    harness = ROOT / "tests" / "pi" / "run-emulated"
    done = subprocess.run([sys.executable, str(harness), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "{pi4,pi5,zero2w}" in done.stdout
    bad = subprocess.run([sys.executable, str(harness), "pi3"], capture_output=True,
                         text=True, timeout=60)
    assert bad.returncode == 2
    assert "invalid choice: 'pi3'" in bad.stderr


def test_the_debian_root_harness_parses_and_runs_the_readmes_command() -> None:
    """tests/debian/run-in-root itself needs root and minutes; here its command line, and
    that what it runs is the README's test command, verbatim."""
    harness = ROOT / "tests" / "debian" / "run-in-root"
    done = subprocess.run([sys.executable, str(harness), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "--ref REF" in done.stdout
    bad = subprocess.run([sys.executable, str(harness), "--ref", "no-such-ref-at-all"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2  # not root, or (as root) no such commit: nothing is made
    readme_command = re.search(r"^(\./setup\.sh --dev && \.venv/bin/pytest)$",
                               (ROOT / "README.md").read_text(), re.M)
    assert readme_command
    assert f'COMMAND = "{readme_command.group(1)}"' in harness.read_text()


@pytest.mark.skipif(Path("/proc/device-tree/model").exists(), reason="off a Pi only")
def test_a_second_run_skips_pip_until_pyproject_changes(tmp_path: Path) -> None:
    """pip takes minutes on a Pi Zero 2 W and needs the network: a run whose .venv already
    has what pyproject.toml asks for (the stamp setup.sh writes) leaves it alone."""
    checkout = tmp_path / "checkout"
    (checkout / ".venv/bin").mkdir(parents=True)
    shutil.copy(SETUP, checkout / "setup.sh")
    shutil.copy(ROOT / "pyproject.toml", checkout / "pyproject.toml")
    shutil.copytree(ROOT / "deploy", checkout / "deploy")
    wrapper = checkout / ".venv/bin/python"  # this venv's Python: it imports kalimambo
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    env = {key: value for key, value in os.environ.items() if key != "KALIMAMBO_ROOT"}

    def dry() -> str:
        done = subprocess.run(["bash", str(checkout / "setup.sh"), "--dry-run"], env=env,
                              capture_output=True, text=True, timeout=60, check=True)
        return done.stdout

    assert lines_with(dry(), "pip install --quiet -e .")  # no stamp yet
    version = subprocess.run([sys.executable, "-V"], capture_output=True, text=True).stdout
    stamp = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()
                           + f" {version.strip()}\n".encode()).hexdigest()[:16]
    (checkout / ".venv/.kalimambo-installed").write_text(stamp + "\n")
    out = dry()
    assert "unchanged: Kalimambo is installed in .venv" in out
    assert not lines_with(out, "pip install")
    with (checkout / "pyproject.toml").open("a") as pyproject:
        pyproject.write("\n# a new dependency\n")
    assert lines_with(dry(), "pip install --quiet -e .")


def test_the_unit_gives_the_table_its_open_files() -> None:
    """The table's system-call filter keeps it from raising its own limit, so the unit
    grants the files the door's connections need (``limits.OPEN_FILES``)."""
    from kalimambo.web.http import limits

    unit = UNIT_TEMPLATE.read_text()
    assert re.findall(r"^LimitNOFILE=(\d+)$", unit, re.M) == [str(limits.OPEN_FILES)]
    assert "~@privileged @resources" in unit  # why: setrlimit is in @resources
