"""``kalimambo replay``: resolve game records through the rules and print their results
(the "replay results" of RECORD.md).

Imports only the engine and the JSON helper, so it starts fast.  A batch
(``--jsonl``) is checked whole before anything is written: a bad line ends the
run with one message naming the line, exit 2 and nothing on stdout.  Large
batches are split across the CPU cores.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from typing import Any, BinaryIO

from kalimambo.args import Parser, fail
from kalimambo.engine.errors import RecordError
from kalimambo.engine.record import parse_record, resolve_record
from kalimambo.jsonio import JSONError, dumps_line, dumps_pretty, loads

PROG = "kalimambo replay"
PARALLEL_FROM = 400
"""Below this many lines a second process costs more than it saves."""
MAX_RECORD_BYTES = 1 << 20
"""One record (a file, or one line of a batch): a real 12-round record of 7 players is
about 1 KB, so 1 MB is far beyond any game and refuses junk before it is parsed."""
MAX_BATCH_BYTES = 64 << 20
"""A whole ``--jsonl`` batch: some 60,000 games."""


class BatchError(Exception):
    """A bad line in a batch; the message names the line (from 1) and the reason."""


def _record_of(data: Any) -> Any:
    """A record, or a ``{"record": ...}`` wrapper (as in the test vectors)."""
    if isinstance(data, dict) and "format" not in data and "record" in data:
        return data["record"]
    return data


def resolve_text(text: bytes, with_events: bool = False) -> dict[str, Any]:
    """Resolve one record given as JSON text; raise ``RecordError`` or ``JSONError``."""
    return resolve_record(parse_record(_record_of(loads(text))), with_events)


def resolve_lines(lines: Sequence[bytes], first_line: int, with_events: bool) -> list[bytes]:
    """Resolve a slice of a batch; numbering starts at ``first_line``."""
    out: list[bytes] = []
    for number, line in enumerate(lines, first_line):
        if not line.strip():
            continue
        try:
            result = resolve_record(parse_record(_record_of(loads(line))), with_events)
        except (RecordError, JSONError) as error:
            raise BatchError(f"line {number}: {error}") from None
        out.append(dumps_line(result))
    return out


def _resolve_in_child(lines: list[bytes], first: int, with_events: bool) -> tuple[int, int]:
    """Fork a process that resolves ``lines``; answers (pid, read end of its pipe).

    The child inherits the lines with the process (nothing to copy) and sends back
    ``b"0"`` plus its results, or ``b"1"`` plus the message of its first bad line.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: whatever happens, it ends here and never returns
        status = 0
        try:
            os.close(read_end)
            try:
                results = resolve_lines(lines, first, with_events)
                payload = b"0" + b"".join(result + b"\n" for result in results)
            except BatchError as error:
                payload = b"1" + str(error).encode()
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
        except BaseException:
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def resolve_batch(lines: list[bytes], with_events: bool = False,
                  workers: int | None = None) -> list[bytes]:
    """Resolve every line, in parallel when the batch is large; results in order.

    The batch is cut into one slice per core; this process resolves the first
    slice while forked children resolve the others.  The first bad line (in file
    order) is the one reported.
    """
    workers = workers or os.cpu_count() or 1
    if workers < 2 or len(lines) < PARALLEL_FROM or not hasattr(os, "fork"):
        return resolve_lines(lines, 1, with_events)
    size = -(-len(lines) // workers)
    children = [_resolve_in_child(lines[start:start + size], start + 1, with_events)
                for start in range(size, len(lines), size)]
    error: BatchError | None = None
    out: list[bytes] = []
    try:
        out = resolve_lines(lines[:size], 1, with_events)
    except BatchError as mine:
        error = mine
    for pid, read_end in children:
        with os.fdopen(read_end, "rb") as pipe:
            payload = pipe.read()
        os.waitpid(pid, 0)
        if error is not None:
            continue
        if payload[:1] != b"0":
            error = BatchError(payload[1:].decode() or "a worker process failed")
            continue
        out.extend(payload[1:].splitlines())
    if error is not None:
        raise error
    return out


def _size(limit: int) -> str:
    return f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit >> 10} KB"


class TooBig(Exception):
    """The input is over a limit; read no further."""


def read_record(handle: BinaryIO, limit: int = MAX_RECORD_BYTES) -> bytes:
    """One record's bytes, refused (``TooBig``) as soon as it passes ``limit``."""
    data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooBig(f"bigger than {_size(limit)}: not a game record")
    return data


def read_batch(handle: BinaryIO, line_limit: int = MAX_RECORD_BYTES,
               limit: int = MAX_BATCH_BYTES) -> list[bytes]:
    """The lines of a batch, read line by line; ``TooBig`` at the first line or byte
    past a limit, before the rest is read."""
    lines: list[bytes] = []
    total = 0
    while True:
        line = handle.readline(line_limit + 2)
        if not line:
            return lines
        stripped = line.rstrip(b"\r\n")
        if len(stripped) > line_limit:
            raise TooBig(f"line {len(lines) + 1}: bigger than {_size(line_limit)}: "
                         "not a game record")
        total += len(line)
        if total > limit:
            raise TooBig(f"more than {limit >> 20} MB in one batch: split it")
        lines.append(stripped)


def main(argv: Sequence[str]) -> int:
    parser = Parser(prog=PROG, description="Replay a kalimambo-record/1 game record and "
                    "print the replay result (RECORD.md) as JSON.")
    parser.add_argument("file", help="the record file, or - for standard input")
    parser.add_argument("--jsonl", action="store_true",
                        help="one record (or {\"record\": ...}) per line; one result per line")
    parser.add_argument("--events", action="store_true",
                        help="add each round's events to its snapshot")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes for --jsonl (default: one per CPU core)")
    args = parser.parse_args(argv)
    where = "standard input" if args.file == "-" else args.file
    try:
        with contextlib.ExitStack() as stack:
            handle: BinaryIO = sys.stdin.buffer if args.file == "-" else \
                stack.enter_context(open(args.file, "rb"))
            lines = read_batch(handle) if args.jsonl else None
            data = read_record(handle) if lines is None else b""
    except TooBig as error:
        return fail(PROG, f"{where}: {error}")
    except IsADirectoryError:
        return fail(PROG, f"cannot read {args.file}: it is a directory")
    except OSError as error:
        return fail(PROG, f"cannot read {args.file}: {error.strerror}")
    try:
        if lines is not None:
            results = resolve_batch(lines, args.events, args.workers)
            sys.stdout.buffer.write(b"".join(result + b"\n" for result in results))
        else:
            sys.stdout.buffer.write(dumps_pretty(resolve_text(data, args.events)) + b"\n")
    except (RecordError, JSONError, BatchError) as error:
        return fail(PROG, f"{where}: {error}")
    sys.stdout.flush()
    return 0
