"""Where a newcomer stopped and wondered, checked in real browsers: confirming a pick by
tapping the card again, nothing hidden under the pick bar at 360 to 450 px, a change
of pick the round overtook, the host page without the key, an address that does not
exist, the strip's picture shown when it is simulated, the strip while people pick,
and the host page's layout.  Points 1, 2, 4 and 5 in WebKit too.  Screenshots go to
tests/artifacts/ (``newcomer-``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import HOST_PIN, PHONE, Server
from tests.browser.play import WAIT_MS, join, wait_picked
from tests.browser.webkit import WebKitPage
from tests.helpers import wait_for

BOARD = {"width": 1280, "height": 720}

COVERED_JS = """() => {
  // the page scrolled to its end: does the bar cover anything of the page's own?
  window.scrollTo(0, document.documentElement.scrollHeight);
  const bar = document.getElementById('confirm-bar').getBoundingClientRect();
  const nodes = [...document.querySelectorAll(
    '#seat .chip, #seat .hint-row, #status, #hand .card')];
  return nodes.filter((n) => n.offsetParent !== null)
    .filter((n) => n.getBoundingClientRect().bottom > bar.top + 1)
    .map((n) => n.textContent.trim().slice(0, 30));
}"""


def seated_game(server: Server, page: Any, name: str = "Ana") -> tuple[str, str]:
    """``name`` joins on ``page``, Ben joins through the API, a computer player (who
    picks at once) makes three; the game starts.  The host's token and Ben's."""
    join(page, server.url, name)
    ben = server.call("POST", "/join", {"name": "Ben"})["token"]
    host = server.host_token()
    server.call("POST", "/host/bots", {"count": 1, "level": "random"}, host)
    server.call("POST", "/host/start", {}, host)
    page.wait_for_selector('#hand button.card:not([disabled])', timeout=WAIT_MS)
    return host, ben


def tap(page: Any, card: int) -> None:
    page.click(f'#hand .card[data-card="{card}"]')


def second_tap_confirms_and_nothing_hides(server: Server, page: Any,
                                          resize: Callable[[int], None]) -> None:
    """Point 1: tap, tap again plays the card; at 360 to 450 px the bar covers nothing."""
    seated_game(server, page)
    for width in (360, 400, 447, 450):
        resize(width)
        tap(page, 4)
        page.wait_for_selector("#confirm-bar", timeout=WAIT_MS)
        assert page.evaluate(COVERED_JS) == [], width
        tap(page, 4)   # the same card again: played
        wait_picked(page, 4)
        assert page.is_hidden("#confirm-bar")
        tap(page, 5)   # a change of mind: tapped, then played by its second tap
        tap(page, 5)
        wait_picked(page, 5)


def overtaken_change_is_told(server: Server, page: Any) -> None:
    """Point 2: Ana plays 5, taps 7; Ben picks last; Ana is told her 7 came too late."""
    _, ben = seated_game(server, page)
    tap(page, 5)
    tap(page, 5)
    wait_picked(page, 5)
    tap(page, 7)
    page.wait_for_selector("#confirm-bar", timeout=WAIT_MS)
    server.call("POST", "/pick", {"round": 1, "card": 3}, ben)
    page.wait_for_function(
        "(text) => document.getElementById('toast').textContent === text",
        arg="Round 1 was resolved with your 5; your 7 came too late.", timeout=WAIT_MS)
    assert server.state()["history"] == [] or server.state()["playback"] is not None


def unknown_address_gets_the_tables_page(server: Server, page: Any) -> None:
    """Point 4: the table's own page with the ways on; /board/ and /Board lead on."""
    page.goto(f"{server.url}/nope")
    page.wait_for_selector("#lang", state="attached", timeout=WAIT_MS)
    page.wait_for_function("() => document.querySelector('h2').textContent === "
                           "'There is no such page at this table'", timeout=WAIT_MS)
    links = page.eval_on_selector_all(".missing-links a", "ns => ns.map(n => n.pathname)")
    assert links == ["/", "/board", "/host"]
    for wrong in ("/board/", "/Board"):
        page.goto(f"{server.url}{wrong}")
        page.wait_for_selector("#ring", state="attached", timeout=WAIT_MS)
        assert page.evaluate("() => location.pathname") == "/board"


