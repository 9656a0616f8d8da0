"""Every state of the board page fits the screen (issue 21, item 4): the day's
leaderboard in the lobby, a new day's lobby, a round being picked, a playback, game
over, the leaderboard's turn after it, a replay, the lobby after a game and attract
mode (a replay in an idle lobby), each at 1920x1080, 1366x768 and 1280x720.

A TV cannot scroll: every visible element must lie inside the viewport (its bounding
box, and for SVG shapes the box of their drawing too), no box may hide part of its
content (overflow hidden or scrolled, text cut with an ellipsis), and the page itself
must not scroll. Seven seats (four people, one with the longest name a seat may have,
and three computer players) fill the score table and the chart as full as they get.

At game over the final ring stays in sight beside the ranking; the leaderboard comes
after a while and then they take turns (``?turn=`` shortens the turns for the test).
The day's leaderboard is full: the finished games of test_leaderboard.py are in the
store, with more people than it lists.

Screenshots: tests/artifacts/board-fit-<state>-<width>x<height>.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.conftest import Server
from tests.browser.play import WAIT_MS, console_errors
from tests.browser.test_leaderboard import store_day
from tests.helpers import wait_for

SCREENS = ({"width": 1920, "height": 1080}, {"width": 1366, "height": 768},
           {"width": 1280, "height": 720})
PEOPLE = ("Maximiliana Grünwald", "Anna", "Ben", "Zoë")
TURN_MS = 3000
"""The turns of the final ring and the leaderboard at game over, for the pages opened
with ?turn= (a booth waits much longer)."""

OUTSIDE_JS = """
() => {
  const W = window.innerWidth, H = window.innerHeight, E = 0.5;
  const found = [];
  const label = (n) => {
    const cls = (n.getAttribute('class') || '').trim();
    const text = (n.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 40);
    return n.tagName.toLowerCase() + (n.id ? '#' + n.id : '')
      + (cls ? '.' + cls.split(/\\s+/).join('.') : '') + (text ? ` "${text}"` : '');
  };
  const px = (r) => `[${Math.round(r.left)}, ${Math.round(r.top)}, ${Math.round(r.right)},`
    + ` ${Math.round(r.bottom)}]`;
  const inside = (r, b) => r.left >= b.left - E && r.top >= b.top - E
    && r.right <= b.right + E && r.bottom <= b.bottom + E;
  const doc = document.documentElement;
  if (doc.scrollHeight > H + E || doc.scrollWidth > W + E) {
    found.push(`the page scrolls: ${doc.scrollWidth}x${doc.scrollHeight} on ${W}x${H}`);
  }
  const screen = { left: 0, top: 0, right: W, bottom: H };
  const faded = (n) => {
    for (let p = n; p && p.nodeType === 1; p = p.parentElement) {
      if (parseFloat(getComputedStyle(p).opacity) === 0) return true;
    }
    return false;
  };
  const told = new Set();  // one line for a box, none for what is inside it
  const tell = (n, line) => { told.add(n); found.push(line); };
  for (const n of document.body.querySelectorAll('*')) {
    if (n.parentElement && [...told].some((t) => t.contains(n))) continue;
    if (['script', 'title', 'style', 'option', 'defs'].includes(n.tagName.toLowerCase())) continue;
    if (!n.getClientRects().length) continue;
    const cs = getComputedStyle(n);
    if (cs.visibility !== 'visible' || faded(n)) continue;
    const r = n.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (!inside(r, screen)) { tell(n, `${label(n)} outside the screen: ${px(r)}`); continue; }
    if (n instanceof SVGElement) {
      const svg = n.ownerSVGElement;
      if (svg && !inside(r, svg.getBoundingClientRect())) {
        tell(n, `${label(n)} outside its drawing #${svg.id}: ${px(r)}`);
      }
      continue;
    }
    if (cs.overflowY !== 'visible' && n.scrollHeight > n.clientHeight + 1) {
      found.push(`${label(n)} cut at the bottom: ${n.scrollHeight} px in ${n.clientHeight}`);
    }
    if (cs.overflowX !== 'visible' && n.scrollWidth > n.clientWidth + 1) {
      found.push(`${label(n)} cut at the side: ${n.scrollWidth} px in ${n.clientWidth}`);
    }
  }
  return found;
}
"""


def size_name(size: dict[str, int]) -> str:
    return f"{size['width']}x{size['height']}"


class Boards:
    """One board page per screen size, all following the same table."""

    def __init__(self, browser: Any, url: str, query: str = "") -> None:
        self.contexts = [browser.new_context(viewport=size, locale="en-US")
                         for size in SCREENS]
        self.pages = [ctx.new_page() for ctx in self.contexts]
        self.errors = [console_errors(page) for page in self.pages]
        for page in self.pages:
            page.goto(f"{url}/board{query}")
            page.wait_for_function("() => document.body.dataset.step !== undefined",
                                   timeout=WAIT_MS)

    def wait(self, condition: str, arg: Any = None) -> None:
        for page in self.pages:
            page.wait_for_function(condition, arg=arg, timeout=WAIT_MS)

    def check(self, state: str, artifacts: Path, found: dict[str, list[str]],
              shown: str = "() => true") -> None:
        """Screenshot and measure each page once ``shown`` holds (measured in the same
        turn of the page's script: a page whose view turns meanwhile is measured on its
        next turn)."""
        for page, size in zip(self.pages, SCREENS, strict=True):
            where = f"{state} at {size_name(size)}"
            wanted = shown
            for _ in range(3):
                try:
                    page.wait_for_function(wanted, timeout=WAIT_MS)
                except PlaywrightTimeout:  # said, and the page measured as it is
                    found[where] = [f"never shown: {wanted}"]
                    wanted = "() => true"
                # the ring and the caption are drawn for the screen; any animation ends
                page.wait_for_function("() => document.getAnimations().length === 0",
                                       timeout=WAIT_MS)
                page.screenshot(path=str(artifacts / f"board-fit-{where.replace(' at ', '-')}"
                                         ".png"))
                measured = page.evaluate(f"() => ({wanted})() && ({OUTSIDE_JS})()")
                if measured is not False:
                    break
            else:
                raise AssertionError(f"{where}: never measured")
            if measured:
                found.setdefault(where, []).extend(measured)

    def soft_wait(self, condition: str, what: str, found: dict[str, list[str]]) -> None:
        """Wait for ``condition`` on every page; one that never gets there is said."""
        for page, size in zip(self.pages, SCREENS, strict=True):
            try:
                page.wait_for_function(condition, timeout=WAIT_MS)
            except PlaywrightTimeout:
                found.setdefault(f"{what} at {size_name(size)}", []).append(
                    f"never shown: {condition}")

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()


def hand_of(server: Server, token: str) -> list[int]:
    hand: list[int] = server.call("GET", "/me", None, token)["me"]["hand"]
    return hand


def play_round(server: Server, tokens: list[str], host: str, number: int) -> None:
    """Every person picks the lowest card left; the playback is skipped."""
    assert wait_for(lambda: server.state()["phase"] == "picking"
                    and server.state()["round"] == number)
    for token in tokens:
        server.call("POST", "/pick", {"round": number, "card": min(hand_of(server, token))},
                    token)
    assert wait_for(lambda: server.state()["phase"] in ("playing", "finished"))
    if server.state()["phase"] == "playing":
        server.call("POST", "/host/skip", {}, host)


LEADERBOARD = "() => !document.getElementById('leaderboard').hidden"
RING = ("() => document.getElementById('leaderboard').hidden"
        " && !document.getElementById('ring').classList.contains('behind')")


def test_every_board_state_fits_the_screen(tmp_path: Path, start_server: Any, browser: Any,
                                           artifacts: Path) -> None:
    data_dir = tmp_path / "data"
    store_day(data_dir)
    server: Server = start_server(data_dir=data_dir)
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "auto", "pause_ms": 100,
                                           "attract": False}, host)
    found: dict[str, list[str]] = {}
    boards = Boards(browser, server.url)
    later: Boards | None = None
    try:
        tokens = [server.call("POST", "/join", {"name": name})["token"] for name in PEOPLE]
        server.call("POST", "/host/bots", {"count": 3, "level": "random"}, host)
        boards.wait("() => document.querySelectorAll('#scores tbody tr').length === 7"
                    " && document.querySelectorAll('#lb-table tbody tr').length >= 3")
        boards.check("lobby-leaderboard", artifacts, found, LEADERBOARD)

        server.call("POST", "/host/new-day", {}, host)  # nothing finished today: the ring
        boards.wait(RING)
        boards.check("lobby", artifacts, found)

        server.call("POST", "/host/start", {}, host)
        assert wait_for(lambda: server.state()["phase"] == "picking")
        for token in tokens[:2]:
            server.call("POST", "/pick", {"round": 1, "card": 5}, token)
        assert wait_for(lambda: sum(s["picked"] for s in server.state()["seats"]) == 5)
        boards.wait("() => (document.getElementById('scores').textContent.match(/picked/g)"
                    " || []).length === 5")
        boards.check("picking", artifacts, found)

        # a round played step by step, held at its third step (the cards on the ring)
        server.call("POST", "/host/settings", {"pacing": "step"}, host)
        for token in tokens[2:]:
            server.call("POST", "/pick", {"round": 1, "card": 5}, token)
        assert wait_for(lambda: server.state()["phase"] == "playing")
        game = server.state()["game_id"]
        for k in range(1, 4):
            server.call("POST", "/host/next", {}, host)
            boards.wait("(key) => document.body.dataset.step === key", f"{game}/1/{k}")
        boards.check("playback", artifacts, found)

        server.call("POST", "/host/settings", {"pacing": "auto"}, host)
        server.call("POST", "/host/skip", {}, host)
        for number in range(2, 13):
            play_round(server, tokens, host, number)
        assert wait_for(lambda: server.state()["phase"] == "finished")
        boards.wait("() => !document.getElementById('chart-box').hidden"
                    " && !document.getElementById('winners').hidden")
        # game over: the final ring stays in sight beside the ranking
        boards.check("game-over", artifacts, found, RING)

        # after a while the day's leaderboard has its turn, then the ring again
        later = Boards(browser, server.url, f"?turn={TURN_MS}")
        later.check("leaderboard", artifacts, found, LEADERBOARD)
        later.soft_wait(RING, "the ring's turn again", found)

        server.call("POST", "/host/replay", {"game_id": game}, host)
        server.call("POST", "/host/settings", {"pacing": "step"}, host)
        assert wait_for(lambda: server.state()["replay"] is not None)
        for _ in range(4):
            server.call("POST", "/host/next", {}, host)
        replay = server.state()["replay"]["board"]["playback"]
        boards.wait("(key) => document.body.dataset.step === key",
                    f"replay-{game}/{replay['round']}/{replay['step']}")
        boards.check("replay", artifacts, found)
        server.call("POST", "/host/replay/stop", {}, host)

        server.call("POST", "/host/new", {"keep_seats": True}, host)
        boards.wait("() => !document.getElementById('join-box').hidden")
        boards.check("lobby-after-a-game", artifacts, found, LEADERBOARD)

        # an idle lobby falls into attract mode: a replay for passers-by, the join code
        server.call("POST", "/host/new", {"keep_seats": False}, host)
        server.call("POST", "/host/settings", {"attract": True, "attract_after_s": 1,
                                               "pacing": "auto"}, host)
        boards.wait("() => document.body.dataset.replay === 'attract'"
                    " && !document.getElementById('join-box').hidden")
        boards.check("attract", artifacts, found)
        assert not found, "\n".join(f"{state}:\n  " + "\n  ".join(lines)
                                    for state, lines in found.items())
        for errors in boards.errors + later.errors:
            assert errors == []
    finally:
        boards.close()
        if later:
            later.close()
