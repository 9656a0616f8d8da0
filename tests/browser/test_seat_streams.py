"""Seven phones play a whole game and never ask ``GET /api/v1/me`` after a push (issue 44,
item 3): each phone's event stream carries its seat's own view (hand and pick), so after
a round's reveal or a new round's opening no phone pulls. Every request each phone sends
is counted (Playwright sees them all), and each phone's hand is checked against the
table's own answer for that seat at every round. The requests per round are printed
(``pytest -s``); ``python -m bench.sse`` measures the same against the old way."""

from __future__ import annotations

import random
from typing import Any

from kalimambo.engine.setup import SAMPLE_NAMES
from tests.browser.conftest import PHONE, Server
from tests.browser.play import WAIT_MS, dismiss_reveal, hand, join, pick, wait_for_hand


def test_seven_phones_play_a_game_with_no_get_me_after_a_push(server: Server,
                                                             browser: Any) -> None:
    rng = random.Random(44)
    contexts = [browser.new_context(viewport=PHONE, locale="en-GB") for _ in SAMPLE_NAMES]
    requests: list[list[str]] = [[] for _ in SAMPLE_NAMES]
    try:
        phones = [context.new_page() for context in contexts]
        for page, name in zip(phones, SAMPLE_NAMES, strict=True):
            join(page, server.url, name)
        tokens = [page.evaluate("() => localStorage.getItem('kalimambo.token')")
                  for page in phones]
        for page, seen in zip(phones, requests, strict=True):  # from the join on
            page.on("request", lambda request, seen=seen: seen.append(
                f"{request.method} {request.url.removeprefix(server.url)}"))
        server.call("POST", "/host/start", {}, server.host_token())
        per_round: list[int] = []
        for round_no in range(1, 13):
            before = sum(len(seen) for seen in requests)
            for page, token in zip(phones, tokens, strict=True):
                wait_for_hand(page, 13 - round_no)
                dismiss_reveal(page)
                table_hand = server.call("GET", "/me", None, token)["me"]["hand"]
                assert hand(page) == table_hand
            for page in phones:
                pick(page, rng.choice(hand(page)))
            for page in phones:  # the reveal (the game's end, after round 12)
                page.wait_for_selector("#sheet" if round_no < 12 else "#over",
                                       state="visible", timeout=WAIT_MS)
            per_round.append(sum(len(seen) for seen in requests) - before)
    finally:
        for context in contexts:
            context.close()
    asked_me = [[r for r in seen if r.startswith("GET /api/v1/me")] for seen in requests]
    print(f"\n7 phones, 12 rounds: {sum(per_round)} requests, per round {per_round} "
          f"(the picks are {len(SAMPLE_NAMES)} of each); GET /me: "
          f"{sum(map(len, asked_me))}")
    assert asked_me == [[] for _ in SAMPLE_NAMES], asked_me
    picks = sum(r.startswith("POST /api/v1/pick") for seen in requests for r in seen)
    assert picks == 12 * len(SAMPLE_NAMES)
