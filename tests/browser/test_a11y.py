"""Every page through axe-core, and the keyboard: dialogs trap focus, close on Escape
and give focus back; the host page keeps focus and typed text across new views.

axe-core runs inside the page (from the axe-playwright-python package); each state
of each page that shows something new is checked: phone join, hand and reveal, the
board in the lobby, mid-game and at the end, the host's login, console and dialogs.
"""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import HOST_PIN, PHONE, Server
from tests.browser.play import (
    WAIT_MS,
    axe,
    console_errors,
    focused,
    join,
    wait_for_hand,
)
from tests.helpers import wait_for

BOARD = {"width": 1920, "height": 1080}


def play_rounds(server: Server, token: str, host: str, hosted: str, rounds: int) -> None:
    """Ana (a phone) and Oma (a hosted seat) play cards 0, 1, 2, ... (the bot picks itself)."""
    for _ in range(rounds):
        view = server.state()
        round_no, played = view["round"], len(view["history"])
        server.call("POST", "/pick", {"round": round_no, "card": round_no - 1}, token)
        seat = next(s for s in view["seats"] if s["name"] == hosted)
        server.call("POST", f"/host/seats/{seat['id']}/pick",
                    {"round": round_no, "card": round_no - 1}, host)
        assert wait_for(lambda: len(server.state()["history"]) > played,  # noqa: B023
                        timeout=WAIT_MS / 1000)


def host_login(page: Any, url: str) -> None:
    page.goto(f"{url}/host")
    page.fill("#pin", HOST_PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)


def test_every_page_passes_axe(server: Server, browser: Any) -> None:
    phone_ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    board_ctx = browser.new_context(viewport=BOARD, locale="en-GB")
    host_ctx = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-GB")
    found: list[str] = []
    try:
        phone, board, host = phone_ctx.new_page(), board_ctx.new_page(), host_ctx.new_page()
        errors = [console_errors(p) for p in (phone, board, host)]
        phone.goto(f"{server.url}/")
        phone.wait_for_selector("#join-form", state="visible", timeout=WAIT_MS)
        found += axe(phone, "phone join")
        join(phone, server.url, "Ana")
        token = phone.evaluate("() => localStorage.getItem('kalimambo.token')")
        host.goto(f"{server.url}/host")
        host.wait_for_selector("#login", state="visible", timeout=WAIT_MS)
        found += axe(host, "host login")
        host_login(host, server.url)
        host.fill("#hosted-name", "Oma")
        host.click("#hosted-form button[type=submit]")
        host.wait_for_selector('#seats li[data-seat="Oma"]', timeout=WAIT_MS)
        host.click("#add-bots")
        host.wait_for_function("() => document.querySelectorAll('#seats li').length === 3",
                               timeout=WAIT_MS)
        found += axe(host, "host lobby")
        board.goto(f"{server.url}/board?pace=30")
        board.wait_for_function("() => document.querySelectorAll('#scores tbody tr').length"
                                " === 3", timeout=WAIT_MS)
        assert board.get_attribute("#qr", "alt") == \
            f"QR code: open {server.state()['join_url']} to join"
        found += axe(board, "board lobby")

        host.click("#start-random")
        host.wait_for_selector("#start-box", state="hidden", timeout=WAIT_MS)
        wait_for_hand(phone, 12)
        found += axe(phone, "phone hand")
        host.click('#seats li[data-seat="Oma"] button.primary')
        host.wait_for_selector("#handover", state="visible", timeout=WAIT_MS)
        found += axe(host, "host hand-over")
        host.click("#ho-show")
        host.wait_for_selector("#ho-hand .card", timeout=WAIT_MS)
        found += axe(host, "host hand-over cards")
        host.keyboard.press("Escape")
        host.wait_for_selector("#handover", state="hidden", timeout=WAIT_MS)
        host.click("#new-game")
        host.wait_for_selector("#confirm-new", state="visible", timeout=WAIT_MS)
        found += axe(host, "host confirm new game")
        host.keyboard.press("Escape")

        hosting = server.host_token()
        play_rounds(server, token, hosting, "Oma", 1)
        phone.wait_for_selector("#sheet", state="visible", timeout=WAIT_MS)
        found += axe(phone, "phone reveal")
        board.wait_for_function(  # the round has been played on the ring
            "() => /Round 1 done/.test(document.getElementById('narration').textContent)"
            " || /Round 2/.test(document.getElementById('phase').textContent)",
            timeout=WAIT_MS)
        found += axe(board, "board mid-game")
        found += axe(host, "host picking")

        play_rounds(server, token, hosting, "Oma", 11)
        board.wait_for_selector("#chart-box", state="visible", timeout=60_000)
        found += axe(board, "board finished")
        phone.wait_for_selector("#over", state="visible", timeout=WAIT_MS)
        assert not phone.is_visible("#sheet")  # game over first, no sheet over it
        found += axe(phone, "phone finished")
        assert errors == [[], [], []]
    finally:
        for ctx in (phone_ctx, board_ctx, host_ctx):
            ctx.close()
    assert not found, "\n".join(found)