def simulated_strip_is_shown(server: Server, page: Any) -> None:
    """Point 5: off a Pi the strip is simulated: its picture shows without ?leds=1."""
    assert wait_for(lambda: server.state()["lights"]["backend"] == "sim")
    page.goto(f"{server.url}/board")
    page.wait_for_function("() => document.querySelectorAll('#leds span').length === 32",
                           timeout=WAIT_MS)
    assert page.is_visible("#leds-box")
    page.goto(f"{server.url}/board?leds=0")
    page.wait_for_selector("#ring", state="attached", timeout=WAIT_MS)
    time.sleep(0.5)
    assert page.is_hidden("#leds-box")


# -- Chromium ---------------------------------------------------------------------------

@pytest.fixture
def chromium_page(browser: Any) -> Any:
    context = browser.new_context(viewport=PHONE, locale="en-US")
    yield context.new_page()
    context.close()


def test_a_second_tap_plays_the_card_and_the_bar_hides_nothing(
        server: Server, chromium_page: Any, artifacts: Path) -> None:
    page = chromium_page
    second_tap_confirms_and_nothing_hides(
        server, page, lambda width: page.set_viewport_size({"width": width, "height": 740}))
    page.screenshot(path=str(artifacts / "newcomer-second-tap.png"))


def test_a_change_of_pick_too_late_is_told(server: Server, chromium_page: Any,
                                           artifacts: Path) -> None:
    overtaken_change_is_told(server, chromium_page)
    chromium_page.screenshot(path=str(artifacts / "newcomer-too-late.png"))


def test_the_host_page_says_where_the_key_is(server: Server, start_server: Any,
                                             chromium_page: Any, tmp_path: Path,
                                             artifacts: Path) -> None:
    page = chromium_page
    page.goto(f"{server.url}/host")
    page.wait_for_selector("#host-where", timeout=WAIT_MS)
    words = page.text_content("#host-where") or ""
    assert 'journalctl -u kalimambo | grep "Host link"' in words
    assert "kalimambo host-link" in words
    page.fill("#pin", "0000")
    page.click("#login-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('toast').textContent !== ''",
                           timeout=WAIT_MS)
    assert page.text_content("#toast") == "That is not the host PIN."
    page.screenshot(path=str(artifacts / "newcomer-host-login.png"))
    pinless = start_server(tmp_path / "pinless", pin=None)
    page.goto(f"{pinless.url}/host")
    page.wait_for_selector("#host-where", timeout=WAIT_MS)
    assert page.text_content("label[for=pin]") == "Host key"
    page.fill("#pin", "0000")
    page.click("#login-form button[type=submit]")
    page.wait_for_function("() => document.getElementById('toast').textContent !== ''",
                           timeout=WAIT_MS)
    toast = page.text_content("#toast") or ""
    assert "PIN" not in toast and "host link" in toast


def test_an_unknown_address_gets_the_tables_page(server: Server, chromium_page: Any,
                                                 artifacts: Path) -> None:
    unknown_address_gets_the_tables_page(server, chromium_page)
    chromium_page.goto(f"{server.url}/nope")
    chromium_page.wait_for_selector(".missing-links", timeout=WAIT_MS)
    chromium_page.screenshot(path=str(artifacts / "newcomer-missing.png"))


def test_the_simulated_strip_is_shown(server: Server, browser: Any,
                                      artifacts: Path) -> None:
    context = browser.new_context(viewport=BOARD, locale="en-US")
    try:
        page = context.new_page()
        simulated_strip_is_shown(server, page)
        page.goto(f"{server.url}/board")
        page.wait_for_selector("#leds-box", timeout=WAIT_MS)
        page.screenshot(path=str(artifacts / "newcomer-strip-shown.png"))
    finally:
        context.close()


