"""Writing calibration results into a board file without losing the rest of it.

``tomllib`` only reads, and a builder's comments matter, so the file is edited as
text: the ``spaces`` key of ``[layout]`` (and, if asked, ``led_count`` of
``[strip]``) is replaced or added; every other line stays as it was.  The result
is checked with the same validation as any board file before it replaces the
old one, so a calibration can never leave a broken file behind.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from kalimambo.firmware.hardware import HardwareConfig, HardwareFileError, parse_hardware

HEADER = re.compile(r"^\s*\[\s*([A-Za-z0-9_.-]+)\s*\]\s*(#.*)?$")
PER_LINE = 8


def _key_re(key: str) -> re.Pattern[str]:
    return re.compile(rf"^\s*{re.escape(key)}\s*=")


def _section(lines: list[str], name: str) -> tuple[int, int] | None:
    """Line range (header, end) of ``[name]``, or None."""
    start = None
    for i, line in enumerate(lines):
        match = HEADER.match(line)
        if match is None or line.lstrip().startswith("[["):
            continue
        if start is not None:
            return start, i
        if match.group(1) == name:
            start = i
    return (start, len(lines)) if start is not None else None


def _value_end(lines: list[str], first: int) -> int:
    """The line after a ``key = value`` starting at ``first`` (arrays may span lines)."""
    depth = 0
    for i in range(first, len(lines)):
        text = lines[i].split("#", 1)[0]
        if i == first:
            text = text.split("=", 1)[1]
        depth += text.count("[") - text.count("]")
        if depth <= 0:
            return i + 1
    return len(lines)


def _set_key(lines: list[str], section: str, key: str, value_lines: list[str]) -> list[str]:
    """``lines`` with ``key`` of ``[section]`` set to ``value_lines`` (added if absent)."""
    span = _section(lines, section)
    if span is None:
        tail = [] if not lines or not lines[-1].strip() else [""]
        return [*lines, *tail, f"[{section}]", *value_lines]
    start, end = span
    pattern = _key_re(key)
    for i in range(start + 1, end):
        if pattern.match(lines[i]):
            stop = _value_end(lines, i)
            return [*lines[:i], *value_lines, *lines[stop:]]
    insert = end
    while insert > start + 1 and not lines[insert - 1].strip():
        insert -= 1  # keep the blank lines that separate sections after the new key
    return [*lines[:insert], *value_lines, *lines[insert:]]


def spaces_lines(layout: Sequence[Sequence[int]]) -> list[str]:
    """``spaces = [...]`` as TOML, a few spaces per line with the first space's number.

    >>> spaces_lines([[0], [1, 2]])[1:]
    ['  [0], [1, 2],  # 0', ']']
    """
    out = ["spaces = [  # LEDs under each space, from space 0 (written by kalimambo leds "
           "calibrate)"]
    for first in range(0, len(layout), PER_LINE):
        chunk = layout[first:first + PER_LINE]
        cells = ", ".join("[" + ", ".join(str(led) for led in leds) + "]" for leds in chunk)
        out.append(f"  {cells},  # {first}")
    out.append("]")
    return out


def with_layout(text: str, layout: Sequence[Sequence[int]], led_count: int | None = None
                ) -> str:
    """The board file text with an explicit ``[layout] spaces`` map (and ``led_count``)."""
    lines = text.splitlines()
    if led_count is not None:
        lines = _set_key(lines, "strip", "led_count", [f"led_count = {led_count}"])
    lines = _set_key(lines, "layout", "spaces", spaces_lines(layout))
    return "\n".join(lines) + "\n"


def write_layout(path: str | Path, layout: Sequence[Sequence[int]],
                 led_count: int | None = None) -> HardwareConfig:
    """Write the calibrated layout into the board file at ``path`` (made if missing);
    the new file is checked first, and replaces the old one in one step."""
    target = Path(path)
    try:
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        text = "# Kalimambo board file (see docs/CONTRACTS.md)\n"
    new_text = with_layout(text, layout, led_count)
    try:
        hardware = parse_hardware(tomllib.loads(new_text), str(target))
    except (tomllib.TOMLDecodeError, HardwareFileError) as error:
        raise HardwareFileError(f"{target}: the calibrated file would not be valid: "
                                f"{error}") from None
    replace_text(target, new_text)
    return hardware


def with_values(text: str, values: Mapping[tuple[str, str], object]) -> str:
    """``text`` (a board file) with each ``(section, key)`` set to its value, the rest of
    the file and its comments as they were (a card's kalimambo.toml: deploy/card_setup.py)."""
    lines = text.splitlines()
    for (section, key), value in values.items():
        lines = _set_key(lines, section, key, [f"{key} = {json.dumps(value)}"])
    return "\n".join(lines) + "\n"


def replace_text(path: Path, text: str) -> None:
    """Replace ``path`` whole or not at all, keeping its permissions (a new file: 0644).

    A half-written file is worse than the old one (a config.txt that stops the Pi
    booting, a board file the lights refuse); and a temporary file starts as 0600, which
    would lock the services out of a board file that ``sudo ... calibrate`` wrote.
    """
    mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.chmod(temp, mode)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
