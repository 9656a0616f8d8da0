"""The wooden pieces to move by hand, as the people at the table see them: after an undo
and after a skip the board page, the host page and a phone each name every piece that
must move with its target space, and the strip blinks each target; the host's *Done*
(or the next reveal) ends it.  In Chromium, and in WebKit (board, host and phone).

What must move is worked out here from the views the table answers before and after
the jump (where each figure and Mambo stood on the displays, where they stand now),
not from the table's own list.  Screenshots go to tests/artifacts/.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.browser.conftest import HOST_PIN, PHONE, Server
from tests.browser.play import WAIT_MS, join
from tests.browser.webkit import WebKitPage
from tests.helpers import wait_for

NAMES = ("Ana", "Ben", "Caro")
SETUP = {"rhino": 0, "order": list(NAMES), "dung": [10, 20]}
BOARD = {"width": 1280, "height": 720}

Moves = dict[str, tuple[int | None, int]]
"""A piece ("Ana", "Kali", "Mambo") -> (the space the displays showed it on, its space)."""


def board_of(view: dict[str, Any]) -> dict[str, int]:
    return {**view["positions"], "Mambo": view["rhino"]}


def moved(before: dict[str, Any], after: dict[str, Any]) -> Moves:
    """What stands elsewhere in ``after`` than in ``before`` (two answers of the table)."""
    was, now = board_of(before), board_of(after)
    return {piece: (was.get(piece), space) for piece, space in now.items()
            if was.get(piece) != space}


def listed(page: Any) -> dict[str, tuple[int, str]]:
    """The page's list of pieces to move: piece -> (target space, the line's words)."""
    rows: list[list[str]] = page.eval_on_selector_all(
        "#placing li", "nodes => nodes.map(n => [n.dataset.piece, n.dataset.name,"
                       " n.dataset.to, n.textContent])")
    found = {}
    for piece, name, to, text in rows:
        found["Mambo" if piece == "mambo" else name] = (int(to), text)
    return found


def check_pages(pages: dict[str, Any], expected: Moves, back: bool) -> None:
    """Every page lists exactly the moved pieces, each with its target in words."""
    for where, page in pages.items():
        page.wait_for_function("n => document.querySelectorAll('#placing li').length === n",
                               arg=len(expected), timeout=WAIT_MS)
        assert page.is_visible("#placing"), where
        shown = listed(page)
        assert set(shown) == set(expected), (where, shown, expected)
        for piece, (was, to) in expected.items():
            target, text = shown[piece]
            assert target == to, (where, piece)
            assert text.startswith(f"{piece}: "), (where, text)
            words = (f"back from space {was} to {to}" if back
                     else f"from space {was} to {to}")
            assert text.endswith(words), (where, text, words)


def blinking(server: Server, expected: Moves, pieces: set[int]) -> None:
    """The strip, as a person sees it (``seen``), blinks each target space between the
    piece's colour and a dim glow of it, and never goes dark on any piece (those whose
    players still pick breathe, the others shine steadily)."""
    # the table's copy of the strip's frame trails the strip by up to a tenth of a second
    # (more on a busy machine): first the frame of the board after the jump
    assert wait_for(lambda: all(any(led) for led in (
        server.call("GET", "/leds")["seen"][space] for space in pieces)))
    samples = []
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        samples.append(server.call("GET", "/leds")["seen"])
        time.sleep(0.07)
    for piece, (_, to) in expected.items():
        levels = sorted({max(frame[to]) for frame in samples})
        assert levels[0] > 0, (piece, to, "went dark")
        assert levels[-1] >= 4 * levels[0], (piece, to, "does not blink", levels)
    for space in pieces:
        assert all(any(frame[space]) for frame in samples), (space, "went dark")


def gone(pages: dict[str, Any]) -> None:
    for page in pages.values():
        page.wait_for_selector("#placing", state="hidden", timeout=WAIT_MS)


def play(server: Server, pages: dict[str, Any], host: str, tokens: dict[str, str],
         artifacts: Path, prefix: str) -> None:
    """Round 1 played through and undone, then played again and skipped from step 2,
    each checked on every page and on the strip."""
    game = server.state()
    assert game["placing"]["reason"] == "setup"   # a new game: every piece to set up
    server.call("POST", "/host/placed", {}, host)
    gone(pages)
    for name, card in zip(NAMES, (11, 7, 3), strict=True):
        server.call("POST", "/pick", {"round": 1, "card": card}, tokens[name])
    while server.state()["phase"] == "playing":
        server.call("POST", "/host/next", {}, host)
    played = server.state()
    server.call("POST", "/host/undo", {}, host)
    undone = server.state()
    expected = moved(played, undone)
    assert expected, "round 1 moved nothing: pick other cards"
    check_pages(pages, expected, back=True)
    blinking(server, expected, set(board_of(undone).values()))
    for where, page in pages.items():
        page.screenshot(path=str(artifacts / f"{prefix}placing-undo-{where}.png"))

    for name, card in zip(NAMES, (11, 7, 3), strict=True):
        server.call("POST", "/pick", {"round": 1, "card": card}, tokens[name])
    # the reveal: the pieces the undo named are placed (or not): the steps lead again
    server.call("POST", "/host/next", {}, host)
    gone(pages)
    server.call("POST", "/host/next", {}, host)
    on_display = server.state()
    server.call("POST", "/host/skip", {}, host)
    skipped = server.state()
    expected = moved(on_display, skipped)
    assert expected, "the rest of round 1 moved nothing"
    assert skipped["placing"]["reason"] == "skip"
    check_pages(pages, expected, back=False)
    # the table's own screen (this board, on 127.0.0.1) offers Next only while a round
    # plays: gone once the skip ended it, though a step was still being animated
    pages["board"].wait_for_selector("#board-controls", state="hidden", timeout=WAIT_MS)
    blinking(server, expected, set(board_of(skipped).values()))
    for where, page in pages.items():
        page.screenshot(path=str(artifacts / f"{prefix}placing-skip-{where}.png"))
    pages["host"].click("#placing-done")   # the host's Done, on the host page
    gone(pages)
    assert server.state()["placing"] is None


def start(server: Server) -> tuple[str, dict[str, str]]:
    """Step pacing, three seats (Ana's the phone page's), the game started; the host's
    token and the other seats' tokens."""
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "step", "pause_ms": 100}, host)
    tokens = {name: server.call("POST", "/join", {"name": name})["token"]
              for name in NAMES[1:]}
    return host, tokens


