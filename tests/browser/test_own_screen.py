"""The table's own screen gives nobody host rights (issue 21, item 3), in Chromium.

The board page opened on the table's own address (127.0.0.1: the Pi's HDMI screen,
facing the room) after a host has logged in, and again in booth mode, offers no way to
host rights: no PIN and no key anywhere in its DOM or in any answer it gets or can fetch
(``/api/v1/local``, ``/host-qr.svg``), no QR code that logs in, and ``POST
/api/v1/host`` without a secret is refused.  The same checks find the first host's QR
code where it is offered (no host yet, booth mode off), so they can fail: that code
logs the first host in, and then it is gone for good; a host who lost their phone gets
in with ``kalimambo host-link``.  The own screen's *Next* plays a step-pacing round on,
and that screen still cannot undo, start, skip or remove seats.  The lobby says each of
its lines once.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kalimambo.web.http.pages import qr_svg
from kalimambo.web.storage.store import DB_NAME, SettingKey, Store
from tests.browser.conftest import PHONE, Server
from tests.browser.play import WAIT_MS, console_errors
from tests.helpers import kalimambo, wait_for
from tests.table.test_replay import store_today

PIN = "Pin-Zq7Xk2"
"""A PIN no page could show by chance (the usual 1234 turns up in drawn numbers)."""
TV = {"width": 1920, "height": 1080}
NAMES = ("Ana", "Ben", "Caro")
VISIBLE_TEXT_JS = """(needle) => {
  // how many times `needle` is on screen: text nodes whose element shows (SVG too)
  let count = 0;
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    const el = node.parentElement;
    if (!el || !el.checkVisibility({ visibilityProperty: true })) continue;
    count += node.textContent.split(needle).length - 1;
  }
  return count;
}"""
SHOWN_TIMES_JS = f"([needle, times]) => ({VISIBLE_TEXT_JS})(needle) === times"
FETCH_JS = """async ([method, path, body]) => {
  const init = { method, cache: "no-store", headers: {} };
  if (body !== null) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, init);
  return [response.status, await response.text()];
}"""


class Seen:
    """Every answer the page got (its own requests and the ones a test makes from it)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.responses: list[Any] = []
        page.on("response", lambda response: self.responses.append(response))

    def bodies(self) -> list[tuple[str, bytes | None]]:
        """Each answer's body (None: one that could not be read, which the checks count
        as a problem: nothing goes unread). A GET whose body the browser did not keep
        (the strip's frame poll, cut short by a reload: seen in CI) is asked again from
        the page, with its cookies, and that answer is read instead."""
        found: list[tuple[str, bytes | None]] = []
        for response in self.responses:
            if "/api/v1/events" in response.url:  # the live stream: public views only
                continue
            if 300 <= response.status < 400:  # nothing new came (a 304 is the cached copy)
                continue
            try:
                found.append((response.url, response.body()))
            except Exception:
                again: bytes | None = None
                if response.request.method == "GET":
                    status, text = fetch(self.page, "GET", response.url)
                    again = text.encode() if status == response.status else None
                found.append((f"{response.url} ({response.status})", again))
        return found


def secrets(server: Server) -> dict[str, str]:
    """What must never reach the own screen after a host is in: the PIN, the host key
    (read from the console line, as a host does) and the first-host code, if one was
    made."""
    found = {"PIN": PIN, "host key": server.host_key()}
    code = stored(server, SettingKey.FIRST_HOST_CODE)
    if code:
        found["first-host code"] = code
    return found


