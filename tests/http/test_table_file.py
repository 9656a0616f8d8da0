"""A card's table file (web/system/tablefile.py) in the pages: the table's name beside the
board's QR codes, kalimambo.toml's problems on the host page, the pages' first language."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.system.tablefile import TableSettings

CARD = TableSettings("kalimambo-qxzw", "de",
                     ('kalimambo.toml line 3: language = "nl" is not one of en, de, fr, it; '
                      "the default is used",))


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Any]:
    from kalimambo.web.http.app import create_app

    made: list[Any] = []

    def make(table: TableSettings | None) -> Any:
        app = create_app(AppConfig(testing=True, data_dir=tmp_path / f"d{len(made)}",
                                   runner="inline", table=table))
        made.append(app)
        return app.test_client()

    yield make
    for app in made:
        app.extensions["kalimambo"].close()


def test_the_board_names_the_table_beside_its_codes(make_app: Any) -> None:
    page = make_app(CARD).get("/board").get_data(as_text=True)
    name = page.index('id="table-name"')
    assert "<strong>kalimambo-qxzw</strong>" in page[name:name + 200]
    assert name < page.index('id="join-box"')
    plain = make_app(None).get("/board").get_data(as_text=True)
    assert 'id="table-name"' not in plain


def test_the_host_page_lists_the_cards_problems(make_app: Any) -> None:
    page = make_app(CARD).get("/host").get_data(as_text=True)
    box = page[page.index('id="card-problems"'):]
    assert "kalimambo.toml line 3: language = &#34;nl&#34; is not one of" in box
    assert 'id="card-problems"' not in make_app(
        TableSettings("t", None, ())).get("/host").get_data(as_text=True)


def test_the_cards_language_comes_before_the_browsers_after_the_persons(
        make_app: Any) -> None:
    client = make_app(CARD)
    english = {"Accept-Language": "en-GB,en;q=0.9"}
    assert '<html lang="de"' in client.get("/", headers=english).get_data(as_text=True)
    client.set_cookie("lang", "fr")
    assert '<html lang="fr"' in client.get("/", headers=english).get_data(as_text=True)
    plain = make_app(None)
    assert '<html lang="en"' in plain.get("/", headers=english).get_data(as_text=True)