def open_table(server: Server, pages: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """Ana joins on the phone page, the host logs in on the host page, the board page
    opens, the game starts; the host's token and every seat's token (in either engine)."""
    join(pages["phone"], server.url, NAMES[0])
    tokens = {NAMES[0]: pages["phone"].evaluate(
        "() => localStorage.getItem('kalimambo.token')")}
    host, others = start(server)
    tokens.update(others)
    pages["board"].goto(f"{server.url}/board")
    pages["host"].goto(f"{server.url}/host")
    pages["host"].fill("#pin", HOST_PIN)
    pages["host"].click("#login-form button[type=submit]")
    pages["host"].wait_for_selector("#console", timeout=WAIT_MS)
    server.call("POST", "/host/start", {"setup": SETUP}, host)
    for page in pages.values():
        page.wait_for_selector("#placing li", state="attached", timeout=WAIT_MS)
    return host, tokens


def test_the_pieces_to_move_after_an_undo_and_a_skip(server: Server, browser: Any,
                                                      artifacts: Path) -> None:
    contexts = {"board": browser.new_context(viewport=BOARD, locale="en-US"),
                "host": browser.new_context(viewport=PHONE, locale="en-US"),
                "phone": browser.new_context(viewport=PHONE, locale="en-US")}
    try:
        pages = {where: context.new_page() for where, context in contexts.items()}
        host, tokens = open_table(server, pages)
        play(server, pages, host, tokens, artifacts, "")
    finally:
        for context in contexts.values():
            context.close()


def test_the_pieces_to_move_in_webkit(server: Server, webkit: Callable[..., WebKitPage],
                                      artifacts: Path) -> None:
    pages: dict[str, Any] = {"board": webkit(1280, 720), "host": webkit(412, 915),
                             "phone": webkit()}
    host, tokens = open_table(server, pages)
    assert wait_for(lambda: server.state()["placing"] is not None)
    play(server, pages, host, tokens, artifacts, "webkit-")
