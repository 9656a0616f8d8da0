"""The convention day's clock: the day's start moves on at local midnight by
itself (the leaderboard starts afresh unasked), and the score sheet shows the table's
local time with its zone, in the pages' form and the sheet's language."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from kalimambo.web.table import day
from kalimambo.web.table.day import local_midnight, next_midnight
from tests.storage.test_archive import archive_client  # noqa: F401  (a fixture)


@pytest.fixture
def berlin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TZ", "Europe/Berlin")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_the_next_midnight_on_short_and_long_days(berlin: None) -> None:
    for when in ("2026-03-29 12:00", "2026-10-25 12:00", "2026-12-01 23:59"):
        now = datetime.strptime(when, "%Y-%m-%d %H:%M").timestamp()
        after = next_midnight(now)
        moment = datetime.fromtimestamp(after)
        assert (moment.hour, moment.minute) == (0, 0) and after > now
        assert local_midnight(after) == after and local_midnight(after - 1) < after
        assert after - now < 25 * 3600


def test_the_views_day_start_moves_on_at_midnight(app: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    table = app.extensions["kalimambo"].table
    start = table.current.view["day_start"]
    timer = table.timekeeper.midnight_timer
    assert timer is not None and timer.interval <= 25 * 3600
    tomorrow = next_midnight(time.time()) + 60
    monkeypatch.setattr(day.time, "time", lambda: tomorrow)
    table.timekeeper.midnight()  # what the timer calls at midnight
    assert table.current.view["day_start"] == local_midnight(tomorrow) > start
    assert table.timekeeper.midnight_timer is not timer  # armed again for the next one
    monkeypatch.undo()


def test_the_score_sheet_shows_local_time_and_zone(archive_client: Any,  # noqa: F811
                                                   berlin: None) -> None:
    games = archive_client.get("/api/v1/games").json["games"]
    started = next(g for g in games if g["started"])
    page = archive_client.get(f"/games/{started['id']}/sheet?lang=en").data.decode()
    moment = datetime.fromtimestamp(started["started"]).astimezone()
    month = ["January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December"][moment.month - 1]
    # the form the host page uses too (common/when.js): "2 December 2026, 05:16"
    assert f"{moment.day} {month} {moment.year}, {moment:%H:%M} {moment.tzname()} (UTC" in page
    assert "(UTC+01:00)" in page or "(UTC+02:00)" in page
    german = archive_client.get(f"/games/{started['id']}/sheet?lang=de").data.decode()
    monat = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August",
             "September", "Oktober", "November", "Dezember"][moment.month - 1]
    assert f"{moment.day}. {monat} {moment.year}, {moment:%H:%M} " in german
