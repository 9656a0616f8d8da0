"""The pages without a browser: translations complete, assets local, QR code and routes.

These run in well under a second and catch what a browser test would only show as
a raw message key on one language's screen.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.http import pages
from kalimambo.web.http.appconfig import AppConfig

WEB = pages.WEB_DIR
TEMPLATES = WEB / "templates"
STATIC = WEB / "static"
PLACEHOLDER = re.compile(r"\{(\w+)\}")
DYNAMIC_PREFIXES = ("colour.", "level.", "hint.", "err.", "phase.", "replay.why.",
                    "place.title.")
"""Keys built at run time from a value (a colour, a level, a hint or error code, the
reason attract mode picked a game, why pieces must be moved by hand)."""


def load(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((WEB / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def used_keys() -> set[str]:
    """Every message key the templates and scripts name literally."""
    found: set[str] = set()
    for path in TEMPLATES.glob("*.html"):
        html = path.read_text("utf-8")
        found |= set(re.findall(r'data-i18n(?:-placeholder|-label)?="([\w.]+)"', html))
        found |= set(re.findall(r't\["([\w.]+)"\]', html))  # pages drawn on the server
        for tag in re.findall(r"{[{%](.*?)[%}]}", html, re.S):  # a macro's arguments
            found |= {k for k in re.findall(r'"([a-z]+\.[\w.]+)"', tag)
                      if not k.endswith(".html")}
    for path in (WEB / "http").glob("*.py"):  # filled in on the server (lang.name...)
        found |= set(re.findall(r'messages\(\)\[\w+\]\["([\w.]+)"\]', path.read_text("utf-8")))
    for path in STATIC.rglob("*.js"):
        text = path.read_text("utf-8")
        found |= set(re.findall(r'\bt\(\s*"([\w.]+)"', text))
        found |= set(re.findall(r'"data-i18n": "([\w.]+)"', text))
        found |= set(re.findall(r'\["([a-z]+\.[\w.]+)"\]', text))
        found |= {m for m in re.findall(r'\?\s*"([a-z]+\.[\w.]+)"\s*:\s*"([a-z]+\.[\w.]+)"',
                                        text) for m in m}
    return found


@pytest.mark.parametrize("lang", ["de", "fr", "it"])
def test_every_language_has_every_message_with_the_same_placeholders(lang: str) -> None:
    english = load("en")
    other = load(lang)
    assert sorted(other) == sorted(english)
    for key, text in english.items():
        assert other[key].strip(), f"{lang}: {key} is empty"
        assert set(PLACEHOLDER.findall(other[key])) == set(PLACEHOLDER.findall(text)), \
            f"{lang}: {key} has other placeholders than English"
    assert other["lang.name"] != english["lang.name"]
    same = [k for k, v in other.items() if v == english[k] and len(v) > 12]
    assert len(same) < 5, f"{lang}: still English: {same}"


def test_every_key_the_pages_use_exists_and_none_is_dead() -> None:
    english = load("en")
    used = used_keys()
    assert used, "the key scan found nothing: the pattern is broken"
    assert sorted(used - set(english)) == []
    dead = [k for k in english if k not in used and not k.startswith(DYNAMIC_PREFIXES)
            and not (k.endswith(".one") and k.removesuffix(".one") in used)]
    assert dead == []


def test_dynamic_keys_cover_colours_levels_and_hint_codes() -> None:
    from kalimambo.engine import players
    from kalimambo.web.core.seats import COLOURS

    english = load("en")
    for colour in COLOURS:
        assert f"colour.{colour}" in english
    for level in players.LEVELS:
        assert f"level.{level}" in english
    hints_part = (players.__doc__ or "").partition("Hints:")[2]
    codes = re.findall(r"^- ``(\w+)``", hints_part, flags=re.MULTILINE)
    assert codes, "no hint codes found in engine.players' docstring"
    for code in codes:
        assert f"hint.{code}" in english


def test_no_asset_comes_from_another_host() -> None:
    for path in [*TEMPLATES.glob("*.html"), *STATIC.glob("*.css"), *STATIC.rglob("*.js")]:
        text = path.read_text("utf-8")
        assert not re.search(r'(src|href)\s*=\s*["\']?(https?:)?//', text), path.name
        assert "@import" not in text and "fonts.googleapis" not in text, path.name
        assert not re.search(r"url\(\s*['\"]?(https?:)?//", text), path.name


def test_scripts_never_put_text_into_html() -> None:
    """Names are typed by players: the scripts only ever set textContent."""
    for path in STATIC.rglob("*.js"):
        text = path.read_text("utf-8")
        assert "innerHTML" not in text and "outerHTML" not in text, path.name
        assert "insertAdjacentHTML" not in text and "document.write" not in text, path.name


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Any]:
    from kalimambo.web.http.app import create_app

    app = create_app(AppConfig(data_dir=tmp_path, runner="inline", join_url="http://10.1.2.3:8000/"))
    yield app.test_client()
    app.extensions["kalimambo"].close()


@pytest.mark.parametrize("path", ["/", "/board", "/host", "/nope"])
def test_pages_answer_in_one_language_and_name_all_four(client: Any, path: str) -> None:
    """Only the chosen language's messages come with a page (issue 36); the switch
    fetches another from /i18n/<lang>.json (tests/http/test_compress.py)."""
    response = client.get(path, headers={"Accept-Language": "fr-CH, fr;q=0.9"})
    assert response.status_code == (404 if path == "/nope" else 200)
    html = response.get_data(as_text=True)
    assert '<html lang="fr"' in html
    block = re.search(r'<script type="application/json" id="messages">(.*?)</script>',
                      html, re.S)
    assert block is not None
    assert json.loads(block.group(1)) == {"fr": load("fr")}
    names = re.search(r'<script type="application/json" id="languages">(.*?)</script>',
                      html, re.S)
    assert names is not None
    assert json.loads(names.group(1)) == {lang: load(lang)["lang.name"]
                                          for lang in ("en", "de", "fr", "it")}


def test_qr_code_carries_the_join_url_from_the_public_view(client: Any) -> None:
    response = client.get("/qr.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    body = response.get_data(as_text=True)
    ET.fromstring(body)  # well-formed SVG
    assert body == pages.qr_svg("http://10.1.2.3:8000/")
    assert body != pages.qr_svg("http://localhost:8000/")


def test_static_files_are_served(client: Any) -> None:
    for name in ("style.css", "phone.js", "board.js", "host.js", "icon.svg"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        response.close()


SCRIPTS = sorted(path.relative_to(STATIC).as_posix() for path in STATIC.rglob("*.js"))


@pytest.mark.parametrize("name", SCRIPTS)
def test_modules_come_as_javascript_and_revalidate(client: Any, name: str) -> None:
    """A module runs only if served as JavaScript; a reload asks again and gets a 304."""
    response = client.get(f"/static/{name}")
    assert response.status_code == 200
    assert response.mimetype == "text/javascript"
    etag = response.headers["ETag"]
    response.close()
    again = client.get(f"/static/{name}", headers={"If-None-Match": etag})
    assert again.status_code == 304
    again.close()


@pytest.mark.parametrize(("path", "entry"), [("/", "phone.js"), ("/board", "board.js"),
                                             ("/host", "host.js")])
def test_pages_load_their_module_and_preload_every_import(client: Any, path: str,
                                                          entry: str) -> None:
    html = client.get(path).get_data(as_text=True)
    assert f'<script type="module" src="/static/{entry}">' in html
    preloaded = set(re.findall(r'<link rel="modulepreload" href="/static/([\w/.-]+)">', html))
    assert preloaded == set(pages.modules(entry))
    assert "common/i18n.js" in preloaded
    for name in preloaded:
        assert (STATIC / name).is_file(), name
    # every import of every module is a file that is there (a typo fails here, not on a phone)
    for name in [entry, *preloaded]:
        for target in pages.IMPORT.findall((STATIC / name).read_text("utf-8")):
            assert (STATIC / name).parent.joinpath(target).resolve().is_file(), (name, target)


def test_every_module_is_used_by_a_page() -> None:
    used = {"phone.js", "board.js", "host.js", "missing.js"}
    for entry in ("phone.js", "board.js", "host.js", "missing.js"):
        used |= set(pages.modules(entry))
    assert set(SCRIPTS) == used


def test_board_qr_code_has_alt_text_with_the_join_url(client: Any) -> None:
    html = client.get("/board", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert 'alt="QR-Code: http://10.1.2.3:8000/ öffnen, um mitzuspielen"' in html
