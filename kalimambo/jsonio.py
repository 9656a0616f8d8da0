"""Fast JSON in and out: orjson where installed, the standard library otherwise.

``replay --jsonl`` spends much of its time here; orjson parses and writes several
times faster.  The fallback keeps the engine usable without it.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; this is a safety net
    orjson = None  # type: ignore[assignment]


class JSONError(ValueError):
    """Text that is not JSON."""


def loads(data: bytes | str) -> Any:
    """Decode JSON, raising ``JSONError`` with a short reason."""
    try:
        if orjson is not None:
            return orjson.loads(data)
        return json.loads(data)
    except ValueError as error:
        raise JSONError(str(error).split("\n")[0]) from None


def dumps_line(value: Any) -> bytes:
    """Compact JSON, no newline."""
    if orjson is not None:
        return orjson.dumps(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def dumps_pretty(value: Any) -> bytes:
    """Indented JSON for a person to read."""
    if orjson is not None:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)
    return json.dumps(value, indent=2, ensure_ascii=False).encode()
