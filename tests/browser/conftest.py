"""Fixtures for the real-browser tests.

The server is the one of tests/conftest.py (``server``: a real ``kalimambo serve``
with gunicorn and gevent on a free port of 127.0.0.1, its own data dir); the browser
is /usr/bin/chromium driven by Playwright (never ``playwright install``: that
downloads a browser), or WebKitGTK's MiniBrowser through Selenium (``webkit``, see
webkit.py). Every test here is marked ``browser``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

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


@pytest.fixture(scope="session")
def webkit_display() -> Iterator[str]:
    """One Xvfb for every WebKit session of the run. Where WebKit is missing the WebKit
    tests are skipped, as the Chromium ones are without chromium; under CI=true they fail."""
    from tests.browser import webkit

    lacking = webkit.missing()
    if lacking:
        if os.environ.get("CI") == "true":
            pytest.fail(lacking)
        pytest.skip(lacking)
    with webkit.xvfb() as display:
        yield display


@pytest.fixture
def webkit(webkit_display: str) -> Iterator[Callable[..., Any]]:
    """``webkit(width=390, height=844)``: a new WebKit session (one phone each), all
    closed at the end of the test."""
    from tests.browser.webkit import PHONE as WEBKIT_PHONE
    from tests.browser.webkit import WebKitPage, open_webkit

    opened: list[WebKitPage] = []

    def open_page(width: int = WEBKIT_PHONE["width"],
                  height: int = WEBKIT_PHONE["height"]) -> WebKitPage:
        page = WebKitPage(open_webkit(webkit_display, width, height))
        opened.append(page)
        return page

    yield open_page
    for page in opened:
        with contextlib.suppress(Exception):
            page.driver.quit()
