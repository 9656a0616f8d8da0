"""What a play-through at a real table found (issue 10, item 7), each measured in a
real browser: the board read across a room at 1280x800 and 1920x1080, the phone at
360 px, the host page.

- the board's caption follows the game (no "Scan the code..." after Start, no stale
  count once everyone has picked, the same words after a reload mid-playback), and
  says who pays for a dung hit, a rhino run or Kali, and why (lowest card);
- ring labels and space numbers are at least 2.5% of the screen's height;
- the ring keeps its size whatever the caption says; names fit in the score table;
- on the phone: the hand stays put after confirming; an error never covers Cancel or
  Play; the cards in the lobby are not buttons; a name is limited to 20 letters with
  a word about it, not cut silently;
- on the host page: the PIN error goes with a good login; the order list ends with
  Kali and its first row has no "move up".

Screenshots go to tests/artifacts/ (phone at 360 px, board at 1280x800 and 1920x1080).
"""

from __future__ import annotations

import re
from contextlib import suppress
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import HOST_PIN, PHONE, Server
from tests.browser.play import WAIT_MS, join, overflow, pick, wait_for_hand, wait_picked
from tests.helpers import wait_for

LONG = "Maximiliana Grünwald"  # 20 letters: the longest name a seat may have
NAMES = ("Anna", "Ben", LONG)
SCREENS = ({"width": 1280, "height": 800}, {"width": 1920, "height": 1080})
READABLE = 0.025
"""Readable across a room: text at least 2.5% of the screen's height."""

RING_TEXT_JS = """
() => Array.from(document.querySelectorAll('#ring text'))
  .filter((node) => node.getClientRects().length && node.textContent.trim())
  .map((node) => ({
    text: node.textContent.trim(),
    cls: node.getAttribute('class') || node.parentNode.getAttribute('class') || '',
    px: parseFloat(getComputedStyle(node).fontSize) * node.getScreenCTM().a,
  }))
"""

BOX_JS = """
(selector) => { const r = document.querySelector(selector).getBoundingClientRect();
  return [Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]; }
"""


SAY_JS = """
async (text) => {
  const src = document.querySelector('script[type=module]').src;
  const { say } = await import(new URL('board/narration.js', src).href);
  say(text);
}
"""


def small_ring_text(page: Any) -> list[str]:
    """Every piece of text on the ring smaller than READABLE of the screen's height
    (after waiting, with a ceiling, for the ring to be drawn for the screen's size)."""
    with suppress(PlaywrightTimeout):  # the measurement below says what is too small
        page.wait_for_function(f"(r) => ({RING_TEXT_JS})().every(t => t.px >= r *"
                               " window.innerHeight - 0.01)", arg=READABLE, timeout=WAIT_MS)
    height = page.evaluate("() => window.innerHeight")
    found: list[dict[str, Any]] = page.evaluate(RING_TEXT_JS)
    assert found, "no text on the ring"
    return [f"{t['cls']} {t['text']!r}: {t['px']:.1f} px"
            for t in found if t["px"] < READABLE * height - 0.01]


def cut_names(page: Any) -> list[str]:
    """The names in the score table that do not fit their cell."""
    cut: list[str] = page.eval_on_selector_all(
        "#scores td.name",
        "cells => cells.filter(c => c.scrollWidth > c.clientWidth)"
        ".map(c => c.textContent)")
    return cut


def resize(page: Any, size: dict[str, int]) -> None:
    page.set_viewport_size(size)
    page.wait_for_function("w => document.documentElement.clientWidth === w",
                           arg=size["width"], timeout=WAIT_MS)


def narration(page: Any) -> str:
    return page.text_content("#narration") or ""


