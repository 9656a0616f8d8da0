"""What a page costs a small Pi (issue 36): the bytes on the wire of each page's first
load in Chromium, cold (a fresh context: no cache, nothing stored), and of a second
load of the phone page (revalidated: 304s and no bodies); and the one language a page
brings: the switch fetches another once, the next page comes in it.

Bytes on the wire are Chromium's own count, ``Network.loadingFinished``'s
``encodedDataLength`` (headers and the body as sent, gzip or not), summed over every
request until the page is loaded and settled, the long-lived event stream left out.
``pytest -s`` shows the figures; README.md's table comes from them.
"""

from __future__ import annotations

import time
from typing import Any

from tests.browser.conftest import PHONE, Server
from tests.browser.play import WAIT_MS

PHONE_MAX = 60 * 1024
"""Issue 36's budget: seven phones on a Pi Zero 2 W's one Wi-Fi radio."""
BOARD_MAX = 68 * 1024
"""Measured 61.0 KB in 31 requests (the most modules): a module or two more fit."""
HOST_MAX = 62 * 1024
"""Measured 54.9 KB in 31 requests: a panel or two more fit."""
SECOND_LOAD_MAX = 0.25
"""A reload revalidates (a 304 without a body for the page and each file): measured
5.3 KB, about a ninth of a cold load."""
EVENT_STREAM = "/api/v1/events"
POLLED = "/api/v1/leds"
"""The simulated strip's picture (off a Pi) polls this 4 times a second: its first
answer counts, the repeats do not (they never end, and a Pi's real strip has none)."""
SETTLED_S = 0.8
"""A page is settled when no request has started or ended for this long."""

PAGES = {
    "/": ("phone", "#join-form"),
    "/board": ("board", "#ring"),
    "/host": ("host", "#pin"),
}


class Wire:
    """Chromium's network events of one page, through the DevTools protocol."""

    def __init__(self, context: Any, page: Any) -> None:
        self.urls: dict[str, str] = {}
        self.bytes: dict[str, int] = {}
        self.status: dict[str, int] = {}
        self.last_event = time.monotonic()
        cdp = context.new_cdp_session(page)
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.responseReceived", self._received)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.loadingFailed", self._failed)
        cdp.send("Network.enable")
        self.cdp = cdp

    def _sent(self, event: dict[str, Any]) -> None:
        url = event["request"]["url"]
        if POLLED in url and any(POLLED in seen for seen in self.urls.values()):
            return
        self.urls[event["requestId"]] = url
        self.last_event = time.monotonic()

    def _received(self, event: dict[str, Any]) -> None:
        self.status[event["requestId"]] = event["response"]["status"]

    def _finished(self, event: dict[str, Any]) -> None:
        if event["requestId"] in self.urls:
            self.bytes[event["requestId"]] = int(event["encodedDataLength"])
            self.last_event = time.monotonic()

    def _failed(self, event: dict[str, Any]) -> None:
        if event["requestId"] in self.urls:
            self.bytes.setdefault(event["requestId"], 0)
            self.last_event = time.monotonic()

    def pending(self) -> list[str]:
        return [url for rid, url in self.urls.items()
                if rid not in self.bytes and EVENT_STREAM not in url]

    def settle(self, page: Any) -> None:
        """Until nothing but the event stream is in flight and nothing happened for
        ``SETTLED_S`` (Playwright's networkidle never comes with a stream open)."""
        deadline = time.monotonic() + WAIT_MS / 1000
        while time.monotonic() < deadline:
            page.wait_for_timeout(100)  # lets Playwright deliver the events
            if not self.pending() and time.monotonic() - self.last_event > SETTLED_S:
                return
        raise AssertionError(f"still loading: {self.pending()}")

    def total(self) -> tuple[int, int]:
        """(bytes, requests) of everything but the event stream."""
        counted = [rid for rid, url in self.urls.items()
                   if EVENT_STREAM not in url and not url.startswith("data:")]
        return sum(self.bytes.get(rid, 0) for rid in counted), len(counted)

    def reset(self) -> None:
        self.urls.clear()
        self.bytes.clear()
        self.status.clear()


