"""Step pacing: the board page waits for the same "next" as the strip, one event a press."""

from __future__ import annotations

import time
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import Server
from tests.browser.play import WAIT_MS


def test_board_steps_with_next(server: Server, browser: Any) -> None:
    tokens = [server.call("POST", "/join", {"name": n})["token"] for n in ("Ana", "Ben", "Caro")]
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "step"}, host)
    server.call("POST", "/host/start", {"setup": {"rhino": 0, "order": ["Ana", "Ben", "Caro"],
                                                  "dung": [10, 20]}}, host)
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    board = ctx.new_page()
    board.goto(f"{server.url}/board")
    board.wait_for_function(  # the board has its first view before the round is played
        "() => document.getElementById('phase').textContent.includes('Round 1 of 12')",
        timeout=WAIT_MS)
    for token, card in zip(tokens, (11, 7, 3), strict=True):
        server.call("POST", "/pick", {"round": 1, "card": card}, token)

    def narration() -> str:
        text: str = board.inner_text("#narration")
        return text

    board.wait_for_function(
        "() => /Round 1/.test(document.getElementById('narration').textContent)",
        timeout=WAIT_MS)
    first = narration()
    time.sleep(2.0)  # several automatic pauses' worth: in step pacing nothing moves on
    assert narration() == first
    seen = [first]
    for _ in range(4):  # one strip step a press (a penalty flash keeps the line it follows)
        server.call("POST", "/host/lights/next", {}, host)
        try:
            board.wait_for_function(
                "(before) => document.getElementById('narration').textContent !== before",
                arg=seen[-1], timeout=3000)
        except PlaywrightTimeout:
            continue
        seen.append(narration())
    assert len(seen) >= 3 and len(set(seen)) == len(seen)
    assert any("Ana" in line for line in seen[1:])
    time.sleep(2.0)
    assert narration() == seen[-1]
    ctx.close()
