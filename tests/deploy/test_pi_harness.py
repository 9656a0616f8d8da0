"""The emulated Pi's own tools that can be checked without booting one: the phone's
one-shot mDNS reading (tests/pi/guest_probe.py)."""

from __future__ import annotations

import socket
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pi"))

import guest_probe


def name(text: str) -> bytes:
    return b"".join(bytes([len(p)]) + p.encode() for p in text.split(".")) + b"\0"


def test_the_a_record_is_found_after_other_answers_and_compressed_names() -> None:
    question = name("kalimambo.local") + struct.pack("!2H", 1, 1)
    aaaa = b"\xc0\x0c" + struct.pack("!2HIH", 28, 1, 120, 16) + bytes(16)
    a = b"\xc0\x0c" + struct.pack("!2HIH", 1, 0x8001, 120, 4) + socket.inet_aton("10.42.0.1")
    reply = struct.pack("!6H", 7, 0x8400, 1, 2, 0, 0) + question + aaaa + a
    assert guest_probe.first_a_record(reply) == "10.42.0.1"


def test_no_a_record_is_none() -> None:
    question = name("kalimambo.local") + struct.pack("!2H", 1, 1)
    assert guest_probe.first_a_record(struct.pack("!6H", 7, 0x8400, 1, 0, 0, 0)
                                      + question) is None
