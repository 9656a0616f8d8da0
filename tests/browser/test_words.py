"""The words and small things of issue 21, item 5, each in a real browser.

- the phone's reveal keeps every card, Kali's last, on one line at 360 and 320 px;
- the host page's undo dialog names the round it takes back, and the new game dialog
  says what it ends in each phase;
- the host page and the score sheet write a date the same way, in the page's language;
- the host link opened in a tab already on the host login form logs in (only the
  address's #key= part changes: no page load), and the key leaves the address bar;
- no page logs a console error (the score sheet asked for /favicon.ico).

The board's words (the picking count said once, the dung line's amount, the tie line
naming who stays) are checked in test_table_view.py, with the board's narration.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import HOST_PIN, Server
from tests.browser.play import WAIT_MS, console_errors, join, pick, wait_for_hand
from tests.helpers import wait_for

NARROW = ({"width": 360, "height": 740}, {"width": 320, "height": 640})

ONE_LINE_JS = """
(box) => {
  const minis = [...document.querySelectorAll(box + ' .mini')];
  const tops = minis.map((m) => Math.round(m.getBoundingClientRect().top));
  const right = Math.max(...minis.map((m) => m.getBoundingClientRect().right));
  return { count: minis.length, lines: new Set(tops).size,
           last: minis.length ? minis[minis.length - 1].textContent : '',
           inside: right <= document.documentElement.clientWidth };
}
"""


def host_page(browser: Any, server: Server, size: dict[str, int] | None = None) -> Any:
    ctx = browser.new_context(viewport=size or {"width": 412, "height": 915},
                              locale="en-GB")
    page = ctx.new_page()
    page.add_init_script(f"localStorage.setItem('kalimambo.host', '{server.host_token()}')")
    page.goto(f"{server.url}/host")
    page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
    return page


def test_the_phones_reveal_keeps_kali_on_the_line(server: Server, browser: Any,
                                                  artifacts: Path) -> None:
    """Seven seats (the most cards a reveal shows), on the narrowest phones."""
    host = server.host_token()
    contexts = [browser.new_context(viewport=size, locale="en-GB") for size in NARROW]
    try:
        phones = [ctx.new_page() for ctx in contexts]
        for page, name in zip(phones, ("Ana", "Ben"), strict=True):
            join(page, server.url, name)
        server.call("POST", "/host/bots", {"count": 5, "level": "easy"}, host)
        server.call("POST", "/host/start", {}, host)
        for page, card in zip(phones, (11, 10), strict=True):
            wait_for_hand(page, 12)
            pick(page, card)
        for page, size in zip(phones, NARROW, strict=True):
            page.wait_for_selector("#sheet", state="visible", timeout=WAIT_MS)
            page.screenshot(path=str(artifacts / f"phone-reveal-{size['width']}.png"))
            for box in ("#sheet-cards", "#last-cards"):
                if box == "#last-cards":
                    page.click("#sheet-ok")
                    page.wait_for_selector("#sheet", state="hidden", timeout=WAIT_MS)
                    page.locator("#last").scroll_into_view_if_needed()
                    page.screenshot(path=str(artifacts /
                                             f"phone-last-round-{size['width']}.png"))
                line = page.evaluate(ONE_LINE_JS, box)
                assert line["count"] == 8 and line["last"].endswith("Kali"), (box, line)
                assert line["lines"] == 1 and line["inside"], (size, box, line)
    finally:
        for ctx in contexts:
            ctx.close()


def test_the_host_dialogs_say_the_round_and_what_a_new_game_ends(
        server: Server, browser: Any, artifacts: Path) -> None:
    host = server.host_token()
    token = server.call("POST", "/join", {"name": "Ana"})["token"]
    server.call("POST", "/host/bots", {"count": 2, "level": "easy"}, host)
    page = host_page(browser, server)
    try:
        def dialog(button: str, name: str) -> str:
            page.click(button)
            page.wait_for_selector(f"#confirm-{name}", state="visible", timeout=WAIT_MS)
            words = page.text_content(f"#confirm-{name}") or ""
            page.keyboard.press("Escape")
            page.wait_for_selector(f"#confirm-{name}", state="hidden", timeout=WAIT_MS)
            return " ".join(words.split())

        assert "No game has started yet" in dialog("#new-game", "new")
        server.call("POST", "/host/start", {}, host)
        for number in (1, 2):
            assert wait_for(lambda n=number: server.state()["phase"] == "picking"
                            and server.state()["round"] == n)
            server.call("POST", "/pick", {"round": number, "card": number}, token)
        assert wait_for(lambda: server.state()["phase"] == "picking"
                        and server.state()["round"] == 3)
        page.wait_for_selector("#undo", state="visible", timeout=WAIT_MS)
        page.wait_for_function("() => document.getElementById('game-status').textContent"
                               ".includes('Round 3')", timeout=WAIT_MS)
        assert dialog("#undo", "undo").startswith("Take round 2 back?")
        assert "The game in progress ends" in dialog("#new-game", "new")
        page.click("#undo")
        page.wait_for_selector("#confirm-undo", state="visible", timeout=WAIT_MS)
        page.screenshot(path=str(artifacts / "host-undo-dialog.png"))
        page.click("#undo-confirm")
        assert wait_for(lambda: server.state()["round"] == 2)
        page.wait_for_function("() => document.getElementById('confirm-undo-title')"
                               ".textContent === 'Take round 1 back?'", timeout=WAIT_MS)

        for number in range(2, 13):
            assert wait_for(lambda n=number: server.state()["phase"] == "picking"
                            and server.state()["round"] == n)
            hand = server.call("GET", "/me", None, token)["me"]["hand"]
            server.call("POST", "/pick", {"round": number, "card": hand[0]}, token)
        assert wait_for(lambda: server.state()["phase"] == "finished")
        page.wait_for_function("() => document.getElementById('game-status').textContent"
                               " === 'Game over'", timeout=WAIT_MS)
        over = dialog("#new-game", "new")
        assert "This game is over" in over and "in progress" not in over, over
        assert dialog("#undo", "undo").startswith("Take round 12 back?")
        page.select_option("#lang", "de")  # in another language, with the round still
        assert dialog("#undo", "undo").startswith("Runde 12 zurücknehmen?")
    finally:
        page.context.close()


def test_dates_read_the_same_on_the_host_page_and_the_score_sheet(
        server: Server, browser: Any) -> None:
    host = server.host_token()
    server.call("POST", "/host/bots", {"count": 3, "level": "random"}, host)
    server.call("POST", "/host/start", {}, host)
    game = server.state()["game_id"]
    page = host_page(browser, server)
    try:
        # The line is filled in from the first view; on a busy machine that comes after
        # the page has loaded (the test once read it empty).
        page.wait_for_function("() => document.getElementById('day-since').textContent"
                               ".trim() !== ''", timeout=WAIT_MS)
        since = page.text_content("#day-since") or ""
        start = datetime.fromtimestamp(server.state()["day_start"])
        months = ["January", "February", "March", "April", "May", "June", "July", "August",
                  "September", "October", "November", "December"]
        shown = f"{start.day} {months[start.month - 1]} {start.year}, {start:%H:%M}"
        assert since == f"The day's leaderboard counts games since {shown}.", since
        page.goto(f"{server.url}/games/{game}/sheet?lang=en")
        meta = page.text_content(".meta") or ""
        started = server.call("GET", "/games")["games"][-1]["started"]
        moment = datetime.fromtimestamp(started)
        assert meta.startswith(f"{moment.day} {months[moment.month - 1]} {moment.year}, "
                               f"{moment:%H:%M} "), meta
    finally:
        page.context.close()


def test_the_host_link_in_a_tab_on_the_login_form_logs_in(server: Server,
                                                          browser: Any) -> None:
    key = server.host_key()
    ctx = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-GB")
    try:
        page = ctx.new_page()
        page.goto(f"{server.url}/host")
        page.wait_for_selector("#login-form", state="visible", timeout=WAIT_MS)
        # the host link opened in this very tab: only the part after # changes
        page.evaluate("(key) => { window.location.hash = 'key=' + key; }", key)
        page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
        assert "key=" not in page.url
        assert page.evaluate("() => window.location.hash") == ""
    finally:
        ctx.close()


PAGES = (("/", "#join"), ("/board", "#ring .space"), ("/host", "#login-form"))


def test_no_page_logs_a_console_error(server: Server, browser: Any) -> None:
    """Each page in a browser of its own (nothing cached), until it has its icon."""
    host = server.host_token()
    server.call("POST", "/host/bots", {"count": 3, "level": "random"}, host)
    server.call("POST", "/host/start", {}, host)
    game = server.state()["game_id"]
    for path, ready in (*PAGES, (f"/games/{game}/sheet", "table")):
        ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-GB")
        try:
            page = ctx.new_page()
            errors = console_errors(page)
            failed: list[str] = []
            page.on("response", lambda r, failed=failed: failed.append(f"{r.status} {r.url}")
                    if r.status >= 400 else None)
            try:
                with page.expect_response(lambda r: r.url.endswith("/static/icon.svg"),
                                          timeout=WAIT_MS):
                    page.goto(f"{server.url}{path}")
            except PlaywrightTimeout as late:
                raise AssertionError(f"{path}: no icon; console: {errors}") from late
            page.wait_for_selector(ready, timeout=WAIT_MS)
            if path == "/host":
                page.fill("#pin", HOST_PIN)
                page.click("#login-form button[type=submit]")
                page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
            assert errors == [] and failed == [], (path, errors, failed)
        finally:
            ctx.close()
