"""A whole game in a real browser: three phones, the board and the host page, by tapping.

The host logs in and starts on the host page; three phones (360 x 740) join by name
and play all twelve rounds by tapping a card and confirming; one phone changes its
mind, one reloads mid-round and must keep its seat and its pick.  Every reveal the
phones show is checked against what was tapped, and the finished game's record
against the whole sequence of taps.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from tests.browser.conftest import HOST_PIN, PHONE, Server
from tests.browser.play import (
    WAIT_MS,
    contrast,
    dismiss_reveal,
    hand,
    join,
    overflow,
    pick,
    revealed_cards,
    wait_for_hand,
    wait_picked,
)

NAMES = ("Ana", "Ben", "Çaro")
CHANGE_ROUND = 3      # Ana picks one card, then changes her mind
RELOAD_ROUND = 5      # Ben picks, reloads the page, and must find his seat and pick again
AA = 4.5


def host_login_and_start(page: Any, url: str) -> None:
    page.goto(f"{url}/host")
    page.fill("#pin", HOST_PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
    page.wait_for_function("n => document.querySelectorAll('#seats li').length === n",
                           arg=len(NAMES), timeout=WAIT_MS)


def check_phone_fits(page: Any) -> None:
    """At 360 px: nothing sticks out sideways, all twelve cards are on screen and big."""
    assert overflow(page) == 0
    boxes = page.eval_on_selector_all(
        "#hand .card", "nodes => nodes.map(n => { const r = n.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; })")
    assert len(boxes) == 12
    for left, top, right, bottom in boxes:
        assert left >= 0 and right <= PHONE["width"]
        assert top >= 0 and bottom <= PHONE["height"]
        assert right - left >= 44 and bottom - top >= 44


def test_three_phones_play_a_whole_game(server: Server, browser: Any, artifacts: Path) -> None:
    rng = random.Random(20110)
    board_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    host_ctx = browser.new_context(viewport={"width": 412, "height": 915})
    phone_ctxs = [browser.new_context(viewport=PHONE, locale="en-GB") for _ in NAMES]
    try:
        board = board_ctx.new_page()
        board.goto(f"{server.url}/board?pace=30&leds=1")
        phones = [ctx.new_page() for ctx in phone_ctxs]
        phones[0].goto(f"{server.url}/")
        phones[0].wait_for_selector("#join-form", state="visible", timeout=WAIT_MS)
        assert overflow(phones[0]) == 0
        phones[0].screenshot(path=str(artifacts / "phone-join.png"))
        for page, name in zip(phones, NAMES, strict=True):
            join(page, server.url, name)
        assert overflow(phones[2]) == 0
        phones[2].screenshot(path=str(artifacts / "phone-lobby.png"))
        board.wait_for_function("n => document.querySelectorAll('#scores tbody tr').length === n",
                                arg=len(NAMES), timeout=WAIT_MS)
        board.wait_for_function("() => document.querySelectorAll('#leds span').length === 32",
                                timeout=WAIT_MS)
        # opened on the table's own machine (127.0.0.1), which faces the room: no PIN
        assert board.query_selector("#pin") is None and HOST_PIN not in board.content()
        assert board.is_hidden("#host-link")
        board.screenshot(path=str(artifacts / "board-lobby.png"))

        host = host_ctx.new_page()
        host_login_and_start(host, server.url)
        host.screenshot(path=str(artifacts / "host-lobby.png"), full_page=True)
        host.click("#start-random")
        host.wait_for_selector("#start-box", state="hidden", timeout=WAIT_MS)

        played: list[dict[str, int]] = []
        for round_no in range(1, 13):
            for page in phones:
                wait_for_hand(page, 13 - round_no)
                dismiss_reveal(page)
            if round_no == 1:
                for page in phones:
                    check_phone_fits(page)
                phones[0].screenshot(path=str(artifacts / "phone-round1.png"))
            chosen: dict[str, int] = {}
            for index, (page, name) in enumerate(zip(phones, NAMES, strict=True)):
                cards = hand(page)
                card = rng.choice(cards)
                if round_no == CHANGE_ROUND and index == 0:
                    first = rng.choice([c for c in cards if c != card] or cards)
                    pick(page, first)
                    wait_picked(page, first)
                if round_no == RELOAD_ROUND and index == 1:
                    pick(page, card)
                    wait_picked(page, card)
                    page.reload()
                    page.wait_for_selector("#seat", state="visible", timeout=WAIT_MS)
                    assert page.text_content("#me-name") == name
                    wait_picked(page, card)
                    assert page.is_hidden("#join")
                else:
                    pick(page, card)
                    if index < len(NAMES) - 1:
                        wait_picked(page, card)
                chosen[name] = card
                if round_no == 2 and index == 0:
                    phones[0].screenshot(path=str(artifacts / "phone-picked.png"))
            played.append(chosen)
            for page in phones:
                if round_no < 12:
                    page.wait_for_selector("#sheet", state="visible", timeout=WAIT_MS)
                    box = "#sheet"
                else:  # game over first: the last round's reveal is in the page, under it
                    page.wait_for_selector("#over", state="visible", timeout=WAIT_MS)
                    assert not page.is_visible("#sheet")
                    box = "#last"
                shown = revealed_cards(page, f"{box}-cards")
                assert {n: shown[n] for n in NAMES} == chosen
                assert "Kali" in shown
                assert page.text_content(f"{box}-title").find(str(round_no)) >= 0
                assert page.locator(f"{box}-story li").count() >= 1
            if round_no == 4:
                phones[2].screenshot(path=str(artifacts / "phone-reveal.png"))
                board.screenshot(path=str(artifacts / "board-round4.png"))

        record = server.call("GET", "/record")
        assert [r["cards"] for r in record["rounds"]] == played
        final = server.state()
        assert final["phase"] == "finished"
        for page in phones:
            page.wait_for_selector("#over", state="visible", timeout=WAIT_MS)
            dismiss_reveal(page)
            assert not hand(page)
        phones[0].screenshot(path=str(artifacts / "phone-finished.png"), full_page=True)

        board.wait_for_selector("#winners", state="visible", timeout=60_000)
        winners_text = board.text_content("#winners") or ""
        for name in final["winners"]:
            assert name in winners_text
        if len(final["winners"]) == 1:  # one winner: "Winner", on the board and the phones
            assert winners_text.startswith("Winner:"), winners_text
            assert "Winners" not in (board.text_content("#narration") or "")
            loser = next(p for p, n in zip(phones, NAMES, strict=True)
                         if n not in final["winners"])
            assert (loser.text_content("#over-text") or "").startswith("The winner:")
        board.wait_for_selector("#chart-box", state="visible", timeout=WAIT_MS)
        assert board.locator("#chart polyline").count() == len(NAMES)
        # the final ranking: fewest minus points first, equals in seat order
        totals = board.eval_on_selector_all(
            "#scores tbody tr", "rows => rows.map(r => [Array.from(r.querySelector('.name')"
            ".childNodes).filter(n => n.nodeType === 3).map(n => n.textContent).join('').trim(),"
            " r.lastElementChild.textContent])")
        ranking = sorted(final["seats"], key=lambda s: s["minus_points"])
        assert [(name, int(t)) for name, t in totals] == \
            [(s["name"], s["minus_points"]) for s in ranking]
        board.screenshot(path=str(artifacts / "board-finished.png"))
        board.set_viewport_size({"width": 1920, "height": 1080})
        board.wait_for_function("() => document.documentElement.clientWidth === 1920",
                                timeout=WAIT_MS)
        board.screenshot(path=str(artifacts / "board-finished-tv.png"))
        host.screenshot(path=str(artifacts / "host-finished.png"), full_page=True)

        low = [c for page in (phones[0], board) for c in contrast(
            page, ["body", ".card", ".mini-card", ".chip", ".muted", ".scores td",
                   ".narration", ".status", "h1", "h2"]) if c["ratio"] < AA]
        assert not low, low
    finally:
        for ctx in (board_ctx, host_ctx, *phone_ctxs):
            ctx.close()