def test_the_board_reads_across_the_room(server: Server, browser: Any,
                                         artifacts: Path) -> None:
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "step", "pause_ms": 100}, host)
    board_ctx = browser.new_context(viewport=SCREENS[0], locale="en-US")
    phone_ctxs = [browser.new_context(viewport=PHONE, locale="en-US") for _ in NAMES]
    try:
        board = board_ctx.new_page()
        board.goto(f"{server.url}/board")
        board.wait_for_function(
            "() => document.getElementById('narration').textContent.startsWith('Scan the code')",
            timeout=WAIT_MS)
        assert not small_ring_text(board)
        phones = [ctx.new_page() for ctx in phone_ctxs]
        for page, name in zip(phones, NAMES, strict=True):
            join(page, server.url, name)

        # in the lobby the cards are shown, but nothing about them says "tap me"
        lobby = phones[0]
        lobby.wait_for_selector("#hand .card", timeout=WAIT_MS)
        assert lobby.locator("#hand button, #hand [role=button]").count() == 0
        cursors = lobby.eval_on_selector_all(
            "#hand .card, #pickers li, #join-seats li",
            "nodes => nodes.map(n => getComputedStyle(n).cursor)")
        assert cursors and "pointer" not in cursors
        lobby.screenshot(path=str(artifacts / "item7-phone-lobby-360.png"))

        server.call("POST", "/host/start", {"setup": {"rhino": 0, "order": list(NAMES),
                                                      "dung": [5, 20]}}, host)
        # after Start the caption says how the picking goes (who is still at it), not how
        # to join; the count is said once, on the phase line, not on the ring or here
        board.wait_for_function(
            "() => document.getElementById('narration').textContent.startsWith("
            "'Still picking: Anna, Ben')", timeout=WAIT_MS)
        assert "Scan" not in narration(board)
        count = "Picked: 0 of 3"
        assert count in (board.text_content("#phase") or "")
        assert count not in narration(board) and count not in (board.text_content("#ring")
                                                                or "")
        ring_box = board.evaluate(BOX_JS, "#ring")

        # the hand stays where it was when the pick is confirmed
        for page, card in zip(phones, (11, 7, 3), strict=True):
            wait_for_hand(page, 12)
            before = page.eval_on_selector_all(
                "#hand .card", "cards => cards.map(c => c.getBoundingClientRect().top)")
            pick(page, card)
            if page is not phones[-1]:
                wait_picked(page, card)
                page.wait_for_function("() => document.getAnimations().length === 0",
                                       timeout=WAIT_MS)  # the tapped card settles
                after = page.eval_on_selector_all(
                    "#hand .card", "cards => cards.map(c => c.getBoundingClientRect().top)")
                moved = [round(a - b) for a, b in zip(after, before, strict=True)
                         if abs(a - b) > 2]
                assert not moved, f"the hand moved by {moved} px after confirming"
                if page is phones[0]:
                    page.screenshot(path=str(artifacts / "item7-phone-picked-360.png"))

        # the round is played step by step: every step keeps the ring where it was, and a
        # hit says who pays and why
        assert wait_for(lambda: server.state()["phase"] == "playing")
        # before the first step: not the picking's count any more
        board.wait_for_function("() => document.getElementById('narration').textContent"
                                ".includes('everyone has picked')", timeout=WAIT_MS)
        game = server.state()["game_id"]
        steps = server.state()["playback"]["steps"]
        said: list[str] = []
        for k in range(1, steps + 1):
            server.call("POST", "/host/next", {}, host)
            board.wait_for_function("(key) => document.body.dataset.step === key",
                                    arg=f"{game}/1/{k}", timeout=WAIT_MS)
            said.append(narration(board))
            assert board.evaluate(BOX_JS, "#ring") == ring_box, said[-1]
            if k == 3:
                board.screenshot(path=str(artifacts / "item7-board-playing-1280x800.png"))
            if k == 2:  # reloaded mid-playback, the board says what it said before
                board.reload()
                board.wait_for_function("(key) => document.body.dataset.step === key",
                                        arg=f"{game}/1/{k}", timeout=WAIT_MS)
                board.wait_for_function("(text) => document.getElementById('narration')"
                                        ".textContent === text", arg=said[-1],
                                        timeout=WAIT_MS)
                # the reloaded page lays itself out (fonts, the drawn strip) and then
                # holds the ring where it was; a ring that stays elsewhere fails here
                with suppress(PlaywrightTimeout):
                    board.wait_for_function(f"(box) => JSON.stringify(({BOX_JS})('#ring'))"
                                            " === JSON.stringify(box)", arg=ring_box,
                                            timeout=5000)
                assert board.evaluate(BOX_JS, "#ring") == ring_box
                # the round's cards are still on the ring, and nobody is said to pick
                assert board.locator("#ring .badges text").count() == len(NAMES) + 1
                assert "picked" not in (board.text_content("#phase") or "")
        record = server.state()["history"][0]["events"]
        dung = [e for e in record if e["type"] == "dung"]
        runs = [e for e in record if e["type"] == "rhino_run"]
        assert dung and runs  # Anna's 11 lands on the heap at 5, and she was last
        for ev in dung:
            payers = [p["player"] for p in record if p["type"] == "penalty"
                      and p["cause"] == "dung" and p["figure"] == ev["figure"]]
            points = {p["points"] for p in record if p["type"] == "penalty"
                      and p["cause"] == "dung" and p["figure"] == ev["figure"]}
            line = next(s for s in said if "dung on space" in s)
            # who pays and how much, as the figure lands (its penalty is the next step)
            assert all(p in line for p in payers) and points == {3}, (line, points)
            assert re.search(r"\bpays? 3\b", line), line
        for ev in runs:
            line = next(s for s in said if f"rammed {ev['rammed']}" in s)
            assert re.search(r"\bpays?\b", line), line
        for penalty in (e for e in record if e["type"] == "penalty"):
            why = "lowest card" if penalty["for_kali"] else (
                "dung" if penalty["cause"] == "dung" else "rammed")
            assert any(penalty["player"] in s and why in s
                       and re.search(rf"\bpays? {penalty['points']}\b", s)
                       for s in said), (penalty, said)
        board.wait_for_function(
            "() => document.getElementById('narration').textContent.startsWith("
            "'Still picking')", timeout=WAIT_MS)

        # a caption long enough to wrap does not shrink the ring
        board.evaluate(SAY_JS, "Kali steps in the dung on space 20: Maximiliana Grünwald,"
                       " Anna pay for Kali (lowest card: 0). Maximiliana Grünwald, Anna pay 3"
                       " each for Kali: lowest card (0).")
        assert board.evaluate(BOX_JS, "#ring") == ring_box
        fits = board.evaluate("() => { const n = document.getElementById('narration');"
                              " return n.scrollHeight <= n.clientHeight + 1; }")
        assert fits  # the long caption got smaller type, not a taller box

        for size in (SCREENS[1], SCREENS[0]):  # a bigger screen, then back to the smaller
            resize(board, size)
            assert not small_ring_text(board), size
            assert overflow(board) == 0
            if size == SCREENS[1]:
                # names fit the score table on a big screen, and "still picking" is a word
                assert not cut_names(board)
                assert "…" not in (board.text_content("#scores") or "")
                assert LONG in (board.text_content("#scores") or "")
            board.screenshot(path=str(artifacts /
                                      f"item7-board-{size['width']}x{size['height']}.png"))
    finally:
        for ctx in (board_ctx, *phone_ctxs):
            ctx.close()