def stored(server: Server, key: str) -> Any:
    """A setting from the table's store, read-only (as ``kalimambo host-link`` reads)."""
    db = sqlite3.connect(f"{(server.data_dir / DB_NAME).resolve().as_uri()}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
    finally:
        db.close()
    return json.loads(row[0]) if row else None


def fetch(page: Any, method: str, path: str, body: Any = None) -> tuple[int, str]:
    status, text = page.evaluate(FETCH_JS, [method, path, body])
    return int(status), str(text)


def ways_in(page: Any, seen: Seen, server: Server) -> list[str]:
    """Every way to host rights the own screen offers now, in words (none: [])."""
    problems = []
    hidden = secrets(server)
    join_url = server.state()["join_url"]
    logins = {qr_svg(f"{join_url}host#key={secret}"): name
              for name, secret in hidden.items() if name != "PIN"}
    # what the page may fetch by itself
    status, text = fetch(page, "GET", "/api/v1/local")
    if status != 200 or set(json.loads(text)) - {"local", "host_qr"}:
        problems.append(f"/api/v1/local says more than it may: {status} {text}")
    status, text = fetch(page, "GET", "/host-qr.svg")
    if status == 200:
        problems.append("/host-qr.svg draws a QR code")
    status, text = fetch(page, "POST", "/api/v1/host", {})
    if status != 400:
        problems.append(f"POST /api/v1/host {{}} answered {status}: {text}")
    # the page as it stands, every answer it got, and the views its live stream brings
    view = json.dumps(server.state())
    for name, secret in hidden.items():
        if secret in view:
            problems.append(f"the public view carries the {name}")
    html = page.content()
    for name, secret in hidden.items():
        if secret in html:
            problems.append(f"the {name} is in the DOM")
    if "#key=" in html:
        problems.append("a host link is in the DOM")
    if page.evaluate(VISIBLE_TEXT_JS, "PIN"):
        problems.append("the page shows the word PIN")
    if page.is_visible("#host-link") or page.get_attribute("#host-qr", "src"):
        problems.append("the host QR code is on the page")
    for url, body in seen.bodies():
        if body is None:
            problems.append(f"{url}: its answer could not be read")
            continue
        text = body.decode("utf-8", "replace")
        for name, secret in hidden.items():
            if secret in text:
                problems.append(f"{url} carried the {name}")
        if text in logins:
            problems.append(f"{url} was a QR code carrying the {logins[text]}")
    return problems


def board_page(browser: Any, server: Server) -> tuple[Any, Any, Seen]:
    ctx = browser.new_context(viewport=TV, locale="en-US")
    page = ctx.new_page()
    seen = Seen(page)
    with page.expect_response(lambda r: r.url.endswith("/api/v1/local")):
        page.goto(f"{server.url}/board")  # 127.0.0.1: the table's own screen
    page.wait_for_selector("#join-box", state="visible", timeout=WAIT_MS)
    page.wait_for_function("() => document.getElementById('join-url').textContent !== ''",
                           timeout=WAIT_MS)
    return ctx, page, seen


def test_after_a_host_logged_in_the_own_screen_offers_no_way_in(
        start_server: Callable[..., Server], browser: Any) -> None:
    server = start_server(pin=PIN)
    host = server.host_token()  # the PIN, as a real host logs in
    server.call("POST", "/host/settings", {"attract": False}, host)  # not booth mode
    ctx, board, seen = board_page(browser, server)
    try:
        errors = console_errors(board)
        board.wait_for_timeout(2500)  # longer than the board waits to ask /local again
        assert errors == []  # (before the refusals the checks ask for)
        assert ways_in(board, seen, server) == []
        assert board.is_hidden("#host-link") and board.query_selector("#pin") is None
    finally:
        ctx.close()


def test_in_booth_mode_the_own_screen_offers_no_way_in_even_before_any_host(
        start_server: Callable[..., Server], browser: Any) -> None:
    server = start_server(pin=PIN)  # nobody has logged in; attract mode is on by default
    assert server.state()["booth"]["attract"] is True
    ctx, board, seen = board_page(browser, server)
    try:
        board.wait_for_timeout(2500)
        assert ways_in(board, seen, server) == []
        assert stored(server, SettingKey.FIRST_HOST_CODE) is None  # not even made
    finally:
        ctx.close()


def test_the_first_host_scans_the_own_screen_then_it_is_gone_for_good(
        tmp_path: Path, start_server: Callable[..., Server], browser: Any,
        artifacts: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    store = Store(data_dir / DB_NAME)
    store.set_settings({SettingKey.ATTRACT: False})  # a table that is no booth, never hosted yet
    store.close()
    server = start_server(data_dir=data_dir, pin=PIN)
    ctx, board, seen = board_page(browser, server)
    phone_ctx = browser.new_context(viewport=PHONE, locale="en-US")
    try:
        board.wait_for_selector("#host-link", state="visible", timeout=WAIT_MS)
        board.wait_for_function("() => document.getElementById('host-qr').naturalWidth > 0",
                                timeout=WAIT_MS)
        board.screenshot(path=str(artifacts / "board-first-host-qr-1920x1080.png"))
        code = stored(server, SettingKey.FIRST_HOST_CODE)
        key = server.host_key()
        assert code and code != key
        status, svg = fetch(board, "GET", "/host-qr.svg")
        link = f"{server.state()['join_url']}host#key={code}"
        assert status == 200 and svg == qr_svg(link)  # what a phone's camera reads
        # the checks see this way in (so they can fail), and it carries no key
        problems = ways_in(board, seen, server)
        assert any("QR code carrying the first-host code" in p for p in problems), problems
        assert not any("host key" in p for p in problems), problems

        phone = phone_ctx.new_page()  # the phone opens the QR code's link
        phone.goto(f"{server.url}/host#key={code}")
        phone.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
        assert "key=" not in phone.url
        # the own screen drops it within seconds, for good
        board.wait_for_selector("#host-link", state="hidden", timeout=WAIT_MS)
        board.wait_for_function("() => !document.getElementById('host-qr')"
                                ".hasAttribute('src')", timeout=WAIT_MS)
        assert fetch(board, "GET", "/api/v1/local") == (200, '{"local":true,"host_qr":false}')
        since = Seen(board)  # what the screen gets from now on (the old code is dead)
        board.reload()
        board.wait_for_selector("#join-box", state="visible", timeout=WAIT_MS)
        board.wait_for_timeout(2500)
        assert ways_in(board, since, server) == []
        board.screenshot(path=str(artifacts / "board-after-first-host-1920x1080.png"))

        # a photo of the screen opens nothing now, and says so
        late_ctx = browser.new_context(viewport=PHONE, locale="en-US")
        try:
            late = late_ctx.new_page()
            late.goto(f"{server.url}/host#key={code}")
            late.wait_for_selector("#toast.show.error", timeout=WAIT_MS)
            assert "no longer works" in late.text_content("#toast")
            assert late.is_visible("#login-form") and not late.is_visible("#console")
        finally:
            late_ctx.close()

        # the host who lost their phone: the link from the console, or kalimambo host-link
        done = kalimambo("host-link", "--data-dir", str(data_dir), "--no-qr")
        assert done.returncode == 0, done.stderr
        printed = done.stdout.split("#key=", 1)[1].split()[0]
        assert printed == key
        fresh_ctx = browser.new_context(viewport=PHONE, locale="en-US")
        try:
            fresh = fresh_ctx.new_page()
            fresh.goto(f"{server.url}/host#key={printed}")
            fresh.wait_for_selector("#console", state="visible", timeout=WAIT_MS)
        finally:
            fresh_ctx.close()
    finally:
        phone_ctx.close()
        ctx.close()


def test_the_own_screens_next_plays_a_step_pacing_round_and_nothing_more(
        start_server: Callable[..., Server], browser: Any) -> None:
    server = start_server(pin=PIN)
    host = server.host_token()
    server.call("POST", "/host/settings", {"pacing": "step", "pause_ms": 100}, host)
    seats = {name: server.call("POST", "/join", {"name": name})["token"] for name in NAMES}
    ctx = browser.new_context(viewport=TV, locale="en-US")
    try:
        board = ctx.new_page()
        errors = console_errors(board)
        board.goto(f"{server.url}/board")
        board.wait_for_selector("#join-box", state="visible", timeout=WAIT_MS)
        server.call("POST", "/host/start", {}, host)
        for index, token in enumerate(seats.values()):
            card = server.call("GET", "/me", token=token)["me"]["hand"][index]
            server.call("POST", "/pick", {"round": 1, "card": card}, token)
        assert wait_for(lambda: server.state()["phase"] == "playing")
        game = server.state()["game_id"]
        board.wait_for_selector("#board-next", state="visible", timeout=WAIT_MS)
        # the own screen is no host: no Skip, no replay buttons
        assert board.is_hidden("#board-skip") and board.is_hidden("#watch-again")
        assert board.is_hidden("#replay-stop")
        for k in (1, 2):
            board.click("#board-next")
            board.wait_for_function("(key) => document.body.dataset.step === key",
                                    arg=f"{game}/1/{k}", timeout=WAIT_MS)
            assert server.state()["playback"]["step"] == k
        assert errors == []  # (before the refusals asked for below)
        # ... and the host's requests from that screen are all refused, changing nothing
        before = server.state()
        for path, body in (("/api/v1/host/undo", {}), ("/api/v1/host/new", {}),
                           ("/api/v1/host/remove", {"name": "Ana"}),
                           ("/api/v1/host/start", {}), ("/api/v1/host/skip", {}),
                           ("/api/v1/host/next", {}), ("/api/v1/host/bots", {"count": 1}),
                           ("/api/v1/host/settings", {"pacing": "auto"})):
            status, text = fetch(board, "POST", path, body)
            assert status == 401 and '"host_only"' in text, (path, status, text)
        after = server.state()
        # the game as it was (the version may move on: the strip's status, its power
        # estimate say, changes the view while it plays the step)
        for key in ("phase", "round", "playback", "history", "setup", "placing"):
            assert after[key] == before[key], key
        assert after["playback"]["step"] == 2
        assert [s["name"] for s in after["seats"]] == list(NAMES)
        # in auto pacing the own screen's Next goes (the table plays the round itself)
        server.call("POST", "/host/settings", {"pacing": "auto"}, host)
        assert wait_for(lambda: server.state()["phase"] == "picking")
        board.wait_for_selector("#board-controls", state="hidden", timeout=WAIT_MS)
    finally:
        ctx.close()


def test_the_lobby_says_each_line_once(tmp_path: Path, start_server: Callable[..., Server],
                                       browser: Any) -> None:
    """Beside the ring and on it: "Waiting for players" once, "Scan the code" once; with
    the day's leaderboard in the ring's place too."""
    waiting = "Waiting for players: 3 of 7 seats taken."
    scan = "Scan the code, pick a name, and mind the rhino."
    for games_today in (False, True):
        data_dir = tmp_path / f"data-{games_today}"
        data_dir.mkdir()
        if games_today:
            store_today(data_dir)
        server = start_server(data_dir=data_dir, pin=PIN)
        for name in NAMES:
            server.call("POST", "/join", {"name": name})
        ctx = browser.new_context(viewport=TV, locale="en-US")
        try:
            board = ctx.new_page()
            board.goto(f"{server.url}/board")
            board.wait_for_function("(n) => document.querySelectorAll('#scores tbody tr')"
                                    ".length === n", arg=len(NAMES), timeout=WAIT_MS)
            if games_today:
                board.wait_for_selector("#leaderboard", state="visible", timeout=WAIT_MS)
            board.wait_for_function(SHOWN_TIMES_JS, arg=[waiting, 1], timeout=WAIT_MS)
            assert board.evaluate(VISIBLE_TEXT_JS, waiting) == 1
            assert board.evaluate(VISIBLE_TEXT_JS, scan) == 1
        finally:
            ctx.close()
        server.stop()
