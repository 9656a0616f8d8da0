"""API errors: one exception type the table raises and one JSON shape the API answers.

Every refusal is ``4xx {"error": {"code", "message"}}`` with a message fit to show a
player (API.md); the table raises ``ApiError`` *before* changing anything.
"""

from __future__ import annotations

import orjson


class ApiError(Exception):
    """A refused request: HTTP status, a short machine code and a friendly message."""

    def __init__(self, status: int, code: str, message: str,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers or {}


def error_body(code: str, message: str) -> bytes:
    """The JSON every refusal answers with (API.md)."""
    return orjson.dumps({"error": {"code": code, "message": message}})


def bad_request(code: str, message: str) -> ApiError:
    return ApiError(400, code, message)


def conflict(code: str, message: str) -> ApiError:
    return ApiError(409, code, message)
