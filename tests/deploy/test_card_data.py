"""The card's data partition (deploy/card_data.py) on a real disk: a card-like image
(MBR, a FAT boot partition, an ext4 root, free space behind it) on a loop device, with
the real sfdisk, partx, mkfs.ext4, e2fsck and mount. Root only (loop devices, mounts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "deploy"))
import card_data  # (deploy/ holds scripts, not a package)

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(os.geteuid() != 0, reason="needs root: loop devices, mounts")]

TABLE_USER = 1234
"""A uid and gid for the table's user (kalimambo on a card)."""
CARD_MIB = 160
"""The whole card: 4 MiB before the boot partition, 16 MiB boot, 32 MiB root, the rest free."""


def sh(*args: str | Path, stdin: str | None = None) -> str:
    return subprocess.run([str(a) for a in args], input=stdin, capture_output=True,
                          text=True, check=True).stdout


@pytest.fixture
def card(tmp_path: Path) -> Iterator[card_data.Disk]:
    """A flashed card as the data partition's code sees it at first boot."""
    image = tmp_path / "card.img"
    with image.open("wb") as handle:
        handle.truncate(CARD_MIB << 20)
    sh("sfdisk", "--quiet", image, stdin="label: dos\nstart=8192, size=32768, type=c\n"
                                          "start=40960, size=65536, type=83\n")
    try:
        device = sh("losetup", "--find", "--show", "--partscan", image).strip()
    except subprocess.CalledProcessError as error:
        pytest.skip(f"no loop device here: {error.stderr.strip()}")
    try:
        if not Path(f"{device}p2").exists():  # (no udev here to read the table)
            sh("partx", "--add", device)
        sh("mkfs.ext4", "-q", "-L", "rootfs", f"{device}p2")
        yield card_data.Disk(device, 2)
    finally:
        for line in reversed(sh("findmnt", "-rno", "TARGET").splitlines()):
            if line.startswith(str(tmp_path)):
                subprocess.run(["umount", "-l", line], check=False)
        subprocess.run(["losetup", "-d", device], check=False)


def places(tmp_path: Path) -> dict[str, Path]:
    """Where the card keeps its own things, here in a folder of the test's."""
    etc = tmp_path / "etc/kalimambo"
    etc.mkdir(parents=True)
    (etc / "board.toml").write_text("[strip]\nled_count = 32\n")  # what the image has
    games = tmp_path / "var/lib/kalimambo"
    games.mkdir(parents=True, mode=0o750)
    os.chown(games, TABLE_USER, TABLE_USER)  # the table's own, as setup.sh makes it
    return {"etc": etc, "games": games}


def table(device: str) -> list[dict[str, int]]:
    return card_data.partitions(device)[0]


def test_the_first_boot_makes_it_and_later_boots_find_it(card: card_data.Disk,
                                                         tmp_path: Path) -> None:
    at = tmp_path / "data"
    spots = places(tmp_path)
    device = card_data.prepare(card, at, spots)
    after = table(card.device)
    assert [p["number"] for p in after] == [1, 2, 3]
    root, data = after[1], after[2]
    assert data["start"] % card_data.ALIGN_SECTORS == 0
    assert data["start"] >= root["start"] + root["size"]
    assert data["start"] + data["size"] - 1 <= card_data.partitions(card.device)[1]
    assert card_data.label_of(device) == card_data.LABEL
    options = sh("findmnt", "-no", "OPTIONS", at)
    assert "noatime" in options and "data=journal" in options
    # the image's files were carried over, and what the table writes lands on the partition
    assert (spots["etc"] / "board.toml").read_text() == "[strip]\nled_count = 32\n"
    kept = (at / "games").stat()
    assert (kept.st_uid, kept.st_gid, kept.st_mode & 0o777) == (TABLE_USER, TABLE_USER, 0o750)
    (spots["games"] / "kalimambo.sqlite3").write_text("a game")
    assert (at / "games/kalimambo.sqlite3").read_text() == "a game"
    # a later boot: everything found as it was, nothing made again
    for spot in (*spots.values(), at):
        sh("umount", spot)
    assert card_data.prepare(card, at, spots) == device
    assert table(card.device) == after
    assert (spots["games"] / "kalimambo.sqlite3").read_text() == "a game"


