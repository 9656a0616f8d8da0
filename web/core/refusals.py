"""Refusals: the one exception the table raises, in the table's own words.

A refusal says what kind of wrong it is (``Kind``), a short machine code and a message fit
to show a player; the table raises it *before* changing anything. Which HTTP status each
kind becomes, and the JSON it is answered with, is the web's business: one table in
``web/http/statuses.py`` (so the core could answer over any transport).
"""

from __future__ import annotations

from enum import Enum


class Kind(Enum):
    """What was wrong with a request, as the table sees it."""

    BAD_INPUT = "bad_input"
    """The request itself is wrong: a card that is no card, a name too long."""
    UNREADABLE = "unreadable"
    """The request is not in a form the table reads at all."""
    UNKNOWN_CALLER = "unknown_caller"
    """Who asks is not known: no seat or host token, or one the table never gave."""
    NOT_ALLOWED = "not_allowed"
    """Known, but not allowed this: another seat's pick, a host's command, a wrong PIN."""
    NOT_FOUND = "not_found"
    """What was asked for is not there: a seat, an archived game."""
    CONFLICT = "conflict"
    """A right request at the wrong moment: a pick for a round not being picked."""
    TOO_SOON = "too_soon"
    """Asked too often or while busy: try again after ``retry_after_s``."""


class Refusal(Exception):
    """A refused request: its kind, a short machine code and a friendly message."""

    def __init__(self, kind: Kind, code: str, message: str,
                 retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.code = code
        self.message = message
        self.retry_after_s = retry_after_s


def bad_input(code: str, message: str) -> Refusal:
    return Refusal(Kind.BAD_INPUT, code, message)


def conflict(code: str, message: str) -> Refusal:
    return Refusal(Kind.CONFLICT, code, message)