def test_dialogs_trap_focus_close_on_escape_and_give_focus_back(server: Server,
                                                                browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-GB")
    phone_ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    try:
        host = ctx.new_page()
        host_login(host, server.url)
        hosting = server.host_token()
        server.call("POST", "/host/seats", {"name": "Oma"}, hosting)
        server.call("POST", "/host/bots", {"count": 2, "level": "random"}, hosting)
        server.call("POST", "/host/start", {}, hosting)
        opener = '#seats li[data-seat="Oma"] button.primary'
        host.wait_for_selector(opener, timeout=WAIT_MS)
        host.focus(opener)
        host.keyboard.press("Enter")
        host.wait_for_selector("#handover", state="visible", timeout=WAIT_MS)
        assert focused(host).startswith("button#ho-show")
        host.keyboard.press("Tab")
        assert focused(host).startswith("button#ho-cancel")
        host.keyboard.press("Tab")  # past the last control: round to the first
        assert focused(host).startswith("button#ho-show")
        host.keyboard.press("Shift+Tab")
        assert focused(host).startswith("button#ho-cancel")
        host.keyboard.press("Enter")  # cancel
        host.wait_for_selector("#handover", state="hidden", timeout=WAIT_MS)
        assert focused(host) == "button Pick for Oma"

        host.keyboard.press("Enter")  # open again, show the cards, then Escape
        host.wait_for_selector("#handover", state="visible", timeout=WAIT_MS)
        # The dialog moves the focus itself: press only once it is on "show the cards".
        host.wait_for_function("() => document.activeElement"
                               " && document.activeElement.id === 'ho-show'", timeout=WAIT_MS)
        host.keyboard.press("Enter")
        host.wait_for_selector("#ho-hand .card", timeout=WAIT_MS)
        assert focused(host) == "button 0"  # the first card in hand
        host.keyboard.press("Escape")
        host.wait_for_selector("#handover", state="hidden", timeout=WAIT_MS)
        host.wait_for_function(  # the hand is gone with it
            "() => document.querySelectorAll('#ho-hand .card').length === 0", timeout=WAIT_MS)
        assert focused(host) == "button Pick for Oma"

        # closed and opened again at once (before the close event's task has run): the
        # late close event must not end the new hand-over (its cards would never show)
        host.keyboard.press("Enter")
        host.wait_for_selector("#handover", state="visible", timeout=WAIT_MS)
        host.evaluate("""(opener) => { document.getElementById('ho-cancel').click();
                                       document.querySelector(opener).click(); }""", opener)
        host.wait_for_selector("#handover", state="visible", timeout=WAIT_MS)
        host.click("#ho-show")
        host.wait_for_selector("#ho-hand .card", timeout=WAIT_MS)
        host.keyboard.press("Escape")
        host.wait_for_selector("#handover", state="hidden", timeout=WAIT_MS)
        assert focused(host) == "button Pick for Oma"

        # the phone's reveal sheet: it opens by itself, Escape closes it
        phone = phone_ctx.new_page()
        server.call("POST", "/host/new", {"keep_seats": False}, hosting)
        join(phone, server.url, "Ana")
        server.call("POST", "/host/bots", {"count": 2, "level": "random"}, hosting)
        server.call("POST", "/host/start", {}, hosting)
        wait_for_hand(phone, 12)
        phone.focus('#hand .card[data-card="5"]')
        token = phone.evaluate("() => localStorage.getItem('kalimambo.token')")
        server.call("POST", "/pick", {"round": 1, "card": 5}, token)
        phone.wait_for_selector("#sheet", state="visible", timeout=WAIT_MS)
        assert focused(phone) == "button#sheet-ok Got it"
        phone.keyboard.press("Tab")
        assert focused(phone) == "button#sheet-ok Got it"  # the only control: Tab stays
        phone.keyboard.press("Escape")
        phone.wait_for_selector("#sheet", state="hidden", timeout=WAIT_MS)
        assert focused(phone).startswith("button")  # back on the hand, not lost to <body>
    finally:
        ctx.close()
        phone_ctx.close()


def test_host_page_keeps_focus_and_typed_text_across_new_views(server: Server,
                                                               browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-GB")
    try:
        host = ctx.new_page()
        errors = console_errors(host)
        host_login(host, server.url)
        server.call("POST", "/join", {"name": "Ana"})
        server.call("POST", "/join", {"name": "Ben"})
        host.wait_for_function("() => document.querySelectorAll('#seats li').length === 2",
                               timeout=WAIT_MS)

        def new_view_arrives(name: str, count: int) -> None:
            server.call("POST", "/join", {"name": name})  # from outside the page
            host.wait_for_function(
                "n => document.querySelectorAll('#seats li').length === n", arg=count,
                timeout=WAIT_MS)

        # half a name typed in a field
        host.click("#hosted-name")
        host.keyboard.type("Om")
        new_view_arrives("Caro", 3)
        assert focused(host) == "input#hosted-name"
        assert host.input_value("#hosted-name") == "Om"
        host.keyboard.type("a")
        assert host.input_value("#hosted-name") == "Oma"

        # a button in the seat list, built by the script
        host.focus('#seats li[data-seat="Ben"] button.danger')
        new_view_arrives("Dora", 4)
        assert host.evaluate("() => document.activeElement.closest('li').dataset.seat") == "Ben"
        assert focused(host) == "button Remove"

        # the order list: a "move up" button keeps the keyboard as the rows move
        host.focus("#setup-order li:nth-child(3) button")
        host.keyboard.press("Enter")
        assert host.evaluate("() => document.activeElement.closest('li').textContent") \
            .endswith("Caro↑")
        assert host.evaluate(
            "() => Array.from(document.querySelectorAll('#setup-order .grow'))"
            ".map(n => n.textContent)") == ["Ana", "Caro", "Ben", "Dora", "Kali"]
        new_view_arrives("Emil", 5)  # a new seat: a new order, the focused row stays
        assert host.evaluate("() => document.activeElement.closest('li') !== null")

        # the "how many computers" choice keeps its value and focus
        host.select_option("#bot-count", "2")
        host.focus("#bot-count")
        new_view_arrives("Fynn", 6)
        assert focused(host).startswith("select#bot-count")
        assert host.input_value("#bot-count") == "1"  # only one seat is left now
        assert errors == []
    finally:
        ctx.close()


def test_dialogs_work_without_show_modal(server: Server, browser: Any) -> None:
    """Phones older than <dialog> support (iOS before 15.4): the same dialog, by hand."""
    ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    try:
        host = ctx.new_page()
        errors = console_errors(host)
        host.add_init_script("delete HTMLDialogElement.prototype.showModal;"
                             " delete HTMLDialogElement.prototype.close;")
        host_login(host, server.url)
        hosting = server.host_token()
        server.call("POST", "/host/bots", {"count": 3, "level": "random"}, hosting)
        server.call("POST", "/host/start", {}, hosting)
        host.wait_for_selector("#start-box", state="hidden", timeout=WAIT_MS)
        host.click("#new-game")
        host.wait_for_selector("#confirm-new", state="visible", timeout=WAIT_MS)
        assert focused(host) == "button#new-cancel Cancel"
        host.keyboard.press("Escape")
        host.wait_for_selector("#confirm-new", state="hidden", timeout=WAIT_MS)
        assert focused(host) == "button#new-game New game"
        game = server.state()["game_id"]
        host.click("#new-game")
        host.click("#new-cancel")
        host.wait_for_selector("#confirm-new", state="hidden", timeout=WAIT_MS)
        # Cancel keeps the game (the computer players may have finished it meanwhile).
        assert server.state()["game_id"] == game
        assert server.state()["phase"] in ("picking", "playing", "finished")
        host.click("#new-game")
        host.click("#new-confirm")
        host.wait_for_selector("#start-box", state="visible", timeout=WAIT_MS)
        assert server.state()["phase"] == "lobby"
        assert errors == []
    finally:
        ctx.close()
