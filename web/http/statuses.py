"""How a refusal of the table (``web/core/refusals.py``) is answered over HTTP: its status,
its headers and the one JSON shape every refusal has (docs/API.md)."""

from __future__ import annotations

import orjson

from kalimambo.web.core.refusals import Kind, Refusal

STATUS = {
    Kind.BAD_INPUT: 400,
    Kind.UNKNOWN_CALLER: 401,
    Kind.NOT_ALLOWED: 403,
    Kind.NOT_FOUND: 404,
    Kind.CONFLICT: 409,
    Kind.UNREADABLE: 415,
    Kind.TOO_SOON: 429,
}
"""The HTTP status of each kind of refusal: the only place they are chosen."""


def error_body(code: str, message: str) -> bytes:
    """The JSON every refusal answers with: ``{"error": {"code", "message"}}``."""
    return orjson.dumps({"error": {"code": code, "message": message}})


def http_status(refusal: Refusal) -> int:
    return STATUS[refusal.kind]


def http_headers(refusal: Refusal) -> dict[str, str]:
    """Retry-After for a refusal that says when to try again."""
    if refusal.retry_after_s is None:
        return {}
    return {"Retry-After": str(refusal.retry_after_s)}