def test_kali_payments_say_lowest_card(server: Server, browser: Any) -> None:
    """The narration of a Kali hit names the payers and the reason, in the board page's
    own module (Kali's card is random at a real table, so the events are given here);
    one winner is called "Winner"."""
    ctx = browser.new_context(viewport=SCREENS[1], locale="en-US")
    try:
        board = ctx.new_page()
        board.goto(f"{server.url}/board")
        board.wait_for_selector("#ring .space", timeout=WAIT_MS)
        lines = board.evaluate("""async () => {
          const src = document.querySelector('script[type=module]').src;
          const { gameOver, narrate } = await import(new URL('board/narration.js', src).href);
          const reveal = { type: 'reveal', round: 2, kali: 6,
                           cards: { Anna: 2, Ben: 9, Caro: 2 } };
          const run = { type: 'rhino_run', from_space: 3, to_space: 7, spaces: 4,
                        rammed: 'Kali' };
          const dung = { type: 'dung', figure: 'Kali', space: 12 };
          const pay = (player) => ({ type: 'penalty', player, points: 4, cause: 'rammed',
                                     figure: 'Kali', total: 4, for_kali: true });
          const own = { type: 'penalty', player: 'Ben', points: 3, cause: 'dung',
                        figure: 'Ben', total: 3, for_kali: false };
          const round = [reveal, run, pay('Anna'), pay('Caro'), dung, own];
          const tie = { type: 'stay', figure: 'Ben', card: 8, reason: 'tie',
                        beaten_by: 'Zuri' };
          const ownDung = { type: 'dung', figure: 'Ben', space: 20 };
          // the board drawn (its track and its rules' dung points); each call gets the
          // table's step the event is in, as board.js passes it
          const view = { track_length: 32, dung_points: 3 };
          return {
            tie: narrate(tie, 0, [tie], [tie], view),
            ownDung: narrate(ownDung, 0, [ownDung], [ownDung], view),
            run: narrate(run, 0, [run], round.slice(0, 2), view),
            pay: narrate(round[2], 0, round.slice(2, 4), round.slice(0, 4), view),
            payAgain: narrate(round[3], 1, round.slice(2, 4), round.slice(0, 4), view),
            dung: narrate(dung, 0, [dung], round.slice(0, 5), view),
            own: narrate(own, 0, [own], round, view),
            one: narrate({ type: 'round_end', round: 12, game_over: true, winners: ['Anna'],
                           minus_points: {} }, 0, [], [], view),
            two: gameOver(['Anna', 'Ben']),
          };
        }""")
        assert lines["run"] == ("Mambo ran 4 spaces and rammed Kali: Anna, Caro pay 4 each"
                                " for Kali (lowest card: 2)."), lines
        assert lines["pay"] == "Anna, Caro pay 4 each for Kali: lowest card (2).", lines
        assert lines["payAgain"] is None, lines  # one sentence for the step's penalties
        assert lines["dung"].startswith("Kali steps in the dung on space 12:"), lines
        # the amount as the figure lands: the table's rules (the view's dung_points), the
        # penalty events being a step later
        assert lines["dung"] == ("Kali steps in the dung on space 12: Anna, Caro pay 3 each"
                                 " for Kali (lowest card: 2)."), lines
        assert lines["ownDung"] == "Ben steps in the dung on space 20: Ben pays 3.", lines
        # a tie names the figure that stays
        assert lines["tie"] == ("Ben plays 8, and so does Zuri, who stands further back:"
                                " Ben stays."), lines
        assert "Anna, Caro" in lines["dung"] and "lowest card" in lines["dung"], lines
        assert lines["own"] == "Ben pays 3: stepped in the dung.", lines
        # one winner is "Winner", a shared win "Winners"
        assert lines["one"] == "Game over! Winner: Anna.", lines
        assert lines["two"] == "Game over! Winners: Anna, Ben.", lines
    finally:
        ctx.close()


