"""Checks of plain values as JSON and TOML give them, shared by every part (the engine,
the table, the firmware's board file)."""

from __future__ import annotations

from typing import TypeGuard


def is_int(value: object) -> TypeGuard[int]:
    """A whole number from JSON or TOML: ``True`` is an ``int`` to Python, not to us.

    >>> is_int(3), is_int(True), is_int(3.0)
    (True, False, False)
    """
    return isinstance(value, int) and not isinstance(value, bool)
