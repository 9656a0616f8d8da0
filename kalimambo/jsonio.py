"""Fast JSON in and out, through orjson (a dependency).

``replay --jsonl`` spends much of its time here; orjson parses and writes several
times faster than the standard library.
"""

from __future__ import annotations

from typing import Any

import orjson


class JSONError(ValueError):
    """Text that is not JSON."""


def loads(data: bytes | str) -> Any:
    """Decode JSON, raising ``JSONError`` with a short reason."""
    try:
        return orjson.loads(data)
    except ValueError as error:
        raise JSONError(str(error).split("\n")[0]) from None


def dumps_line(value: Any) -> bytes:
    """Compact JSON, no newline."""
    return orjson.dumps(value)


def dumps_pretty(value: Any) -> bytes:
    """Indented JSON for a person to read."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2)