def test_phone_name_limit_and_errors(server: Server, browser: Any, artifacts: Path) -> None:
    ctx = browser.new_context(viewport=PHONE, locale="en-US")
    others = [browser.new_context(viewport=PHONE, locale="en-US") for _ in range(2)]
    try:
        phone = ctx.new_page()
        phone.goto(f"{server.url}/")
        phone.wait_for_selector("#join-form", state="visible", timeout=WAIT_MS)
        # the limit is said before it bites, and said again when it does
        assert phone.get_attribute("#name", "maxlength") == "20"
        assert "20" in (phone.text_content("#name-count") or "")
        phone.type("#name", LONG + " the Third")
        assert phone.input_value("#name") == LONG
        counter = phone.text_content("#name-count") or ""
        assert "20 of 20" in counter and "at most" in counter, counter
        assert phone.get_attribute("#name", "aria-describedby") == "name-count"
        phone.screenshot(path=str(artifacts / "item7-phone-name-limit-360.png"))
        phone.click("#join-button")
        phone.wait_for_selector("#seat", state="visible", timeout=WAIT_MS)
        for other, name in zip(others, ("Anna", "Ben"), strict=True):
            join(other.new_page(), server.url, name)
        server.call("POST", "/host/start", {}, server.host_token())
        wait_for_hand(phone, 12)

        # an error while the Play bar is up sits above it, wide enough to read
        phone.route("**/api/v1/pick", lambda route: route.fulfill(
            status=409, content_type="application/json",
            body='{"error": {"code": "wrong_round", "message": "That round is over:'
                 ' pick for the current one."}}'))
        phone.click('#hand .card[data-card="5"]')
        phone.wait_for_selector("#confirm-bar", state="visible", timeout=WAIT_MS)
        phone.click("#confirm")
        phone.wait_for_selector("#toast.show", timeout=WAIT_MS)
        phone.wait_for_function("() => getComputedStyle(document.getElementById('toast'))"
                                ".opacity === '1'", timeout=WAIT_MS)
        phone.screenshot(path=str(artifacts / "item7-phone-error-360.png"))
        toast = phone.evaluate(BOX_JS, "#toast")
        assert toast[2] >= 0.8 * PHONE["width"], toast
        for button in ("#cancel", "#confirm"):
            if not phone.is_visible(button):
                continue
            left, top, width, height = phone.evaluate(BOX_JS, button)
            apart = (toast[1] + toast[3] <= top or top + height <= toast[1]
                     or toast[0] + toast[2] <= left or left + width <= toast[0])
            assert apart, (button, toast, (left, top, width, height))
    finally:
        for c in (ctx, *others):
            c.close()