def test_every_figure_stays_lit_while_people_pick(server: Server, chromium_page: Any) -> None:
    """Point 6: while Ben has not picked his figure breathes, Ana's (picked) is steady,
    and no figure or heap goes dark in any frame."""
    host, _ = seated_game(server, chromium_page)
    tap(chromium_page, 2)
    tap(chromium_page, 2)
    assert wait_for(lambda: [s["picked"] for s in server.state()["seats"]]
                    == [True, False, True])
    server.call("POST", "/host/placed", {}, host)   # the set-up is on the board: Done
    assert wait_for(lambda: not server.state()["lights"]["playing"])  # the intro is over
    view = server.state()
    pieces = {**view["positions"], "Mambo": view["rhino"]}
    frames = []
    deadline = time.monotonic() + 2.5
    while time.monotonic() < deadline:
        frames.append(server.call("GET", "/leds")["seen"])
        time.sleep(0.08)
    for piece, space in [*pieces.items(), *(("heap", d) for d in view["dung"])]:
        assert all(any(frame[space]) for frame in frames), (piece, space, "went dark")
    assert len({max(frame[pieces["Ben"]]) for frame in frames}) > 3   # Ben breathes
    assert len({tuple(frame[pieces["Ana"]]) for frame in frames}) == 1   # Ana steady


def test_the_host_pages_counter_and_seat_rows(server: Server, chromium_page: Any,
                                              artifacts: Path) -> None:
    """Point 7: the letters counter right under the name field; every seat row says
    "picked" or "thinking" in the same place, left of its buttons."""
    page = chromium_page
    page.set_viewport_size({"width": 412, "height": 915})
    page.goto(f"{server.url}/host")
    page.fill("#pin", HOST_PIN)
    page.click("#login-form button[type=submit]")
    page.wait_for_selector("#console", timeout=WAIT_MS)
    page.fill("#hosted-name", "Dora")
    field = page.locator("#hosted-name").bounding_box()
    counter = page.locator("#hosted-count").bounding_box()
    button = page.locator("#hosted-form button[type=submit]").bounding_box()
    assert field and counter and button
    assert 0 <= counter["y"] - (field["y"] + field["height"]) <= 12
    assert abs(counter["x"] - field["x"]) <= 2
    assert not (button["x"] <= counter["x"] < button["x"] + button["width"]
                and button["y"] < counter["y"])   # not under "Add seat"
    page.click("#hosted-form button[type=submit]")
    host = server.host_token()
    server.call("POST", "/host/seats", {"name": "Ede"}, host)
    server.call("POST", "/join", {"name": "Finn"})
    server.call("POST", "/host/bots", {"count": 1, "level": "easy"}, host)
    server.call("POST", "/host/start", {}, host)
    page.wait_for_function("() => [...document.querySelectorAll('#seats li')]"
                           ".every((li) => !li.parts || true) && "
                           "document.querySelectorAll('#seats li').length === 4",
                           timeout=WAIT_MS)
    # every row says "picked" or "thinking" (the rows come before their states)
    page.wait_for_function("() => [...document.querySelectorAll('#seats li')].every("
                           "(row) => [...row.children].some((n) => !n.hidden && "
                           "/picked|thinking/.test(n.textContent)))", timeout=WAIT_MS)
    # in every row "picked"/"thinking" starts the second line, at the row's left edge
    places = page.eval_on_selector_all(
        "#seats li", """rows => rows.map((row) => {
          const said = [...row.children].find((n) => !n.hidden &&
            /picked|thinking/.test(n.textContent));
          if (!said) return null;
          const at = said.getBoundingClientRect();
          const name = row.querySelector('.name').getBoundingClientRect();
          return [Math.abs(at.left - row.getBoundingClientRect().left) <= 4
                  && at.top >= name.bottom - 2, said.textContent];
        })""")
    assert all(place is not None and place[0] for place in places), places
    page.screenshot(path=str(artifacts / "newcomer-host-seats.png"), full_page=True)


