"""One timeline: in step pacing the board page, the simulated strip and three phones
follow the table's cursor step by step.

At every step k of round 1 the test checks that the board page shows step k (its
``data-step`` is set once a step's animation is over), that the strip's frame lights
exactly the pieces of the view at k, and that no phone shows round 1's outcome before
k = m; a board page reloaded mid-playback resumes at the cursor; the round's end is
told after its last step; and a skip takes the board and the strip to the end at once,
animating none of the skipped steps.  No fixed sleeps:
every check waits for its condition.  Screenshots of each page (phones at 360 px,
the board at 1920x1080) go to tests/artifacts/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.conftest import PHONE, Server
from tests.browser.play import WAIT_MS, dismiss_reveal, join, pick, wait_picked
from tests.helpers import wait_for

NAMES = ("Ana", "Ben", "Caro")
BOARD = {"width": 1920, "height": 1080}


SAID_JS = """() => {
  // every caption the board says, with the step the board showed then
  window.said = [];
  const node = document.getElementById('narration');
  new MutationObserver(() => window.said.push([node.textContent, document.body.dataset.step]))
    .observe(node, {childList: true, characterData: true, subtree: true});
}"""


def lit(server: Server) -> set[int]:
    return {i for i, led in enumerate(server.call("GET", "/leds")["leds"]) if any(led)}


def pieces(view: dict[str, Any]) -> set[int]:
    return {*view["positions"].values(), view["rhino"], *view["dung"]}


def test_board_strip_and_phones_follow_the_cursor(server: Server, browser: Any,
                                                   artifacts: Path) -> None:
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "step", "pause_ms": 100}, host)
    board_ctx = browser.new_context(viewport=BOARD, locale="en-US")
    phone_ctxs = [browser.new_context(viewport=PHONE, locale="en-US") for _ in NAMES]
    try:
        phones = [ctx.new_page() for ctx in phone_ctxs]
        for page, name in zip(phones, NAMES, strict=True):
            join(page, server.url, name)
        server.call("POST", "/host/start", {"setup": {"rhino": 0, "order": list(NAMES),
                                                      "dung": [10, 20]}}, host)
        board = board_ctx.new_page()
        board.goto(f"{server.url}/board?leds=1")
        game = server.state()["game_id"]

        def board_at(k: int, round_no: int = 1) -> None:
            board.wait_for_function("(key) => document.body.dataset.step === key",
                                    arg=f"{game}/{round_no}/{k}", timeout=WAIT_MS)

        def scores_have(round_no: int) -> None:
            """The board's score table has round ``round_no``'s column filled in."""
            board.wait_for_function(
                "(r) => [...document.querySelectorAll('#scores tbody tr')]"
                ".every((row) => row.cells[r].textContent !== '')", arg=round_no,
                timeout=WAIT_MS)

        def play_again(cards: tuple[int, ...]) -> None:
            """Each phone picks its card (the last one resolves the round)."""
            for page, card in zip(phones, cards, strict=True):
                dismiss_reveal(page)
                page.wait_for_selector(
                    f'#hand button.card[data-card="{card}"]:not([disabled])', timeout=WAIT_MS)
                pick(page, card)
            assert wait_for(lambda: server.state()["phase"] == "playing")

        for page, card in zip(phones, (11, 7, 3), strict=True):
            page.wait_for_selector('#hand button.card[data-card="0"]:not([disabled])',
                                   timeout=WAIT_MS)
            pick(page, card)
            if page is not phones[-1]:
                wait_picked(page, card)
        assert wait_for(lambda: server.state()["phase"] == "playing")
        view = server.state()
        steps = view["playback"]["steps"]
        assert view["playback"]["step"] == 0 and steps >= 5
        for k in range(steps + 1):
            view = server.state()
            assert view["playback"]["step"] == k
            board_at(k)
            expected = pieces(view)
            assert wait_for(lambda expected=expected: lit(server) == expected)
            if k < steps:
                assert view["phase"] == "playing" and view["history"] == []
                for page in phones:
                    page.wait_for_function(
                        "(k) => document.getElementById('status').textContent"
                        ".includes(`step ${k} of`)", arg=k, timeout=WAIT_MS)
                    assert not page.is_visible("#sheet")
                    assert "Round 1" not in (page.text_content("#last-title") or "")
                    # the hand waits, and looks it: no card looks tappable
                    assert page.evaluate("""() => [...document.querySelectorAll(
                        '#hand .card:not(.played)')].every((c) => c.disabled
                        && getComputedStyle(c).filter !== 'none'
                        && getComputedStyle(c).cursor === 'default')""")
            if k == 2:  # a board page reloaded mid-playback resumes at the cursor
                board.reload()
                board_at(k)
                board.evaluate(SAID_JS)
                board.screenshot(path=str(artifacts / "timeline-board-playing.png"))
                phones[0].screenshot(path=str(artifacts / "timeline-phone-playing.png"))
            if k < steps:
                server.call("POST", "/host/next", {}, host)
        view = server.state()
        assert view["phase"] == "picking" and view["round"] == 2
        # the round's end is told once its last step has been shown, not before
        board.wait_for_function("() => window.said.some(([text]) => text === 'Round 1 done.')",
                                timeout=WAIT_MS)
        said = board.evaluate("() => window.said")
        board.wait_for_function("() => !document.querySelector('.badges')", timeout=WAIT_MS)
        assert [step for text, step in said if text == "Round 1 done."] == [f"{game}/1/{steps}"]
        for page in phones:  # the outcome reaches the phones when the playback ends
            page.wait_for_selector("#sheet", state="visible", timeout=WAIT_MS)
        scores_have(1)  # and the board's scores get round 1's column
        phones[0].screenshot(path=str(artifacts / "timeline-phone-summary.png"))
        board.screenshot(path=str(artifacts / "timeline-board-end.png"))
        server.call("POST", "/host/undo", {}, host)
        board.wait_for_function(
            "() => document.getElementById('narration').textContent.includes('Round 1 undone')",
            timeout=WAIT_MS)
        for page in phones:
            page.wait_for_function(
                "() => document.getElementById('status').textContent.includes('Round 1 undone')",
                timeout=WAIT_MS)
            assert not page.is_visible("#sheet")
        phones[0].screenshot(path=str(artifacts / "timeline-phone-undone.png"))
        board.screenshot(path=str(artifacts / "timeline-board-undone.png"))

        # round 1 again: one step, then a skip; the board and the strip jump to the end
        play_again((11, 7, 3))
        server.call("POST", "/host/next", {}, host)
        board_at(1)
        told = len(board.evaluate("() => window.said"))
        skipped = server.call("POST", "/host/skip", {}, host)
        assert skipped["step"] == skipped["steps"] == steps
        board_at(steps)
        view = server.state()
        assert view["phase"] == "picking" and view["playback"]["current"]["skipped"]
        assert wait_for(lambda: lit(server) == pieces(view))
        scores_have(1)  # the board shows round 1's minus points at once
        # the round is over: its cards leave the ring, as after a round played through
        board.wait_for_function("() => !document.querySelector('.badges')", timeout=WAIT_MS)
        # nothing was animated: an animated step's caption comes while the board still
        # shows the step before it; a jumped-to step's caption once the board is there.
        # (A view that changes nothing else, such as the strip's status, says step 1's
        # caption again at step 1: that is no animation.)
        said = board.evaluate("() => window.said")
        step_1 = said[told - 1][0]
        after = said[told:]
        assert after and all(step != f"{game}/1/1" or text == step_1
                             for text, step in after), after

        # round 2: a skip while the board is still animating the reveal (slow pacing:
        # 600 ms) leaves the board at the end too, not at the step it was animating
        server.call("POST", "/host/settings", {"pause_ms": 10_000}, host)
        play_again((10, 6, 2))
        server.call("POST", "/host/next", {}, host)
        skipped = server.call("POST", "/host/skip", {}, host)
        board_at(skipped["steps"], round_no=2)
        view = server.state()
        assert view["phase"] == "picking" and view["round"] == 3
        scores_have(2)  # drawn from the board's state, not the step it was animating
    finally:
        for ctx in (board_ctx, *phone_ctxs):
            ctx.close()
