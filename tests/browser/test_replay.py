"""Replays and attract mode in a real browser, with the simulated strip.

An idle lobby falls into attract mode (the host sets a short idle time): the board
shows the day's most eventful game, the reason it was picked and the join QR code; a
phone joining stops it within one second and the lobby shows.  Then "watch again" at
the end of a game replays it on the board page and the strip, step by step, to its
end, with the booth's sound cues counted as the cursor reaches them.  Every check
waits for its condition.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from tests.browser.conftest import PHONE, Server
from tests.browser.play import WAIT_MS, console_errors
from tests.helpers import ROOT, wait_for
from tests.table.test_replay import store_today

TV = {"width": 1920, "height": 1080}
JOIN_CEILING_MS = 1000 + 500
"""The issue's bound (a phone joining stops attract mode within one second), plus 0.5 s
for Playwright's own round trips and a test machine shared with other runs."""
CUES = {"dung", "rhino_run"}


def english(key: str, params: dict[str, Any]) -> str:
    messages = json.loads((ROOT / "web" / "i18n" / "en.json").read_text())
    if params.get("spaces") == 1 and f"{key}.one" in messages:
        key = f"{key}.one"
    text: str = messages[key]
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def lit(server: Server) -> set[int]:
    return {i for i, led in enumerate(server.call("GET", "/leds")["leds"]) if any(led)}


def pieces(board: dict[str, Any]) -> set[int]:
    return {*board["positions"].values(), board["rhino"], *board["dung"]}


def test_an_idle_lobby_falls_into_attract_mode_and_a_phone_stops_it(
        tmp_path: Path, start_server: Any, browser: Any, artifacts: Path) -> None:
    data_dir = tmp_path / "data"
    store_today(data_dir)
    server: Server = start_server(data_dir=data_dir)
    host = server.host_token()
    board_ctx = browser.new_context(viewport=TV, locale="en-US")
    phone_ctx = browser.new_context(viewport=PHONE, locale="en-US")
    try:
        board = board_ctx.new_page()
        errors = console_errors(board)
        board.goto(f"{server.url}/board?leds=1")
        board.wait_for_selector("#join-box", state="visible", timeout=WAIT_MS)
        # before attract mode: the day's leaderboard, at 1920x1080 and printed on A4 (the
        # score sheet's are saved by test_leaderboard.py)
        board.wait_for_selector("#leaderboard", state="visible", timeout=WAIT_MS)
        board.screenshot(path=str(artifacts / "board-leaderboard-attract-1920x1080.png"))
        board.emulate_media(media="print")
        board.pdf(path=str(artifacts / "board-leaderboard-a4.pdf"), format="A4",
                  landscape=True, print_background=True)
        board.emulate_media(media="screen")
        assert (artifacts / "board-leaderboard-a4.pdf").stat().st_size > 0
        if shutil.which("pdftoppm"):  # a picture of the page, to look at
            subprocess.run(["pdftoppm", "-png", "-r", "80", "-singlefile",
                            str(artifacts / "board-leaderboard-a4.pdf"),
                            str(artifacts / "board-leaderboard-a4")], check=True, timeout=60)
        server.call("POST", "/host/settings", {"attract_after_s": 2, "pause_ms": 100}, host)
        board.wait_for_function("() => document.body.dataset.replay === 'attract'",
                                timeout=WAIT_MS)
        replay = server.state()["replay"]
        assert replay["attract"] and replay["reason"] is not None
        reason = english(f"replay.why.{replay['reason']['code']}", replay["reason"]["params"])
        board.wait_for_function("(text) => document.getElementById('replay-reason')"
                                ".textContent === text", arg=reason, timeout=WAIT_MS)
        assert board.is_visible("#replay-reason") and board.is_visible("#qr")
        assert board.is_visible("#join-box")
        # a replay for passers-by offers nobody the host's way in
        assert board.query_selector("#pin") is None and not board.is_visible("#host-link")
        # the strip plays the replay too (not its idle animation): between two replayed
        # rounds it shows exactly the replay's pieces
        def strip_shows_the_replay() -> bool:
            replay = server.state()["replay"]
            return replay is not None and lit(server) == pieces(replay["board"])

        assert wait_for(strip_shows_the_replay)
        board.screenshot(path=str(artifacts / "board-attract-1920x1080.png"))

        phone = phone_ctx.new_page()
        phone.goto(f"{server.url}/")
        phone.wait_for_selector("#join-form", state="visible", timeout=WAIT_MS)
        phone.fill("#name", "Zoe")
        clicked = time.monotonic()
        phone.click("#join-button")  # from here: within one second, the lobby
        board.wait_for_function(
            "() => document.body.dataset.replay === '' && !document.getElementById("
            "'join-box').hidden && document.getElementById('phase').textContent"
            ".includes('1')", timeout=JOIN_CEILING_MS)
        print(f"join tapped -> attract mode gone, lobby on the board: "
              f"{(time.monotonic() - clicked) * 1000:.0f} ms")
        view = server.state()
        assert view["replay"] is None and view["phase"] == "lobby"
        assert [s["name"] for s in view["seats"]] == ["Zoe"]
        # the quiet lobby is back, and still no way in for the host: one has logged in,
        # and this is booth mode (tests/browser/test_own_screen.py)
        assert board.is_hidden("#host-link") and not board.get_attribute("#host-qr", "src")
        board.screenshot(path=str(artifacts / "board-attract-stopped-1920x1080.png"))
        assert errors == []
    finally:
        board_ctx.close()
        phone_ctx.close()


