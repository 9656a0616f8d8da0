"""Step pacing: the board page waits for the same "next" as the strip, one event a press.

No fixed sleeps: the round's events are known (the public view's ``last_round``), so
the test works out which line the board must show after each press and waits for
exactly that line. A board that skipped a step or lagged one behind never shows it,
and one that moved on by itself (the pause is set to its shortest) is found ahead.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from tests.browser.conftest import Server
from tests.browser.play import WAIT_MS
from tests.conftest import ROOT

MESSAGES: dict[str, str] = json.loads((ROOT / "web" / "i18n" / "en.json").read_text("utf-8"))


def say(key: str, **params: Any) -> str:
    """The English line for ``key``, as the pages fill it in."""
    if params.get("spaces") == 1 and f"{key}.one" in MESSAGES:
        key = f"{key}.one"
    text = MESSAGES[key]
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def figure(name: str) -> str:
    return MESSAGES["figure.kali"] if name == "Kali" else name


def narration(events: list[dict[str, Any]], index: int, length: int) -> str:
    """The board's line for one event (web/static/board.js ``narrate``)."""
    ev = events[index]

    def payers(cause: str) -> tuple[int, str]:
        names, points = [], 0
        for later in events[index + 1:]:
            if later["type"] != "penalty":
                break
            if later["cause"] == cause:
                names.append(later["player"])
                points = later["points"]
        return points, ", ".join(names)

    kind = ev["type"]
    if kind == "reveal":
        return say("ev.reveal", round=ev["round"], kali=ev["kali"])
    if kind == "move":
        if ev["passed_rhino"]:
            return say("ev.move_past", figure=figure(ev["figure"]), card=ev["card"],
                       space=ev["to_space"])
        return say("ev.move", figure=figure(ev["figure"]), card=ev["card"],
                   spaces=(ev["to_space"] - ev["from_space"]) % length)
    if kind == "stay":
        if ev["reason"] == "zero":
            return say("ev.stay_zero", figure=figure(ev["figure"]))
        if ev["reason"] == "front":
            return say("ev.stay_front", figure=figure(ev["figure"]), card=ev["card"])
        return say("ev.stay_tie", figure=figure(ev["figure"]), card=ev["card"],
                   other=figure(ev["beaten_by"]))
    if kind == "dung":
        points, names = payers("dung")
        return say("ev.dung", figure=figure(ev["figure"]), space=ev["space"], points=points,
                   payers=names)
    if kind == "rhino_run":
        points, names = payers("rammed")
        return say("ev.rhino_run", spaces=ev["spaces"], figure=figure(ev["rammed"]),
                   points=points, payers=names)
    assert kind == "round_end" and not ev["game_over"]
    return say("ev.round_end", round=ev["round"])


def steps(events: list[dict[str, Any]], length: int) -> list[str]:
    """The line shown while the board waits for each press: one step per event, and a
    run of penalties for one hit is one more step that keeps the line before it."""
    shown: list[str] = []
    line = ""
    for index, ev in enumerate(events):
        if ev["type"] != "penalty":
            line = narration(events, index, length)
            shown.append(line)
            continue
        after = events[index + 1] if index + 1 < len(events) else None
        if after is None or after["type"] != "penalty" or after["figure"] != ev["figure"] \
                or after["cause"] != ev["cause"]:
            shown.append(line)
    return shown


def test_board_steps_with_next(server: Server, browser: Any) -> None:
    tokens = [server.call("POST", "/join", {"name": n})["token"] for n in ("Ana", "Ben", "Caro")]
    host = server.host_token()
    # The shortest pause: a board that moved on by itself would run ahead at once.
    server.call("POST", "/host/settings", {"pacing": "step", "pause_ms": 100}, host)
    server.call("POST", "/host/start", {"setup": {"rhino": 0, "order": ["Ana", "Ben", "Caro"],
                                                  "dung": [10, 20]}}, host)
    ctx = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    try:
        board = ctx.new_page()
        board.goto(f"{server.url}/board")
        board.wait_for_function(  # the board has its first view before the round is played
            "() => document.getElementById('phase').textContent.includes('Round 1 of 12')",
            timeout=WAIT_MS)
        for token, card in zip(tokens, (11, 7, 3), strict=True):
            server.call("POST", "/pick", {"round": 1, "card": card}, token)
        view = server.state()
        expected = steps(view["last_round"]["events"], view["track_length"])
        assert len(expected) >= 6  # reveal, 4 figures, at least one hit, round end

        def shows(line: str) -> None:
            board.wait_for_function(
                "(line) => document.getElementById('narration').textContent === line",
                arg=line, timeout=WAIT_MS)

        shows(expected[0])
        for before, line in itertools.pairwise(expected):
            assert board.inner_text("#narration") == before  # still waiting for "next"
            server.call("POST", "/host/lights/next", {}, host)
            shows(line)
        # One press per step: the round's last line after exactly that many presses.
        assert server.state()["lights"]["next_presses"] == len(expected) - 1
        assert board.inner_text("#narration") == expected[-1]
    finally:
        ctx.close()
