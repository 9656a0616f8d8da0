"""Player names are data: names that are also the names of JavaScript object properties
("__proto__", "constructor", ...) break no page.  The board still draws every figure and
adds up numbers, the host page lists every seat, the phone shows its reveal."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import PHONE, Server
from tests.browser.play import WAIT_MS, console_errors, join, wait_for_hand
from tests.helpers import wait_for

NAMES = ("__proto__", "constructor", "toString", "hasOwnProperty")
FIGURES_JS = """() => Array.from(document.querySelectorAll('#ring .figures > g'))
  .map(g => g.querySelector('title').textContent)"""
TOTALS_JS = """() => Array.from(document.querySelectorAll('#scores tbody tr'))
  .map(r => r.lastElementChild.textContent)"""


def test_names_like_object_properties_break_no_page(server: Server, browser: Any) -> None:
    phone_ctx = browser.new_context(viewport=PHONE, locale="en-GB")
    board_ctx = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="en-GB")
    host_ctx = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-GB")
    try:
        phone, board, host = phone_ctx.new_page(), board_ctx.new_page(), host_ctx.new_page()
        errors = {"phone": console_errors(phone), "board": console_errors(board),
                  "host": console_errors(host)}
        board.goto(f"{server.url}/board?pace=20")
        join(phone, server.url, NAMES[0])
        tokens = [phone.evaluate("() => localStorage.getItem('kalimambo.token')")]
        tokens += [server.call("POST", "/join", {"name": name})["token"] for name in NAMES[1:]]
        hosting = server.host_token()
        host.add_init_script(f"localStorage.setItem('kalimambo.host', '{hosting}')")
        host.goto(f"{server.url}/host")
        host.wait_for_function("n => document.querySelectorAll('#seats li').length === n",
                               arg=len(NAMES), timeout=WAIT_MS)
        assert host.eval_on_selector_all("#seats li", "ns => ns.map(n => n.dataset.seat)") \
            == list(NAMES)
        assert host.eval_on_selector_all("#setup-order .grow",
                                         "ns => ns.map(n => n.textContent)") \
            == [*NAMES, "Kali"]  # the order list ends with Kali, always in front
        board.wait_for_function("n => document.querySelectorAll('#scores tbody tr').length"
                                " === n", arg=len(NAMES), timeout=WAIT_MS)

        server.call("POST", "/host/start", {}, hosting)
        wait_for_hand(phone, 12)
        board.wait_for_function(f"() => ({FIGURES_JS})().length === {len(NAMES) + 2}",
                                timeout=WAIT_MS)
        for round_no in (1, 2, 3):
            for token in tokens:
                server.call("POST", "/pick", {"round": round_no, "card": round_no + 2}, token)
            assert wait_for(lambda: len(server.state()["history"]) == round_no,  # noqa: B023
                            timeout=WAIT_MS / 1000)
        view = server.state()
        expected = [str(seat["minus_points"]) for seat in view["seats"]]
        # the board has played the three rounds through, penalty by penalty
        board.wait_for_function(
            f"want => JSON.stringify(({TOTALS_JS})()) === JSON.stringify(want)",
            arg=expected, timeout=60_000)
        board.wait_for_function("() => /Round 4/.test(document.getElementById('phase')"
                                ".textContent)", timeout=60_000)
        assert sorted(board.evaluate(FIGURES_JS)) == sorted([*NAMES, "Kali", "Mambo"])
        spaces = board.eval_on_selector_all(
            "#ring .figures > g", "gs => gs.map(g => [g.querySelector('title').textContent,"
            " Number(g.dataset.space)])")
        assert dict(spaces) == {**{n: view["positions"][n] for n in NAMES},
                                "Kali": view["positions"]["Kali"], "Mambo": view["rhino"]}
        cells = board.eval_on_selector_all(
            "#scores tbody td:not(.name):not(.total)", "ns => ns.map(n => n.textContent)")
        assert all(c == "" or c == "0" or c.lstrip("+").isdigit() for c in cells), cells

        phone.wait_for_selector("#sheet", state="visible", timeout=WAIT_MS)
        names_shown = phone.eval_on_selector_all("#sheet-cards .mini-name",
                                                 "ns => ns.map(n => n.textContent)")
        assert sorted(names_shown) == sorted([*NAMES, "Kali"])
        assert phone.text_content("#me-points") == expected[0]
        host.wait_for_selector('#seats li[data-seat="__proto__"] .state-ok', timeout=WAIT_MS)
        assert errors == {"phone": [], "board": [], "host": []}
    finally:
        for ctx in (phone_ctx, board_ctx, host_ctx):
            ctx.close()