def covered(page: Any) -> list[tuple[str, str]]:
    """The visible buttons that cover another button or any text on the ring."""
    found: list[tuple[str, str]] = page.evaluate("""() => {
      const box = (e) => e.getBoundingClientRect();
      const meets = (p, q) => p.left < q.right && q.left < p.right
        && p.top < q.bottom && q.top < p.bottom;
      const buttons = [...document.querySelectorAll("button")]
        .filter((e) => e.offsetParent !== null);
      const texts = [...document.querySelectorAll("#ring text")];
      const pairs = [];
      buttons.forEach((b, i) => {
        buttons.slice(i + 1).forEach((c) => {
          if (meets(box(b), box(c))) pairs.push([b.id, c.id]);
        });
        texts.forEach((t) => {
          if (t.textContent && meets(box(b), box(t))) pairs.push([b.id, t.textContent]);
        });
      });
      return pairs;
    }""")
    return found


def finish_a_game(server: Server, host: str) -> int:
    """Three computer players play a whole game, each round skipped at once."""
    server.call("POST", "/host/bots", {"count": 3, "level": "random"}, host)
    server.call("POST", "/host/start", {}, host)
    for _ in range(12):
        assert wait_for(lambda: server.state()["phase"] == "playing")
        server.call("POST", "/host/skip", {}, host)
    assert wait_for(lambda: server.state()["phase"] == "finished")
    game_id: int = server.state()["game_id"]
    return game_id


def test_watch_again_replays_the_game_on_the_board_and_the_strip(
        server: Server, browser: Any, artifacts: Path) -> None:
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "step", "sound": True,
                                           "attract": False}, host)
    game_id = finish_a_game(server, host)
    ctx = browser.new_context(viewport=TV, locale="en-US")
    try:
        board = ctx.new_page()
        errors = console_errors(board)
        # the host is logged in in this browser (the host page's login), so the board has
        # the host's buttons; the table's own screen alone would not (test_own_screen.py)
        board.add_init_script(f"localStorage.setItem('kalimambo.host', '{host}')")
        board.goto(f"{server.url}/board?leds=1")
        board.wait_for_selector("#watch-again", state="visible", timeout=WAIT_MS)
        board.click("#watch-again")
        assert wait_for(lambda: server.state()["replay"] is not None)
        record = server.call("GET", f"/games/{game_id}/record")
        cues_due = 0
        reloaded = False
        while True:
            view = server.state()
            replay = view["replay"]
            assert view["phase"] == "finished" and view["game_id"] == game_id
            play = replay["board"]["playback"]
            key = f"replay-{game_id}/{play['round']}/{play['step']}"
            board.wait_for_function("(key) => document.body.dataset.step === key", arg=key,
                                    timeout=WAIT_MS)
            if play["current"] and reloaded:  # a step the board animated: its cues
                events = play["shown"][play["current"]["first"]:]
                cues_due += sum(1 for e in events if e["type"] in CUES
                                or (e["type"] == "round_end" and e["game_over"]))
            if replay["done"]:
                break
            expected = pieces(replay["board"])
            assert wait_for(lambda expected=expected: lit(server) == expected)
            if play["round"] == 3 and play["step"] == 2 and not reloaded:
                # reloaded mid-replay: the board resumes at the cursor, and plays no cue
                # for the steps it finds already shown
                board.reload()
                board.wait_for_function("(key) => document.body.dataset.step === key",
                                        arg=key, timeout=WAIT_MS)
                assert board.evaluate("() => document.body.dataset.cues") is None
                assert not covered(board)
                board.screenshot(path=str(artifacts / "board-replay-1920x1080.png"))
                reloaded = True
            server.call("POST", "/host/next", {}, host)
        end = server.state()["replay"]["board"]
        assert end["winners"] == server.state()["winners"]
        assert end["positions"] == server.state()["positions"]
        assert len(end["history"]) == len(record["rounds"]) == 12
        # the end: the strip celebrates (every LED lit), the board shows the winners
        assert wait_for(lambda: len(lit(server)) == len(server.call("GET", "/leds")["leds"]))
        board.wait_for_selector("#winners", state="visible", timeout=WAIT_MS)
        board.wait_for_function("(n) => Number(document.body.dataset.cues || 0) === n",
                                arg=cues_due, timeout=WAIT_MS)
        board.screenshot(path=str(artifacts / "board-replay-end-1920x1080.png"))
        server.call("POST", "/host/replay/stop", {}, host)
        board.wait_for_selector("#watch-again", state="visible", timeout=WAIT_MS)
        board.wait_for_selector("#sheet-box", state="visible", timeout=WAIT_MS)
        assert errors == []
    finally:
        ctx.close()
