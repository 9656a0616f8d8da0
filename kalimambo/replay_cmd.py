"""``kalimambo replay``: replay game records and print the replay results (RECORD.md).

Imports only the engine and the JSON helper, so it starts fast.  A batch
(``--jsonl``) is checked whole before anything is written: a bad line ends the
run with one message naming the line, exit 2 and nothing on stdout.  Large
batches are split across the CPU cores.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

from kalimambo.args import Parser, fail
from kalimambo.engine.errors import RecordError
from kalimambo.engine.record import parse_record, replay
from kalimambo.jsonio import JSONError, dumps_line, dumps_pretty, loads

PROG = "kalimambo replay"
PARALLEL_FROM = 400
"""Below this many lines a second process costs more than it saves."""


class BatchError(Exception):
    """A bad line in a batch; the message names the line (from 1) and the reason."""


def _record_of(data: Any) -> Any:
    """A record, or a ``{"record": ...}`` wrapper (as in the test vectors)."""
    if isinstance(data, dict) and "format" not in data and "record" in data:
        return data["record"]
    return data


def replay_text(text: bytes, with_events: bool = False) -> dict[str, Any]:
    """Replay one record given as JSON text; raise ``RecordError`` or ``JSONError``."""
    return replay(parse_record(_record_of(loads(text))), with_events)


def replay_lines(lines: Sequence[bytes], first_line: int, with_events: bool) -> list[bytes]:
    """Replay a slice of a batch; numbering starts at ``first_line``."""
    out: list[bytes] = []
    for number, line in enumerate(lines, first_line):
        if not line.strip():
            continue
        try:
            result = replay(parse_record(_record_of(loads(line))), with_events)
        except (RecordError, JSONError) as error:
            raise BatchError(f"line {number}: {error}") from None
        out.append(dumps_line(result))
    return out


def _replay_in_child(lines: list[bytes], first: int, with_events: bool) -> tuple[int, int]:
    """Fork a process that replays ``lines``; answers (pid, read end of its pipe).

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
                results = replay_lines(lines, first, with_events)
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


def replay_batch(lines: list[bytes], with_events: bool = False,
                 workers: int | None = None) -> list[bytes]:
    """Replay every line, in parallel when the batch is large; results in order.

    The batch is cut into one slice per core; this process replays the first
    slice while forked children replay the others.  The first bad line (in file
    order) is the one reported.
    """
    workers = workers or os.cpu_count() or 1
    if workers < 2 or len(lines) < PARALLEL_FROM or not hasattr(os, "fork"):
        return replay_lines(lines, 1, with_events)
    size = -(-len(lines) // workers)
    children = [_replay_in_child(lines[start:start + size], start + 1, with_events)
                for start in range(size, len(lines), size)]
    error: BatchError | None = None
    out: list[bytes] = []
    try:
        out = replay_lines(lines[:size], 1, with_events)
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
    try:
        if args.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as handle:
                data = handle.read()
    except OSError as error:
        return fail(PROG, f"cannot read {args.file}: {error.strerror}")
    try:
        if args.jsonl:
            results = replay_batch(data.splitlines(), args.events, args.workers)
            sys.stdout.buffer.write(b"".join(result + b"\n" for result in results))
        else:
            sys.stdout.buffer.write(dumps_pretty(replay_text(data, args.events)) + b"\n")
    except (RecordError, JSONError, BatchError) as error:
        return fail(PROG, str(error))
    sys.stdout.flush()
    return 0
