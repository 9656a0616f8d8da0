"""The card's read-only root: the word in cmdline.txt that turns it on and off
(deploy/card_root.py, deploy/card_setup.py), and what the card keeps on its data partition
because the root forgets it at every boot (deploy/card_data.py: the machine-id, the SSH
host keys). The booted card, its initramfs and power cuts: tests/pi/run-emulated --image."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.deploy.test_card_setup import BOARD, card
from tests.helpers import ROOT

sys.path.insert(0, str(ROOT / "deploy"))
import card_data  # (deploy/ holds scripts, not a package)
import card_root

PI_OS = ("console=serial0,115200 console=tty1 root=PARTUUID=4e639091-02 rootfstype=ext4 "
         "fsck.repair=yes rootwait quiet")
IMAGER = " systemd.run=/boot/firstrun.sh systemd.run_success_action=reboot"


@pytest.mark.parametrize("line, on", [
    (PI_OS, False),
    (f"{PI_OS} overlayroot=tmpfs:recurse=0", True),
    (f"{PI_OS} overlayroot=tmpfs", True),              # raspi-config's own word
    (f"{PI_OS} overlayroot=disabled", False),
    (f"{PI_OS} overlayroot=tmpfs overlayroot=disabled", False),  # the last one wins
    (f"{PI_OS} overlayroot=", False)])
def test_the_command_line_says_whether_the_root_is_read_only(line: str, on: bool) -> None:
    assert card_root.read_only_in(line) is on


WORDS = f"{card_root.READ_ONLY_WORD} {card_root.NO_ROOT_CHECK}"


def test_turning_it_on_and_off_keeps_every_other_word_in_its_place() -> None:
    on = card_root.with_read_only(PI_OS + "\n", True)
    assert on == f"{PI_OS} {WORDS}\n"  # no check of a root that is never written
    assert card_root.with_read_only(on, True) == on  # once is enough
    assert card_root.with_read_only(on, False) == PI_OS + "\n"
    # raspi-config's word is replaced, not doubled; another fsck.mode gives way
    again = card_root.with_read_only(f"{PI_OS} overlayroot=tmpfs fsck.mode=force", True)
    assert again == f"{PI_OS} {WORDS}\n"
    assert card_root.with_read_only(f"{PI_OS} fsck.mode=force", False) == \
        f"{PI_OS} fsck.mode=force\n"  # (a word of the user's, not ours)
    # before Raspberry Pi Imager's words, which its firstrun.sh cuts off the end
    with_imager = card_root.with_read_only(PI_OS + IMAGER, True)
    assert with_imager == f"{PI_OS} {WORDS}{IMAGER}\n"
    cut = with_imager.split(" systemd.run")[0]
    assert card_root.read_only_in(cut)


def test_the_card_switches_the_mode_in_its_cmdline_txt(tmp_path: Path) -> None:
    cmdline = tmp_path / "cmdline.txt"
    cmdline.write_text(PI_OS + "\n")
    assert card.set_read_only(cmdline, True)
    assert card_root.read_only_in(cmdline.read_text())
    assert not card.set_read_only(cmdline, True)  # no change: no reboot
    assert card.set_read_only(cmdline, False)
    assert cmdline.read_text() == PI_OS + "\n"
    assert [p.name for p in tmp_path.iterdir()] == ["cmdline.txt"]  # no temporary file left


@pytest.mark.parametrize("value, problem", [("true", False), ("false", False),
                                            ('"no"', True), ("0", True)])
def test_read_only_is_a_setting_of_kalimambo_toml(value: str, problem: bool) -> None:
    found = card.read_settings(f"[card]\nread_only = {value}\n", BOARD)
    if problem:
        assert found.problems == [f"kalimambo.toml line 2: read_only = {value} is not true "
                                  "or false; the default is used"]
        assert "card.read_only" not in found.own
    else:
        assert found.problems == []
        assert found.own["card.read_only"] is (value == "true")


def test_an_unknown_section_names_the_sections_there_are() -> None:
    found = card.read_settings("[cards]\nread_only = true\n", BOARD)
    assert found.problems == ["kalimambo.toml: [cards] is not a section this card knows "
                              "(table, hotspot, strip, card); ignored"]


def test_the_machine_id_is_kept_once_made(tmp_path: Path) -> None:
    data, machine_id = tmp_path / "data", tmp_path / "machine-id"
    data.mkdir()
    machine_id.write_text("uninitialized\n")  # systemd has not made one: nothing kept
    card_data.keep_machine_id(data, machine_id)
    assert not (data / "machine-id").exists()
    machine_id.write_text("0123456789abcdef0123456789abcdef\n")
    card_data.keep_machine_id(data, machine_id)
    assert (data / "machine-id").read_text() == "0123456789abcdef0123456789abcdef\n"
    machine_id.write_text("fedcba9876543210fedcba9876543210\n")  # (never replaced)
    card_data.keep_machine_id(data, machine_id)
    assert (data / "machine-id").read_text() == "0123456789abcdef0123456789abcdef\n"


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="no ssh-keygen here")
def test_the_ssh_host_keys_are_made_once_and_come_back_at_every_boot(tmp_path: Path) -> None:
    data, ssh = tmp_path / "data", tmp_path / "etc-ssh"
    data.mkdir()
    ssh.mkdir()
    (ssh / "sshd_config").write_text("# the image's\n")
    card_data.keep_ssh_host_keys(data, ssh)  # the first boot: made and kept
    kept = sorted(p.name for p in (data / "ssh").iterdir())
    assert kept == sorted(f"ssh_host_{kind}_key{end}" for kind in card_data.SSH_KEY_TYPES
                          for end in ("", ".pub"))
    assert (data / "ssh/ssh_host_ed25519_key").stat().st_mode & 0o777 == 0o600
    fingerprint = subprocess.run(["ssh-keygen", "-lf", ssh / "ssh_host_ed25519_key.pub"],
                                 capture_output=True, text=True, check=True).stdout
    for key in ssh.glob("ssh_host_*"):  # a later boot of a read-only root: none there
        key.unlink()
    card_data.keep_ssh_host_keys(data, ssh)
    assert subprocess.run(["ssh-keygen", "-lf", ssh / "ssh_host_ed25519_key.pub"],
                          capture_output=True, text=True, check=True).stdout == fingerprint
    assert (ssh / "ssh_host_ed25519_key").stat().st_mode & 0o777 == 0o600
    assert (ssh / "sshd_config").read_text() == "# the image's\n"
    assert not list(data.glob(".*"))  # no half copy left


def test_the_initramfs_scripts_pass_shellcheck() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed ('./setup.sh --dev' as root installs it)")
    scripts = sorted((ROOT / "deploy" / "initramfs").iterdir())
    assert scripts, "deploy/initramfs/ holds the card's initramfs scripts"
    done = subprocess.run([shellcheck, "--shell=sh", "--severity=style", *map(str, scripts)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