def load(page: Any, wire: Wire, url: str, ready: str) -> tuple[int, int]:
    page.goto(url)
    page.wait_for_selector(ready, state="attached", timeout=WAIT_MS)
    # the page's words are in (the language switch is filled last by startPage)
    page.wait_for_selector("#lang option", state="attached", timeout=WAIT_MS)
    wire.settle(page)
    return wire.total()


def test_first_loads_are_light_and_a_reload_lighter(server: Server, browser: Any) -> None:
    figures: dict[str, tuple[int, int]] = {}
    reload = (0, 0)
    not_modified = 0
    for path, (name, ready) in PAGES.items():
        context = browser.new_context(viewport=PHONE, locale="en-GB")
        try:
            page = context.new_page()
            wire = Wire(context, page)
            figures[name] = load(page, wire, f"{server.url}{path}", ready)
            if name == "phone":
                wire.reset()
                reload = load(page, wire, f"{server.url}{path}", ready)
                not_modified = sorted(wire.status.values()).count(304)
        finally:
            context.close()
    for name, (size, count) in figures.items():
        print(f"{name}: {count} requests, {size} bytes ({size / 1024:.1f} KB) on the wire")
    print(f"phone again: {reload[1]} requests ({not_modified} answered 304), {reload[0]} "
          f"bytes ({reload[0] / 1024:.1f} KB)")
    assert figures["phone"][0] <= PHONE_MAX, figures["phone"]
    assert figures["board"][0] <= BOARD_MAX, figures["board"]
    assert figures["host"][0] <= HOST_MAX, figures["host"]
    assert reload[0] <= SECOND_LOAD_MAX * figures["phone"][0], (reload, figures["phone"])


def test_a_page_brings_one_language_and_the_switch_fetches_another_once(
        server: Server, browser: Any) -> None:
    context = browser.new_context(viewport=PHONE, locale="en-GB")
    fetched: list[str] = []
    context.on("request", lambda request: fetched.append(request.url)
               if "/i18n/" in request.url else None)
    try:
        page = context.new_page()
        page.goto(f"{server.url}/")
        page.wait_for_selector("#lang option", state="attached", timeout=WAIT_MS)
        assert page.text_content("#join h2") == "Join the expedition"
        names = page.eval_on_selector_all("#lang option", "os => os.map(o => o.textContent)")
        assert names == ["English", "Deutsch", "Français", "Italiano"]
        assert fetched == []

        # the switch: one fetch, then the words; back and forth needs nothing more
        page.select_option("#lang", "de")
        page.wait_for_function("() => document.querySelector('#join h2').textContent"
                               " === 'Mach mit bei der Expedition'", timeout=WAIT_MS)
        assert page.evaluate("() => document.documentElement.lang") == "de"
        for code in ("en", "de"):
            page.select_option("#lang", code)
        page.wait_for_function("() => document.documentElement.lang === 'de'",
                               timeout=WAIT_MS)
        assert [url.rsplit("/", 1)[1] for url in fetched] == ["de.json"]

        # the next pages come in German from the server (the cookie): nothing to fetch
        for path, title in (("/", "Kalimambo"), ("/board", "Kalimambo-Spielplan"),
                            ("/host", "Kalimambo-Gastgeber")):
            response = page.goto(f"{server.url}{path}")
            assert '<html lang="de"' in response.text()
            page.wait_for_selector("#lang option", state="attached", timeout=WAIT_MS)
            assert page.title() == title
            assert page.input_value("#lang") == "de"
        page.goto(f"{server.url}/nope")
        page.wait_for_function("() => document.querySelector('h2').textContent === "
                               "'Diese Seite gibt es an diesem Tisch nicht'", timeout=WAIT_MS)
        assert len(fetched) == 1

        # a choice stored without the cookie (kept from before it): fetched before the
        # page draws, so no English and no key shows once the page is up
        context.clear_cookies()
        page.goto(f"{server.url}/")
        page.wait_for_selector("#lang option", state="attached", timeout=WAIT_MS)
        assert page.text_content("#join h2") == "Mach mit bei der Expedition"
        assert page.input_value("#lang") == "de"
        assert [url.rsplit("/", 1)[1] for url in fetched] == ["de.json", "de.json"]
        assert any(c["name"] == "lang" and c["value"] == "de" for c in context.cookies())
    finally:
        context.close()
