#!/usr/bin/env python3
"""The file edits setup.sh makes on a Raspberry Pi, kept here so they are exact and testable.

setup.sh runs this with the system ``python3`` (Python 3.11+ for ``tomllib``), before any
venv exists: it needs the standard library and this checkout's own
``kalimambo.firmware.hardware`` and ``hardwarewrite`` (standard library only too), so that
setup.sh and the lights check a board file by the same rules and replace files one way.
Every edit is idempotent: run twice, the second run reports ``unchanged``. With
``--dry-run`` an edit only reports what it would do.

    board-info FILE                     print backend, gpio, led_count... as KEY=VALUE lines
    config-block FILE [--dry-run] [LINE ...]
                                        put LINEs in setup.sh's marked block of config.txt
                                        (no LINE: remove the block)
    hosts FILE NAME [--dry-run]         make /etc/hosts name this machine NAME on 127.0.1.1
    render TEMPLATE KEY=VALUE ...       print TEMPLATE with @KEY@ replaced
    same FILE                           exit 0 if FILE holds exactly what stdin holds

Bad input ends with a one-line message and exit status 2.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

if __name__ == "__main__":  # run by setup.sh with the system python3: no venv yet
    # so no editable install maps kalimambo.firmware to firmware/ (pyproject's package-dir):
    # the checkout's root is put on the package's own path, which does the same
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import kalimambo

    kalimambo.__path__.append(str(Path(__file__).resolve().parent.parent))

from kalimambo.firmware.hardware import HardwareFileError, load_hardware_file
from kalimambo.firmware.hardwarewrite import replace_text

BLOCK_START = "# >>> kalimambo: added by setup.sh; './setup.sh --uninstall' removes this block"
BLOCK_END = "# <<< kalimambo"
PLACEHOLDER = re.compile(r"@([A-Z_]+)@")


class HelperError(Exception):
    """Bad input: one line for the person running setup.sh."""


def board_info(path: Path) -> dict[str, str]:
    """The few board-file values setup.sh needs: which backend, which pin, how many LEDs.

    The whole file is checked as the lights will check it (firmware/hardware.py), so a board
    file setup.sh accepts is one the lights service can start with.
    """
    try:
        hardware = load_hardware_file(path)
    except HardwareFileError as exc:
        raise HelperError(str(exc)) from None
    return {"backend": hardware.backend, "gpio": str(hardware.gpio),
            "led_count": str(hardware.led_count), "spaces": str(hardware.spaces),
            "device": hardware.device, "strip_type": hardware.strip_type}


def _split_block(lines: list[str]) -> tuple[list[str], list[str] | None]:
    """The lines outside setup.sh's block, and the block's inner lines (None: no block)."""
    if BLOCK_START not in lines:
        return lines, None
    start = lines.index(BLOCK_START)
    if BLOCK_END not in lines[start:]:
        return lines[:start], lines[start + 1:]
    end = lines.index(BLOCK_END, start)
    return lines[:start] + lines[end + 1:], lines[start + 1:end]


def config_block(path: Path, wanted: Sequence[str], dry_run: bool) -> str:
    """Make setup.sh's block in config.txt hold ``[all]`` and ``wanted`` (empty: no block).

    The block starts with ``[all]`` so its lines apply whatever section ends the file.
    A ``dtoverlay=`` in ``wanted`` that the file already has outside the block is left to
    the person who wrote it, so the overlay is never loaded twice.
    """
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    outside, inner = _split_block(text.splitlines())
    foreign = [line for line in wanted if line.startswith("dtoverlay=") and any(
        other.strip().startswith(line.split(",")[0]) for other in outside)]
    lines = [line for line in wanted if line not in foreign]
    want_inner = ["[all]", *lines] if lines else None
    notes = "".join(f"; kept your own line for {line.split(',')[0]} outside the block"
                    for line in foreign)
    if inner == want_inner:
        return ("unchanged" if inner else "absent") + notes
    if want_inner is None:
        verb, new = "remove", outside
    else:
        verb = "replace" if inner is not None else "add"
        new = [*outside, BLOCK_START, *want_inner, BLOCK_END]
    if not dry_run:
        if not path.parent.is_dir():
            raise HelperError(f"{path.parent} does not exist: is this Raspberry Pi OS?")
        replace_text(path, "\n".join(new) + "\n")
    return verb + notes


def hosts(path: Path, name: str, dry_run: bool) -> str:
    """Point 127.0.1.1 at ``name`` (Debian's convention), as raspi-config does."""
    if not re.fullmatch(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?", name):
        raise HelperError(f"{name!r} is not a valid host name (letters, digits, dashes)")
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    wanted = f"127.0.1.1\t{name}"
    found = [i for i, line in enumerate(lines) if line.split()[:1] == ["127.0.1.1"]]
    if found and lines[found[0]].split()[1:] == [name]:
        return "unchanged"
    if found:
        lines[found[0]] = wanted
        verb = "replace"
    else:
        lines.append(wanted)
        verb = "add"
    if not dry_run:
        replace_text(path, "\n".join(lines) + "\n")
    return verb


def render(template: Path, pairs: Sequence[str]) -> str:
    """The template with every ``@KEY@`` replaced; a key left unfilled is an error."""
    values: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not re.fullmatch(r"[A-Z_]+", key):
            raise HelperError(f"render: expected KEY=VALUE, got {pair!r}")
        if "\n" in value:
            raise HelperError(f"render: {key} must be one line")
        values[key] = value
    text = template.read_text(encoding="utf-8")
    missing = sorted({key for key in PLACEHOLDER.findall(text) if key not in values})
    if missing:
        raise HelperError(f"render: no value for {', '.join(missing)} in {template}")
    return PLACEHOLDER.sub(lambda match: values[match.group(1)], text)


def main(argv: Sequence[str]) -> int:
    args = [arg for arg in argv if arg != "--dry-run"]
    dry_run = len(args) != len(argv)
    try:
        match args:
            case ["board-info", file]:
                for key, value in board_info(Path(file)).items():
                    print(f"{key}={value}")
            case ["config-block", file, *lines]:
                print(config_block(Path(file), lines, dry_run))
            case ["hosts", file, name]:
                print(hosts(Path(file), name, dry_run))
            case ["render", template, *pairs]:
                sys.stdout.write(render(Path(template), pairs))
            case ["same", file]:
                path = Path(file)
                return 0 if path.exists() and path.read_text() == sys.stdin.read() else 1
            case _:
                raise HelperError("unknown command (see the top of deploy/install_helper.py)")
    except HelperError as exc:
        sys.stderr.write(f"setup.sh: {exc}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
