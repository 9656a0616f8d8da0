"""Computer players at the table: they pick as soon as a round opens, and the board
page marks them as computers."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Server
from tests.browser.play import WAIT_MS
from tests.helpers import wait_for


def test_board_marks_computer_players(server: Server, browser: Any) -> None:
    token = server.call("POST", "/join", {"name": "Ana"})["token"]
    host = server.host_token()
    server.call("POST", "/host/bots", {"count": 2, "level": "easy"}, host)
    server.call("POST", "/host/start", {}, host)
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    board = ctx.new_page()
    board.goto(f"{server.url}/board")
    board.wait_for_function(
        "() => document.querySelectorAll('#scores tbody tr').length === 3", timeout=WAIT_MS)
    rows = board.locator("#scores tbody tr").all_inner_texts()
    bots = [s["name"] for s in server.state()["seats"] if s["bot"]]
    assert len(bots) == 2
    for row in rows:
        is_bot = any(name in row for name in bots)
        assert ("computer (easy)" in row) == is_bot, row
    # the computers pick as soon as the round opens: only Ana's pick is missing
    assert wait_for(lambda: [s["picked"] for s in server.state()["seats"]]
                    == [False, True, True])
    assert server.call("POST", "/pick", {"round": 1, "card": 4}, token)["resolved"] is True
    assert server.state()["phase"] == "playing"  # the round is played back first
    assert wait_for(lambda: server.state()["round"] == 2)  # on the table's own clock
    ctx.close()