def test_a_cut_after_the_partition_table_is_finished_at_the_next_boot(
        card: card_data.Disk, tmp_path: Path) -> None:
    card_data.ensure_partition(card)  # then the plug: no file system yet
    device = card_data.prepare(card, tmp_path / "data", places(tmp_path))
    assert card_data.label_of(device) == card_data.LABEL


def test_a_half_made_file_system_is_made_again(card: card_data.Disk, tmp_path: Path) -> None:
    device = card_data.ensure_partition(card)
    sh("mkfs.ext4", "-q", "-L", card_data.NEW_LABEL, device)  # cut before the label
    card_data.prepare(card, tmp_path / "data", places(tmp_path))
    assert card_data.label_of(device) == card_data.LABEL


def test_whatever_the_card_held_there_before_is_not_taken_for_it(
        card: card_data.Disk, tmp_path: Path) -> None:
    """A used card: an old file system behind the root (a partition entry from before)
    is no data partition until it carries the label."""
    device = card_data.ensure_partition(card)
    sh("mkfs.ext4", "-q", "-L", "holiday-photos", device)
    card_data.prepare(card, tmp_path / "data", places(tmp_path))
    assert card_data.label_of(device) == card_data.LABEL


def test_a_damaged_file_system_is_repaired_without_a_question(card: card_data.Disk,
                                                              tmp_path: Path) -> None:
    at = tmp_path / "data"
    spots = places(tmp_path)
    device = card_data.prepare(card, at, spots)
    (spots["games"] / "kept").write_text("acknowledged")
    for spot in (*spots.values(), at):
        sh("umount", spot)
    # what a cut can leave: the file system marked as having errors, a block bitmap wrong
    sh("debugfs", "-w", "-R", "ssv state 2", device)
    sh("debugfs", "-w", "-R", "setb 5000 20", device)
    assert card_data.check(device) is not None
    assert subprocess.run(["e2fsck", "-n", device], capture_output=True).returncode == 0
    card_data.prepare(card, at, spots)
    assert (spots["games"] / "kept").read_text() == "acknowledged"


def test_a_card_with_no_room_behind_the_root_says_so(tmp_path: Path) -> None:
    image = tmp_path / "full.img"
    with image.open("wb") as handle:
        handle.truncate(64 << 20)
    sh("sfdisk", "--quiet", image, stdin="label: dos\nstart=8192, size=16384, type=c\n"
                                          "start=24576, type=83\n")
    device = sh("losetup", "--find", "--show", "--partscan", image).strip()
    try:
        with pytest.raises(card_data.DataError, match="no room on the card"):
            card_data.ensure_partition(card_data.Disk(device, 2))
        assert [p["number"] for p in table(device)] == [1, 2]  # nothing written
    finally:
        subprocess.run(["losetup", "-d", device], check=False)


def test_the_root_is_found_from_the_kernel_command_line(card: card_data.Disk) -> None:
    disk_id = json.loads(sh("sfdisk", "--json", card.device))["partitiontable"]["id"]
    found = card_data.root_disk(f"console=ttyAMA0 root=PARTUUID={disk_id[2:]}-02 rootwait")
    assert found == card


def test_a_data_partition_that_cannot_be_used_is_said_for_the_host_page(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    problem = tmp_path / "problem"
    monkeypatch.setattr(card_data, "PROBLEM_FILE", problem)
    cmdline = tmp_path / "cmdline"
    cmdline.write_text("console=ttyAMA0 rootwait\n")
    assert card_data.main(["--cmdline", str(cmdline)]) == 1
    assert problem.read_text() == "the data partition: the kernel command line names no root\n"
    assert "names no root" in capsys.readouterr().err
