"""Where a newcomer gets lost: an address that does not exist gets the table's own page
(in the asked language, with the way to the phone, board and host pages), ``/board/``
and ``/Board`` lead to ``/board``, the API keeps its JSON errors; and the host page
without a PIN says where the host link is and never speaks of a PIN."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.http.appconfig import AppConfig
from tests.conftest import PIN


def test_an_unknown_address_gets_the_tables_own_page(client: Any) -> None:
    response = client.get("/nope", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert response.status_code == 404 and response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert '<html lang="de"' in page and 'data-i18n="missing.title"' in page
    assert 'href="/"' in page and 'href="/board"' in page and "/nope" in page
    assert "style.css" in page and "missing.js" in page   # the table's style, its words
    assert client.get("/static/missing.js").status_code == 200


def test_a_page_written_differently_leads_to_it(client: Any) -> None:
    for wrong, right in (("/board/", "/board"), ("/Board", "/board"), ("/BOARD/", "/board"),
                         ("/Host/", "/host"), ("/Board?leds=1", "/board?leds=1")):
        response = client.get(wrong)
        assert response.status_code == 308, wrong
        assert response.headers["Location"].endswith(right), wrong
    assert client.post("/Board").status_code == 404  # only a page's GET is led on


def test_the_api_keeps_its_json_errors(client: Any) -> None:
    response = client.get("/api/v1/nope")
    assert response.status_code == 404 and response.json["error"]["code"] == "not_found"


def test_the_host_page_says_where_the_host_link_is(client: Any) -> None:
    page = client.get("/host").get_data(as_text=True)
    assert 'data-i18n="host.where"' in page and "journalctl -u kalimambo" in page
    assert "kalimambo host-link" in page and 'data-i18n="host.pin"' in page


@pytest.fixture
def pinless(tmp_path: Path) -> Iterator[Any]:
    from kalimambo.web.http.app import create_app

    app = create_app(AppConfig(testing=True, data_dir=tmp_path / "data", host_pin=None,
                               runner="inline", join_url="http://192.0.2.10:8000/"))
    yield app.test_client()
    app.extensions["kalimambo"].close()


def test_a_table_without_a_pin_never_speaks_of_one(pinless: Any, client: Any) -> None:
    page = pinless.get("/host").get_data(as_text=True)
    assert 'data-i18n="host.key"' in page and 'data-i18n="host.pin"' not in page
    assert 'data-i18n="host.no_pin"' in page
    wrong = pinless.post("/api/v1/host", json={"pin": "0000"})
    assert wrong.status_code == 403 and wrong.json["error"]["code"] == "wrong_key"
    assert "PIN" not in wrong.json["error"]["message"]
    with_pin = client.post("/api/v1/host", json={"pin": "0000"})
    assert with_pin.json["error"]["code"] == "wrong_pin"
    assert client.post("/api/v1/host", json={"pin": PIN}).status_code == 200
