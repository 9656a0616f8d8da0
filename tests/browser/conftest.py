"""Fixtures for the real-browser tests.

The server is the one of tests/conftest.py (``server``: a real ``kalimambo serve``
with gunicorn and gevent on a free port of 127.0.0.1, its own data dir); the browser
is /usr/bin/chromium driven by Playwright (never ``playwright install``: that
downloads a browser). Every test here is marked ``browser``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import HOST_PIN, ROOT, ServerProcess

ARTIFACTS = ROOT / "tests" / "artifacts"

PHONE = {"width": 360, "height": 740}
Server = ServerProcess
"""The running table a browser test gets: ``url``, ``call``, ``state``, ``host_token``."""

__all__ = ["ARTIFACTS", "HOST_PIN", "PHONE", "Server"]


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def server(server: ServerProcess) -> ServerProcess:
    """The table with the shortest pause, so each round's auto playback is over in a
    second or two (tests that want step pacing set it themselves)."""
    server.call("POST", "/host/settings", {"pause_ms": 100}, server.host_token())
    return server