def test_host_login_and_order_list(server: Server, browser: Any, artifacts: Path) -> None:
    ctx = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-US")
    try:
        for name in ("Anna", "Ben", "Caro"):
            server.call("POST", "/join", {"name": name})
        page = ctx.new_page()
        page.goto(f"{server.url}/host")
        page.wait_for_selector("#login", state="visible", timeout=WAIT_MS)
        page.fill("#pin", "0000000")
        page.click("#login-form button[type=submit]")
        page.wait_for_function("() => document.getElementById('toast').textContent"
                               ".includes('not the host PIN')", timeout=WAIT_MS)
        page.fill("#pin", HOST_PIN)
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
        assert "PIN" not in (page.text_content("#toast") or "")
        assert not page.is_visible("#toast.show")

        page.wait_for_function(
            "() => document.querySelectorAll('#setup-order li').length === 4", timeout=WAIT_MS)
        rows = page.eval_on_selector_all(
            "#setup-order li", "rows => rows.map(r => r.textContent.replace(/\\s+/g, ' '))")
        assert "Anna" in rows[0] and "Kali" in rows[-1], rows
        # no "move up" where there is nowhere to go: the first row, and Kali (always last)
        assert page.locator("#setup-order li:first-child button:visible").count() == 0
        assert page.locator("#setup-order li:last-child button:visible").count() == 0
        page.fill("#setup-rhino", "6")
        page.wait_for_function("() => document.querySelector('#setup-order li:last-child')"
                               ".textContent.includes('10')", timeout=WAIT_MS)
        page.click("#setup-order li:nth-child(2) button")
        rows = page.eval_on_selector_all("#setup-order li .grow", "rows => rows.map(r =>"
                                         " r.textContent)")
        assert rows == ["Ben", "Anna", "Caro", "Kali"], rows
        page.locator("#start-box").screenshot(path=str(artifacts / "item7-host-order.png"))
        page.click("#setup-form button[type=submit]")
        page.wait_for_selector("#start-box", state="hidden", timeout=WAIT_MS)
        assert server.state()["setup"]["order"] == ["Ben", "Anna", "Caro"]
    finally:
        ctx.close()
