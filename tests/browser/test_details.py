"""The smaller promises of the pages, each in a real browser.

- a seat without a phone is played from the host page: hand over, pick unseen, hidden again;
- an entered set-up from the host page is the one the game starts with; undo; new game;
- language from the browser, the switch on the page, names shown as text, hints;
- a phone whose seat is gone offers to join again instead of guessing by name;
- after a pulled plug and a restart, the phones reconnect by themselves.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from tests.browser.conftest import HOST_PIN, PHONE, Server
from tests.browser.play import (
    WAIT_MS,
    contrast,
    hand,
    join,
    pick,
    revealed_cards,
    wait_for_hand,
    wait_picked,
)

NASTY = "<img src=/x.png>"


def focused_id(page: Any) -> str:
    found: str = page.evaluate("() => document.activeElement && document.activeElement.id")
    return found


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
        low = [c for c in contrast(page, ["body", "button", ".muted", ".state-ok", "h2", "h3",
                                          ".colour-name", "a"]) if c["ratio"] < 4.5]
        assert not low, low

        # undo asks first, then takes the round back; a new game asks first, in a dialog
        page.click("#undo")
        page.wait_for_selector("#confirm-undo", state="visible", timeout=WAIT_MS)
        page.click("#undo-confirm")
        page.wait_for_selector("#undo", state="hidden", timeout=WAIT_MS)
        assert server.call("GET", "/record")["rounds"] == []
        page.click("#new-game")
        page.wait_for_selector("#confirm-new", state="visible", timeout=WAIT_MS)
        assert focused_id(page) == "new-cancel"  # the safe answer has the focus
        page.screenshot(path=str(artifacts / "host-confirm-new.png"))
        page.keyboard.press("Escape")
        page.wait_for_selector("#confirm-new", state="hidden", timeout=WAIT_MS)
        assert focused_id(page) == "new-game"  # back where the host was
        assert server.state()["phase"] == "picking"  # Escape kept the game
        page.click("#new-game")
        page.check("#new-clear")  # the seats stay unless the host clears them
        page.click("#new-confirm")
        page.wait_for_selector("#start-box", state="visible", timeout=WAIT_MS)
        assert server.state()["seats"] == []
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
        phone.wait_for_function(
            "() => document.getElementById('hint-text').textContent.length > 2",
            timeout=30_000)
        hint_text = phone.text_content("#hint-text") or ""
        assert hint_text.startswith("Das Nashorn flüstert"), hint_text
        phone.wait_for_selector("#confirm-bar", state="visible", timeout=WAIT_MS)
        suggested = phone.eval_on_selector("#hand .card.selected", "n => Number(n.dataset.card)")
        assert suggested in hand(phone)

        # the switch on the page changes every word, and is remembered
        phone.select_option("#lang", "it")  # the page fetches Italian first (issue 36)
        phone.wait_for_function("() => document.getElementById('round-line').textContent"
                                " === 'Turno 1 di 12'", timeout=WAIT_MS)
        assert phone.text_content("#confirm") == f"Gioca la carta {suggested}"
        phone.screenshot(path=str(artifacts / "phone-italian-hint.png"))
        phone.reload()
        wait_for_hand(phone, 12)
        assert phone.input_value("#lang") == "it"

        # a seat that no longer exists: the phone says so and offers to join again
        server.call("POST", "/host/new", {"keep_seats": False}, token=token)
        phone.wait_for_selector("#join", state="visible", timeout=WAIT_MS)
        assert phone.is_visible("#seat-lost")
        assert phone.evaluate("() => localStorage.getItem('kalimambo.token')") is None
    finally:
        for ctx in (phone_ctx, board_ctx, host_ctx):
            ctx.close()


def test_phones_carry_on_after_the_table_loses_power(server: Server, browser: Any) -> None:
    """kill -9 mid-round: on restart the phones reconnect by themselves, picks kept."""
    contexts = [browser.new_context(viewport=PHONE, locale="en-GB") for _ in range(3)]
    try:
        phones = [ctx.new_page() for ctx in contexts]
        for page, name in zip(phones, ("Ana", "Ben", "Caro"), strict=True):
            join(page, server.url, name)
        server.call("POST", "/host/start", {}, token=server.host_token())
        for page in phones:
            wait_for_hand(page, 12)
        pick(phones[0], 4)
        wait_picked(phones[0], 4)

        server.stop(signal.SIGKILL)
        for page in phones:  # each page notices, and says so
            page.wait_for_selector("#conn.down", timeout=WAIT_MS)
        server.start()
        for page in phones:
            page.wait_for_selector("#conn.ok", state="attached", timeout=WAIT_MS)

        pick(phones[1], 7)
        wait_picked(phones[1], 7)
        pick(phones[2], 0)
        # Ana did nothing since the restart: the reveal reaches her over the new stream
        phones[0].wait_for_selector("#sheet", state="visible", timeout=WAIT_MS)
        assert revealed_cards(phones[0])["Ana"] == 4  # the pick survived the pulled plug
        assert server.call("GET", "/record")["rounds"][0]["cards"] == \
            {"Ana": 4, "Ben": 7, "Caro": 0}
    finally:
        for ctx in contexts:
            ctx.close()


def test_host_gets_in_by_the_host_link(server: Server, browser: Any) -> None:
    """The real host always gets in: the link with the key (from the console line the
    table prints) logs in at once, and the key leaves the address bar; logged out, the
    PIN form waits, even on the table's own screen (no one-tap login: it is no host)."""
    key = server.host_key()
    assert "key" not in server.call("GET", "/local")
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}/host#key={key}")
        page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
        assert "key=" not in page.url
        page.click("#logout")
        page.wait_for_selector("#login-form", state="visible", timeout=WAIT_MS)
        assert page.query_selector("#local-login") is None
        page.fill("#pin", key)  # the key typed works as the PIN does
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
    finally:
        ctx.close()
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    try:  # a wrong key says so, and the PIN form waits
        page = ctx.new_page()
        page.goto(f"{server.url}/host#key=not-the-key")
        page.wait_for_selector("#toast.show.error", timeout=WAIT_MS)
        assert page.is_visible("#login-form") and not page.is_visible("#console")
    finally:
        ctx.close()