# -- WebKit -----------------------------------------------------------------------------

def test_webkit_second_tap_and_the_bar(server: Server, webkit: Callable[..., WebKitPage],
                                       artifacts: Path) -> None:
    page = webkit(447, 844)
    second_tap_confirms_and_nothing_hides(
        server, page, lambda width: page.driver.set_window_size(width, 844))
    page.screenshot(path=str(artifacts / "webkit-newcomer-second-tap.png"))


def test_webkit_change_of_pick_too_late(server: Server, webkit: Callable[..., WebKitPage],
                                        artifacts: Path) -> None:
    page = webkit()
    overtaken_change_is_told(server, page)
    page.screenshot(path=str(artifacts / "webkit-newcomer-too-late.png"))


def test_webkit_unknown_address_and_strip(server: Server, webkit: Callable[..., WebKitPage],
                                          artifacts: Path) -> None:
    page = webkit(1280, 720)
    unknown_address_gets_the_tables_page(server, page)
    simulated_strip_is_shown(server, page)
    page.goto(f"{server.url}/nope")
    page.wait_for_selector(".missing-links", timeout=WAIT_MS)
    page.screenshot(path=str(artifacts / "webkit-newcomer-missing.png"))


# -- the builder's table: its power, on the host page ------------------------------------

def test_the_host_page_says_when_the_power_is_wrong(start_server: Any, browser: Any,
                                                    tmp_path: Path, artifacts: Path) -> None:
    """A lights process reporting a sagging Pi supply and a strip asking more than its
    supply: the host page's lights panel says both in a builder's words."""
    from tests.lights_peers import connect_lights

    sock = str(tmp_path / "lights.sock")
    server = start_server(extra=("--lights", "external", "--lights-socket", sock))
    lights = connect_lights(sock, [[0, 0, 0]] * 32)
    power = {"pi": "low", "pi_sags": 1, "throttled": True, "supply_ma": 300,
             "asked_ma": 988, "dimming": True}
    lights.send({"type": "status", "backend": "sim", "ok": True, "error": None,
                 "playing": False, "power": power})
    assert wait_for(lambda: (server.state()["lights"].get("power") or {}).get("pi") == "low")
    context = browser.new_context(viewport={"width": 412, "height": 915}, locale="en-US")
    try:
        page = context.new_page()
        page.goto(f"{server.url}/host")
        page.fill("#pin", HOST_PIN)
        page.click("#login-form button[type=submit]")
        page.wait_for_selector("#lights-power li", timeout=WAIT_MS)
        said = page.eval_on_selector_all("#lights-power li", "ns => ns.map(n => n.textContent)")
        assert any("under-voltage" in line for line in said), said
        assert any("slowing itself down" in line for line in said), said
        assert any("asks up to 0.99 A but its supply gives 0.30 A" in line
                   for line in said), said
        page.screenshot(path=str(artifacts / "newcomer-host-power.png"), full_page=True)
        lights.send({"type": "status", "backend": "sim", "ok": True, "error": None,
                     "playing": False, "power": {**power, "pi": "unknown", "throttled": None,
                                                 "asked_ma": 120, "dimming": False}})
        page.wait_for_function(
            "() => [...document.querySelectorAll('#lights-power li')].some("
            "(n) => n.textContent.includes('cannot be seen here'))", timeout=WAIT_MS)
        said = page.eval_on_selector_all("#lights-power li", "ns => ns.map(n => n.textContent)")
        assert said == ["Power: the strip has asked at most 0.12 A of its 0.30 A supply.",
                        "The Pi's own supply cannot be seen here."], said
    finally:
        context.close()
        lights.sock.close()
