"""The pages in WebKit (WebKitGTK's MiniBrowser, the engine of every iPhone browser).

- A whole game (12 rounds) with two WebKit phones and a computer player: join by name,
  pick and confirm by tapping, one change of mind, a reload mid-round (the seat and its
  pick come back), and a pulled plug mid-round (the event stream drops; the phones say
  so, reconnect by themselves when the table is back, and the pick survives).
- The host page in WebKit logs in, starts, shows step pacing's Next and undoes a round;
  the board page in WebKit follows that round's playback step by step, also after a
  reload mid-playback.

Screenshots go to tests/artifacts/ with a ``webkit-`` prefix.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Callable
from pathlib import Path

from tests.browser.conftest import HOST_PIN, Server
from tests.browser.play import (
    WAIT_MS,
    dismiss_reveal,
    hand,
    join,
    overflow,
    pick,
    revealed_cards,
    wait_for_hand,
    wait_picked,
)
from tests.browser.webkit import WebKitPage
from tests.helpers import wait_for

NAMES = ("Ana", "Ben")
CHANGE_ROUND = 3   # Ana picks a card, then another
RELOAD_ROUND = 5   # Ana picks, reloads, and finds her seat and pick again
PLUG_ROUND = 7     # the table is killed after Ana's pick and started again


def test_two_webkit_phones_play_a_whole_game(server: Server, webkit: Callable[..., WebKitPage],
                                             artifacts: Path) -> None:
    rng = random.Random(2026)
    phones = [webkit(), webkit()]
    assert phones[0].evaluate("() => innerWidth") >= 390
    assert phones[0].evaluate("() => innerHeight") == 844
    phones[0].goto(f"{server.url}/")
    phones[0].wait_for_selector("#join-form", timeout=WAIT_MS)
    phones[0].screenshot(path=str(artifacts / "webkit-phone-join.png"))
    for page, name in zip(phones, NAMES, strict=True):
        join(page, server.url, name)
        page.evaluate(TRACE_JS)
    host = server.host_token()
    server.call("POST", "/host/bots", {"count": 1, "level": "random"}, host)
    server.call("POST", "/host/start", {}, host)

    played: list[dict[str, int]] = []
    for round_no in range(1, 13):
        for page in phones:
            wait_for_hand(page, 13 - round_no)
            dismiss_reveal(page)
        if round_no == 1:
            assert all(overflow(page) == 0 for page in phones)   # nothing sticks out sideways
            phones[0].screenshot(path=str(artifacts / "webkit-phone-round1.png"))
        chosen: dict[str, int] = {}
        for index, (page, name) in enumerate(zip(phones, NAMES, strict=True)):
            cards = hand(page)
            card = rng.choice(cards)
            if round_no == CHANGE_ROUND and index == 0:
                first = rng.choice([c for c in cards if c != card])
                pick(page, first)
                wait_picked(page, first)
                page.screenshot(path=str(artifacts / "webkit-phone-picked.png"))
            pick(page, card)
            try:   # each player sees the pick taken (or, the last to pick, played)
                page.wait_for_selector(f'#hand .card.picked[data-card="{card}"], '
                                       f'#hand .card.played[data-card="{card}"]',
                                       timeout=WAIT_MS)
            except TimeoutError as late:
                raise AssertionError(f"round {round_no}, {name} picked {card}: "
                                     f"{explain(page, server)}") from late
            if round_no == PLUG_ROUND and index == 0:
                server.stop(signal.SIGKILL)
                for other in phones:   # each page notices the stream is gone, and says so
                    other.wait_for_selector("#conn.down", timeout=WAIT_MS)
                phones[1].screenshot(path=str(artifacts / "webkit-phone-table-lost.png"))
                server.start()
                for other in phones:
                    other.wait_for_selector("#conn.ok", state="attached", timeout=WAIT_MS)
                wait_picked(page, card)
            if round_no == RELOAD_ROUND and index == 0:
                page.reload()
                page.wait_for_selector("#seat", timeout=WAIT_MS)
                page.evaluate(TRACE_JS)
                assert page.text_content("#me-name") == name
                assert page.is_hidden("#join")
                wait_picked(page, card)
            chosen[name] = card
        played.append(chosen)
        for page in phones:
            # the last round's reveal is in the page, under the final ranking (game over
            # first, no sheet over it)
            box = "#sheet" if round_no < 12 else "#last"
            wait_for_reveal(page, server, round_no, box)
            shown = revealed_cards(page, f"{box}-cards")
            assert {n: shown[n] for n in NAMES} == chosen, (round_no, shown, chosen)
            assert str(round_no) in (page.text_content(f"{box}-title") or "")
        if round_no == 4:
            phones[1].screenshot(path=str(artifacts / "webkit-phone-reveal.png"))

    record = server.call("GET", "/record")
    assert [{n: r["cards"][n] for n in NAMES} for r in record["rounds"]] == played
    assert server.state()["phase"] == "finished"
    for page in phones:
        page.wait_for_selector("#over", timeout=WAIT_MS)
        dismiss_reveal(page)
        assert not hand(page)
    phones[0].screenshot(path=str(artifacts / "webkit-phone-finished.png"))


def wait_for_reveal(page: WebKitPage, server: Server, round_no: int,
                    box: str = "#sheet") -> None:
    """Wait for the round's reveal (the sheet, or for the last round the page's own box
    under game over); a timeout says what the table and the page were at, so a failure
    in CI can be read without a rerun."""
    try:
        if box == "#sheet":
            page.wait_for_selector("#sheet", timeout=WAIT_MS)
        else:
            page.wait_for_selector("#over", timeout=WAIT_MS)
            assert not page.is_visible("#sheet")
            page.wait_for_function(
                "(n) => document.getElementById('last-title').textContent.includes(n)",
                str(round_no), timeout=WAIT_MS)
    except TimeoutError as late:
        raise AssertionError(f"round {round_no}: no reveal; {explain(page, server)}") from late


TRACE_JS = """() => {
  // what the page did, for explain(): its taps and its messages, in order
  window.traced = [];
  const note = (what) => window.traced.push(`${Math.round(performance.now())} ${what}`);
  document.addEventListener("click", (e) => note(`click ${e.target.id || e.target.dataset.card
    || e.target.tagName}`), true);
  new MutationObserver(() => note(`toast ${document.getElementById("toast").textContent}`))
    .observe(document.getElementById("toast"), {childList: true, characterData: true,
                                                 subtree: true});
}"""
"""Keeps a trace of the page's clicks and toasts in ``window.traced`` (read by explain)."""


