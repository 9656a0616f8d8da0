"""The card's read-only root: the word in cmdline.txt that turns it on, and what it keeps.

Why Debian's ``overlayroot`` (raspi-config's own overlay mode) and not systemd's volatile
root: Raspberry Pi OS boots through initramfs-tools, and ``systemd.volatile=overlay``
needs a systemd initramfs. With ``overlayroot=tmpfs:recurse=0`` on the kernel command
line, the initramfs mounts the root partition read-only at ``/media/root-ro`` and lays a
RAM file system over it: everything the OS, apt and the journal write is gone at the next
boot, and the root partition is never written, not even at the first boot (a root once
mounted read-write replays its journal after a cut, which writes). ``recurse=0`` leaves
the other partitions alone: the data partition (deploy/card_data.py) stays writable.

With it goes ``fsck.mode=skip``: the root partition is never written, so it never needs a
check, and ``e2fsck -y`` (Raspberry Pi OS's ``fsck.repair=yes``) writes the superblock of a
clean file system all the same, at every boot (seen on the stand-in card; the data
partition has its own check, deploy/card_data.py).

The words live in ``cmdline.txt`` on the FAT boot partition, so a volunteer can turn the
mode off and on from a laptop (``[card] read_only`` in kalimambo.toml; the card edits its
cmdline.txt and reboots once). The kernel command line wins over overlayroot's own
configuration files.

Standard library only: deploy/build_image.py and deploy/card_setup.py both use it.
"""

from __future__ import annotations

import re
from pathlib import Path

READ_ONLY_WORD = "overlayroot=tmpfs:recurse=0"
"""What cmdline.txt carries while the root is read-only."""
NO_ROOT_CHECK = "fsck.mode=skip"
"""Beside it: no file system check at boot, which would write the root."""
OVERLAYROOT = re.compile(r"(?:^|\s)overlayroot=(\S*)")
LOWER_ROOT = Path("/media/root-ro")
"""Where overlayroot leaves the real root partition, mounted read-only."""


def read_only_in(cmdline: str) -> bool:
    """Whether this command line makes the root read-only (any overlayroot but disabled)."""
    found = OVERLAYROOT.findall(cmdline)
    return bool(found) and found[-1] not in ("", "disabled")


def with_read_only(cmdline: str, on: bool) -> str:
    """``cmdline`` (one line) with the root read-only or not; every other word kept in
    its place. Turning it on adds our words at the end of the line, before any words
    Raspberry Pi Imager's firstrun.sh will cut off from its own ``systemd.run=`` on
    (another ``fsck.mode=`` gives way to ours); turning it off takes them out."""
    words = [word for word in cmdline.split() if not word.startswith("overlayroot=")
             and not (word.startswith("fsck.mode=") and (on or word == NO_ROOT_CHECK))]
    if on:
        imager = next((i for i, word in enumerate(words)
                       if word.startswith("systemd.run=")), len(words))
        words[imager:imager] = [READ_ONLY_WORD, NO_ROOT_CHECK]
    return " ".join(words) + "\n"
