"""Step pacing as a way to play: the host, on a phone-sized host page, picks step pacing in
the game's own panel and plays a whole round with the bar's *Next* alone, tapping where
the thumb is, never scrolling; the phones meanwhile say that the board waits for the
host's *Next*, counting the steps of the round (not the 12 rounds).

The taps are mouse clicks at the button's place on the screen, not Playwright's clicks,
which would scroll a button into view by themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import HOST_PIN, PHONE, Server
from tests.browser.play import WAIT_MS, join

NAMES = ("Ana", "Ben", "Caro")


def tap_in_sight(page: Any, selector: str) -> None:
    """Tap the node where it is on the screen, which must show it whole."""
    box = page.locator(selector).bounding_box()
    assert box is not None, f"{selector} is not shown"
    viewport = page.viewport_size
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (selector, box)
    assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"], (selector, box)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def tap_card_and_confirm(phone: Any, card: int) -> None:
    """Tap a card, then *Confirm*. A tap that lands while the hand is drawn again (the
    game's start brings a burst of views; seen once in CI on a loaded machine) is tapped
    again, as a player would; a tap that took shows *Confirm*, so it is never tapped
    twice."""
    for _ in range(3):
        phone.click(f'#hand .card[data-card="{card}"]')
        try:
            phone.wait_for_selector("#confirm", state="visible", timeout=5000)
            break
        except PlaywrightTimeout:
            continue
    phone.click("#confirm")


def test_a_round_in_step_pacing_with_the_bars_next_alone(server: Server, browser: Any,
                                                         artifacts: Path) -> None:
    host_ctx = browser.new_context(viewport=PHONE, locale="en-US", has_touch=True)
    phone_ctx = browser.new_context(viewport=PHONE, locale="en-US")
    try:
        host_page = host_ctx.new_page()
        host_page.goto(f"{server.url}/host")
        host_page.fill("#pin", HOST_PIN)
        host_page.click("#login-form button[type=submit]")
        host_page.wait_for_selector("#console", timeout=WAIT_MS)
        # the pacing is chosen in the game's own panel, the first one on the page
        game_panel = host_page.locator("#console section.panel").first
        assert game_panel.locator("#pacing").count() == 1
        host_page.select_option("#pacing", "step")
        # the pause is for auto pacing: step pacing hides it
        host_page.wait_for_function("() => document.querySelector('#pause-box').hidden",
                                    timeout=WAIT_MS)
        assert server.state()["lights"]["pacing"] == "step"

        phone = phone_ctx.new_page()
        join(phone, server.url, NAMES[0])
        tokens = {name: server.call("POST", "/join", {"name": name})["token"]
                  for name in NAMES[1:]}
        host = server.host_token()
        server.call("POST", "/host/start", {"setup": {"rhino": 0, "order": list(NAMES),
                                                      "dung": [10, 20]}}, host)
        host_page.wait_for_selector("#start-box", state="hidden", timeout=WAIT_MS)
        phone.wait_for_selector('#hand .card:not([disabled])', timeout=WAIT_MS)
        tap_card_and_confirm(phone, 11)
        for name, card in zip(NAMES[1:], (7, 3), strict=True):
            server.call("POST", "/pick", {"round": 1, "card": card}, tokens[name])

        host_page.wait_for_selector("#playbar", timeout=WAIT_MS)
        steps = server.state()["playback"]["steps"]
        for k in range(steps):
            playback = server.state()["playback"]
            assert playback["step"] == k
            if 0 < k < steps:
                phone.wait_for_function(
                    "k => document.querySelector('#status').textContent.includes("
                    "`step ${k} of`)", arg=k, timeout=WAIT_MS)
                status = phone.text_content("#status") or ""
                assert "waits for the host's Next" in status and f"of {steps} of this round" \
                    in status, status
                line = host_page.text_content("#playbar-line") or ""
                assert f"step {k} of {steps}" in line and "waits for your Next" in line, line
            if k == 1:
                host_page.screenshot(path=str(artifacts / "host-playbar.png"))
                phone.screenshot(path=str(artifacts / "phone-waits-for-next.png"))
            host_page.wait_for_function(
                "k => document.querySelector('#playbar-line').textContent.includes("
                "`step ${k} of`) || k === 0", arg=k, timeout=WAIT_MS)
            # wherever the host is on the page, the top or the bottom, Next is in sight
            host_page.evaluate("top => scrollTo(0, top ? 0 : document.body.scrollHeight)",
                               k % 2 == 0)
            tap_in_sight(host_page, "#lights-next")
            host_page.wait_for_function(
                "k => { const line = document.querySelector('#playbar-line');"
                " return document.querySelector('#playbar').hidden"
                " || line.textContent.includes(`step ${k + 1} of`); }",
                arg=k, timeout=WAIT_MS)
        state = server.state()
        assert state["phase"] == "picking" and state["round"] == 2
        host_page.wait_for_selector("#playbar", state="hidden", timeout=WAIT_MS)
        assert "waits for the host" not in (phone.text_content("#status") or "")
    finally:
        host_ctx.close()
        phone_ctx.close()