def explain(page: WebKitPage, server: Server) -> str:
    """What the table and the page are at: for a failure in CI, read without a rerun."""
    state = server.state()
    seen = page.evaluate(
        "() => ({last: document.querySelector('#last-title')?.textContent,"
        " status: document.querySelector('#status')?.textContent,"
        " toast: document.querySelector('#toast')?.textContent,"
        " conn: document.querySelector('#conn')?.className,"
        " bar: !document.querySelector('#confirm-bar')?.hidden,"
        " confirm: document.querySelector('#confirm')?.textContent,"
        " hand: [...document.querySelectorAll('#hand .card')].map(n => n.dataset.card"
        " + (n.classList.contains('picked') ? '*' : '')"
        " + (n.classList.contains('selected') ? '+' : '') + (n.disabled ? '-' : '')),"
        " traced: window.traced})")
    picked = [s["name"] for s in state["seats"] if s.get("picked")]
    return (f"table at round {state['round']} {state['phase']}, picked {picked}; "
            f"page shows {seen}")


def test_webkit_host_and_board_step_pacing_and_undo(
        server: Server, webkit: Callable[..., WebKitPage], artifacts: Path) -> None:
    host_page = webkit(412, 915)
    host_page.goto(f"{server.url}/host")
    host_page.fill("#pin", HOST_PIN)
    host_page.click("#login-form button[type=submit]")
    host_page.wait_for_selector("#console", timeout=WAIT_MS)
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "step", "pause_ms": 100}, host)
    tokens = {name: server.call("POST", "/join", {"name": name})["token"]
              for name in ("Ana", "Ben", "Caro")}
    host_page.wait_for_function("n => document.querySelectorAll('#seats li').length === n",
                                arg=3, timeout=WAIT_MS)
    host_page.screenshot(path=str(artifacts / "webkit-host-lobby.png"))
    host_page.click_button("^start with a random")
    host_page.wait_for_selector("#start-box", state="hidden", timeout=WAIT_MS)
    assert wait_for(lambda: server.state()["phase"] == "picking")

    board = webkit(1280, 720)
    board.goto(f"{server.url}/board")
    game = server.state()["game_id"]

    def board_at(k: int) -> None:
        board.wait_for_function("(key) => document.body.dataset.step === key",
                                arg=f"{game}/1/{k}", timeout=WAIT_MS)

    for name, card in zip(("Ana", "Ben", "Caro"), (11, 7, 3), strict=True):
        server.call("POST", "/pick", {"round": 1, "card": card}, tokens[name])
    assert wait_for(lambda: server.state()["phase"] == "playing")
    steps = server.state()["playback"]["steps"]
    assert steps >= 3
    board_at(0)
    for k in range(1, steps + 1):
        host_page.click_button("^next")   # step pacing's Next, found by its name
        assert wait_for(lambda k=k: (server.state().get("playback") or {}).get("step", k) >= k
                        or server.state()["phase"] == "picking")
        if k < steps:
            board_at(k)
        if k == 2:   # a board reloaded mid-playback comes back at the cursor
            board.reload()
            board_at(k)
            board.screenshot(path=str(artifacts / "webkit-board-playing.png"))
            host_page.screenshot(path=str(artifacts / "webkit-host-playing.png"))
    assert wait_for(lambda: server.state()["phase"] == "picking"
                    and server.state()["round"] == 2)
    board.wait_for_function(
        "() => [...document.querySelectorAll('#scores tbody tr')]"
        ".every((row) => row.cells[1].textContent !== '')", timeout=WAIT_MS)
    board.screenshot(path=str(artifacts / "webkit-board-round1.png"))

    # undo, through the host page's confirm dialog (a native <dialog> in WebKit)
    host_page.click_button("^undo")
    host_page.wait_for_selector("#confirm-undo", timeout=WAIT_MS)
    assert host_page.evaluate("() => document.getElementById('confirm-undo').open") is True
    host_page.screenshot(path=str(artifacts / "webkit-host-undo.png"))
    host_page.click("#undo-confirm")
    assert wait_for(lambda: server.state()["round"] == 1 and server.state()["history"] == [])
    host_page.wait_for_selector("#confirm-undo", state="hidden", timeout=WAIT_MS)
    board.wait_for_function(
        "() => [...document.querySelectorAll('#scores tbody tr')]"
        ".every((row) => row.cells[1].textContent === '')", timeout=WAIT_MS)

