"""The smaller promises of the pages, each in a real browser.

- a seat without a phone is played from the host page: hand over, pick unseen, hidden again;
- an entered set-up from the host page is the one the game starts with;
- language from the browser, the switch on the page, names shown as text, hints;
- a phone whose seat is gone offers to join again instead of guessing by name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.conftest import HOST_PIN, PHONE, Server
from tests.browser.play import WAIT_MS, hand, join, wait_for_hand

NASTY = "<img src=/x.png>"


def host_page(browser: Any, server: Server) -> tuple[Any, Any]:
    ctx = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-US")
    page = ctx.new_page()
    page.goto(f"{server.url}/host")
    page.fill("#pin", HOST_PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
    return ctx, page


def test_host_plays_a_seat_without_a_phone(server: Server, browser: Any,
                                           artifacts: Path) -> None:
    ctx, page = host_page(browser, server)
    try:
        page.fill("#hosted-name", "Oma")
        page.click("#hosted-form button[type=submit]")
        page.wait_for_selector('#seats li[data-seat="Oma"]', timeout=WAIT_MS)
        page.select_option("#bot-count", "2")
        page.select_option("#bot-level", "random")
        page.click("#add-bots")
        page.wait_for_function("() => document.querySelectorAll('#seats li').length === 3",
                               timeout=WAIT_MS)
        names = [s["name"] for s in server.state()["seats"]]

        # enter the set-up already on the board: Mambo on 5, Oma moved to the front
        page.fill("#setup-rhino", "5")
        page.fill("#setup-dung", "12, 20, 27")
        page.click("#setup-order li:nth-child(3) button")
        page.click("#setup-order li:nth-child(2) button")
        page.screenshot(path=str(artifacts / "host-setup.png"), full_page=True)
        page.click("#setup-form button[type=submit]")
        page.wait_for_selector("#start-box", state="hidden", timeout=WAIT_MS)
        view = server.state()
        assert view["setup"] == {"rhino": 5, "order": [names[2], names[0], names[1]],
                                 "dung": [12, 20, 27]}

        page.click('#seats li[data-seat="Oma"] button.primary')
        page.wait_for_selector("#ho-ask", state="visible", timeout=WAIT_MS)
        assert page.locator("#ho-hand .card").count() == 0  # nothing shown before the tap
        page.click("#ho-show")
        page.wait_for_function(
            "() => document.querySelectorAll('#ho-hand .card:not(.played)').length === 12",
            timeout=WAIT_MS)
        page.click('#ho-hand .card[data-card="9"]')
        page.screenshot(path=str(artifacts / "host-handover.png"))
        page.click("#ho-confirm")
        page.wait_for_selector("#ho-done", state="visible", timeout=WAIT_MS)
        assert page.locator("#ho-hand .card").count() == 0  # the card is hidden again
        assert page.is_hidden("#ho-pick")

        # the computer players picked at once, so Oma's pick resolved the round
        record = server.call("GET", "/record")
        assert record["rounds"][0]["cards"]["Oma"] == 9
        page.click("#ho-back")
        page.wait_for_selector("#handover", state="hidden", timeout=WAIT_MS)
        page.screenshot(path=str(artifacts / "host-playing.png"), full_page=True)
    finally:
        ctx.close()


def test_language_names_as_text_hints_and_a_lost_seat(server: Server, browser: Any,
                                                      artifacts: Path) -> None:
    phone_ctx = browser.new_context(viewport=PHONE, locale="de-DE")
    board_ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
    host_ctx, host = host_page(browser, server)
    try:
        phone = phone_ctx.new_page()
        phone.goto(f"{server.url}/")
        phone.wait_for_selector("#join-form", state="visible", timeout=WAIT_MS)
        assert phone.text_content("#join h2") == "Mach mit bei der Expedition"
        assert phone.input_value("#lang") == "de"
        join(phone, server.url, NASTY)

        token = server.host_token()
        server.call("POST", "/host/bots", {"count": 2, "level": "random"}, token=token)
        server.call("POST", "/host/settings", {"hints": True}, token=token)
        server.call("POST", "/host/start", {}, token=token)
        wait_for_hand(phone, 12)
        assert phone.text_content("#round-line") == "Runde 1 von 12"

        # the name typed by a player is text on every page, never markup
        board = board_ctx.new_page()
        board.goto(f"{server.url}/board")
        board.wait_for_selector("#scores tbody tr", timeout=WAIT_MS)
        host.wait_for_selector("#seats li", timeout=WAIT_MS)
        for page in (phone, board, host):
            assert page.locator('img[src="/x.png"]').count() == 0
            assert NASTY in (page.text_content("body") or "")

        # hints: the button is there because the host switched them on
        phone.wait_for_selector("#hint", state="visible", timeout=WAIT_MS)
        phone.click("#hint")
        phone.wait_for_function("() => document.getElementById('hint-text').textContent",
                                timeout=30_000)
        hint_text = phone.text_content("#hint-text") or ""
        assert hint_text.startswith("Das Nashorn flüstert"), hint_text
        phone.wait_for_selector("#confirm-bar", state="visible", timeout=WAIT_MS)
        suggested = phone.eval_on_selector("#hand .card.selected", "n => Number(n.dataset.card)")
        assert suggested in hand(phone)

        # the switch on the page changes every word, and is remembered
        phone.select_option("#lang", "it")
        assert phone.text_content("#round-line") == "Turno 1 di 12"
        assert phone.text_content("#confirm") == f"Gioca il {suggested}"
        phone.screenshot(path=str(artifacts / "phone-italian-hint.png"))
        phone.reload()
        wait_for_hand(phone, 12)
        assert phone.input_value("#lang") == "it"

        # a seat that no longer exists: the phone says so and offers to join again
        server.call("POST", "/host/new", {}, token=token)
        phone.wait_for_selector("#join", state="visible", timeout=WAIT_MS)
        assert phone.is_visible("#seat-lost")
        assert phone.evaluate("() => localStorage.getItem('kalimambo.token')") is None
    finally:
        for ctx in (phone_ctx, board_ctx, host_ctx):
            ctx.close()
