"""The day's leaderboard on the board page, the score sheet (screen and A4), the links
to it, and the host's "new day".

Finished games are written into a real store the way the table archives them (the
vector games of tests/storage/test_archive.py: ties, Kali's penalties, "Ana" as "ana" and
"ANA", computer players, and a player called "__proto__"); one of them finished
before the day began and must not count.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.table.day import local_midnight
from tests.browser.conftest import Server
from tests.browser.play import WAIT_MS, axe, console_errors
from tests.conftest import http
from tests.storage.test_archive import archive_games, renamed, vector_games

PROTO = {"Caro": "__proto__", "caro": "__proto__"}
STRANGERS = dict(zip(["ANA", "Ben", "__proto__", "Dev", "Eli", "Fay", "Gus"],
                     ["Hana", "Ivo", "Jo", "Kim", "Lea", "Max", "Noor"], strict=True))
TV = {"width": 1920, "height": 1080}


def store_day(data_dir: Path) -> list[int]:
    """The vector games as finished games: the first one yesterday, the others today,
    and game-09 once more with seven other people (more players than the board lists)."""
    games = [(renamed(record, PROTO), {PROTO.get(name, name) for name in bots})
             for record, _, bots, _ in vector_games()]
    games.append((renamed(games[2][0], STRANGERS), set()))
    now = time.time()
    finished = [local_midnight(now) - 3600] + [now - len(games) + i
                                                for i in range(1, len(games))]
    return archive_games(data_dir, games, finished)


@pytest.fixture
def day_server(tmp_path: Path, start_server: Any) -> tuple[Server, list[int]]:
    data_dir = tmp_path / "data"
    ids = store_day(data_dir)
    server: Server = start_server(data_dir=data_dir)
    return server, ids


def one_decimal(value: float) -> str:
    return str(Decimal(repr(value)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def shown_rows(page: Any) -> list[list[str]]:
    rows: list[list[str]] = page.eval_on_selector_all(
        "#lb-table tbody tr",
        "rows => rows.map(r => Array.from(r.cells).map(c => c.textContent))")
    return rows


def test_leaderboard_shows_the_days_figures(day_server: tuple[Server, list[int]],
                                            browser: Any, artifacts: Path) -> None:
    server, _ = day_server
    view = server.state()
    today = server.call("GET", f"/stats?since={view['day_start']!r}")
    assert today["games"] == 4 and server.call("GET", "/stats")["games"] == 5
    people = [p for p in today["players"] if not p["bot"]]
    assert any(p["bot"] for p in today["players"]) and len(people) > 8
    assert "__proto__" in {p["name"] for p in people}
    ctx = browser.new_context(viewport=TV, locale="en-US")
    page = ctx.new_page()
    errors = console_errors(page)
    page.goto(f"{server.url}/board")
    page.wait_for_function("n => document.querySelectorAll('#lb-table tbody tr').length === n",
                           arg=8, timeout=WAIT_MS)
    assert page.is_visible("#leaderboard") and not page.is_visible("#ring")
    assert page.is_visible("#qr"), "the join QR code stays in the lobby"
    places = [1 + sum(1 for o in people if o["wins"] > p["wins"]
                      or (o["wins"] == p["wins"] and o["best"] < p["best"])) for p in people]
    expected = [[str(place), p["name"], str(p["wins"]), str(p["games"]), str(p["best"]),
                 one_decimal(p["mean"])] for place, p in zip(places, people, strict=True)]
    assert shown_rows(page) == expected[:8]
    assert page.text_content("#lb-sub") == f"Finished games today: {today['games']}"

    titles = dict(page.eval_on_selector_all(
        "#lb-titles li", "items => items.map(i => [i.dataset.title, i.textContent])"))
    best = min(people, key=lambda p: p["best"])  # the first of equals, as on the page
    assert titles["best"] == f"Best single game: {best['name']} with {best['best']} " \
                             "minus points"
    for figure, words in (("rammed", "Most rammed by Mambo"),
                          ("for_kali", "Most generous to Kali"),
                          ("dung", "Deepest in the dung")):
        top = max(people, key=lambda p: p[figure])
        if top[figure] == 0:
            assert figure not in titles
            continue
        first = next(p for p in people if p[figure] == top[figure])
        assert titles[figure] == f"{words}: {first['name']} ({first[figure]} points)"
    assert "for_kali" in titles  # every vector game has Kali's penalties

    assert axe(page, "leaderboard") == []
    page.screenshot(path=str(artifacts / "board-leaderboard-1920x1080.png"))
    page.select_option("#lang", "de")
    page.wait_for_function("() => document.querySelector('#lb-heading').textContent"
                           " === 'Die besten Forscher des Tages'", timeout=WAIT_MS)
    assert errors == []
    ctx.close()


def test_score_sheet_fits_one_a4_page(day_server: tuple[Server, list[int]], browser: Any,
                                      artifacts: Path) -> None:
    server, ids = day_server
    widest = ids[2]  # game-09: seven players, the widest sheet
    assert len(server.call("GET", f"/games/{widest}/record")["players"]) == 7
    ctx = browser.new_context(viewport=TV, locale="en-US")
    page = ctx.new_page()
    page.goto(f"{server.url}/games/{widest}/sheet")
    page.wait_for_selector("table", timeout=WAIT_MS)
    assert "__proto__" in page.text_content("table")
    assert axe(page, "score sheet") == []
    page.screenshot(path=str(artifacts / "score-sheet-1920x1080.png"), full_page=True)
    pdf = artifacts / "score-sheet-a4.pdf"
    page.pdf(path=str(pdf), format="A4")
    ctx.close()
    if not shutil.which("pdfinfo") or not shutil.which("pdftoppm"):
        pytest.skip("poppler-utils is not installed (./setup.sh --dev as root installs it)")
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True,
                          timeout=60).stdout
    pages = next(line.split()[-1] for line in info.splitlines() if line.startswith("Pages:"))
    assert pages == "1", info
    subprocess.run(["pdftoppm", "-png", "-r", "80", "-singlefile", str(pdf),
                    str(artifacts / "score-sheet-a4")], check=True, timeout=60)
    assert (artifacts / "score-sheet-a4.png").stat().st_size > 0


def test_end_of_game_links_the_sheet_and_the_host_starts_a_new_day(
        day_server: tuple[Server, list[int]], browser: Any, artifacts: Path) -> None:
    server, ids = day_server
    host = server.host_token()
    server.call("POST", "/host/bots", {"count": 3, "level": "random"}, host)
    server.call("POST", "/host/start", {}, host)
    deadline = time.monotonic() + WAIT_MS / 1000
    while server.state()["phase"] != "finished" and time.monotonic() < deadline:
        # the host skips each round's playback (409 not_playing between them is fine)
        http("POST", f"{server.url}/api/v1/host/skip", {}, host)
        time.sleep(0.05)
    view = server.state()
    assert view["phase"] == "finished"
    game = view["game_id"]

    ctx = browser.new_context(viewport=TV, locale="en-US")
    board = ctx.new_page()
    board.goto(f"{server.url}/board?turn=5000")  # the ring's and the leaderboard's turns
    board.wait_for_selector("#sheet-box", state="visible", timeout=WAIT_MS)
    assert board.get_attribute("#sheet-link", "href") == f"/games/{game}/sheet"
    board.wait_for_function("() => document.querySelector('#sheet-qr').naturalWidth > 0",
                            timeout=WAIT_MS)
    # game over: the final ring first, beside the ranking; then the day's leaderboard
    assert board.is_visible("#ring") and not board.is_visible("#leaderboard")
    board.wait_for_selector("#leaderboard", state="visible", timeout=WAIT_MS)
    assert axe(board, "end of game") == []
    board.screenshot(path=str(artifacts / "board-end-of-game-1920x1080.png"))

    hostpage = ctx.new_page()
    hostpage.add_init_script(f"localStorage.setItem('kalimambo.host', '{host}')")
    hostpage.goto(f"{server.url}/host")
    hostpage.wait_for_selector("#sheet", state="visible", timeout=WAIT_MS)
    assert hostpage.get_attribute("#sheet", "href") == f"/games/{game}/sheet"
    hostpage.wait_for_function(
        "n => document.querySelectorAll('#archive-list a').length === n",
        arg=min(len(ids) + 1, 5), timeout=WAIT_MS)
    links = hostpage.eval_on_selector_all("#archive-list a",
                                          "links => links.map(a => a.getAttribute('href'))")
    assert links[0] == f"/games/{game}/sheet"  # the latest first
    assert axe(hostpage, "host archive") == []

    before = server.state()["day_start"]
    hostpage.click("#new-day")
    hostpage.wait_for_selector("#confirm-day", state="visible", timeout=WAIT_MS)
    hostpage.keyboard.press("Escape")
    hostpage.wait_for_selector("#confirm-day", state="hidden", timeout=WAIT_MS)
    assert server.state()["day_start"] == before  # cancelled: the same day
    hostpage.click("#new-day")
    hostpage.click("#day-confirm")
    deadline = time.monotonic() + WAIT_MS / 1000
    while server.state()["day_start"] == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.state()["day_start"] > before
    # the board hears of the new day at once: nothing finished since, so the ring is back
    board.wait_for_selector("#leaderboard", state="hidden", timeout=WAIT_MS)
    board.wait_for_selector("#ring", state="visible", timeout=WAIT_MS)
    ctx.close()
