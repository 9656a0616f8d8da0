"""The pages (phone, board, host): a blueprint the app factory registers.

The pages are static HTML plus JavaScript modules (no build step) that talk to
``/api/v1``; the server only fills in the translations, lists each page's modules for
preloading, and draws the join QR code, so the phones never need anything from the
internet.

A page brings the messages of one language only (issue 36: all four were half of a
phone's first load): the player's choice, which the page's language switch keeps in
localStorage and in the ``lang`` cookie for the server (``page_lang``), else the best
match for the browser's ``Accept-Language``, else English.  The switch fetches
another language from ``/i18n/<lang>.json`` once (ETag, revalidated) and keeps it; a
choice stored before the cookie existed is fetched the same way before the page
draws (common/i18n.js), so the page never shows a message key.  Every language's
own name comes with the page too, for the switch.
"""

from __future__ import annotations

import hashlib
import io
import json
import posixpath
import re
from functools import cache
from pathlib import Path
from typing import Any

import segno
from flask import Blueprint, Response, abort, current_app, render_template, request

from kalimambo.engine.players import DEFAULT_LEVEL, LEVELS
from kalimambo.web.core.seats import NAME_MAX
from kalimambo.web.http.api import hub
from kalimambo.web.system.tablefile import TableSettings

WEB_DIR = Path(__file__).parents[1]
"""web/: the pages' templates/, static/ and i18n/ stay at its top, beside the rooms."""
TEMPLATES_DIR = WEB_DIR / "templates"
I18N_DIR = WEB_DIR / "i18n"
STATIC_DIR = WEB_DIR / "static"

bp = Blueprint("pages", __name__, template_folder=TEMPLATES_DIR, static_folder=STATIC_DIR,
               static_url_path="/static")
IMPORT = re.compile(r'^import\s[^;]*?\bfrom\s+"(\.{1,2}/[^"]+)";', re.MULTILINE)
LANGUAGES = ("en", "de", "fr", "it")
LANG_COOKIE = "lang"
"""Set by the language switch (common/i18n.js): the language a page is sent in."""
FALLBACK_JOIN_URL = "http://kalimambo.local/"


@cache
def messages() -> dict[str, dict[str, str]]:
    """Every language's messages, read once (they ship with the code)."""
    return {lang: json.loads((I18N_DIR / f"{lang}.json").read_text(encoding="utf-8"))
            for lang in LANGUAGES}


def script_json(value: Any) -> str:
    """``value`` as JSON safe to put inside a ``<script>`` element."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@cache
def messages_json(lang: str) -> str:
    """One language's messages for a page: ``{"<lang>": {key: text}}`` (the shape
    common/i18n.js keeps every language it has in)."""
    return script_json({lang: messages()[lang]})


@cache
def language_names_json() -> str:
    """Each language's name in itself (``lang.name``), for the switch on the page."""
    return script_json({lang: messages()[lang]["lang.name"] for lang in LANGUAGES})


@cache
def language_file(lang: str) -> tuple[bytes, str]:
    """``/i18n/<lang>.json``'s body and ETag (the messages ship with the code)."""
    body = json.dumps(messages()[lang], ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")
    return body, hashlib.sha256(body).hexdigest()[:20]


def page_lang() -> str:
    """The language a page is sent in: the ``lang`` cookie the switch sets, else the
    best match for ``Accept-Language``, else English."""
    chosen = request.cookies.get(LANG_COOKIE)
    if chosen in LANGUAGES:
        return chosen
    table = table_settings()
    if table is not None and table.language in LANGUAGES:
        return table.language  # a card's kalimambo.toml: the hall's language
    return request.accept_languages.best_match(LANGUAGES) or "en"


def table_settings() -> TableSettings | None:
    """What a card says of its table (web/system/tablefile.py), or None."""
    found = current_app.extensions.get("kalimambo.table")
    return found if isinstance(found, TableSettings) else None


@cache
def modules(entry: str) -> tuple[str, ...]:
    """Every module ``entry`` (a path under static/) imports, directly or not.

    The page lists them as ``<link rel="modulepreload">``, so a phone on a weak
    hotspot fetches them side by side instead of one level of imports per round trip.
    """
    found: set[str] = set()
    todo = [entry]
    while todo:
        name = todo.pop()
        text = (STATIC_DIR / name).read_text(encoding="utf-8")
        for target in IMPORT.findall(text):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
            if path not in found:
                found.add(path)
                todo.append(path)
    return tuple(sorted(found))


def _page(template: str, page: str, script: str, *, conditional: bool = True,
          **context: Any) -> Response:
    """A page in the language ``page_lang`` picks; ``conditional``: with an ETag of its
    content, so a reload of an unchanged page is a 304 (it is still asked for each time:
    it names the modules and the language)."""
    lang = page_lang()
    html = render_template(template, page=page, lang=lang, messages=messages_json(lang),
                           languages=language_names_json(),
                           title=messages()[lang].get(f"{page}.title", "Kalimambo"),
                           script=script, modules=modules(script), **context)
    response = Response(html, mimetype="text/html")
    response.headers["Cache-Control"] = "no-cache"
    response.vary.update(("Accept-Language", "Cookie"))
    if not conditional:
        return response
    response.add_etag()
    response.make_conditional(request)  # a 304 for the ETag the client has
    return response


@bp.get("/")
def phone() -> Response:
    """The phone: join, pick a card, see what the round did to you."""
    return _page("phone.html", "app", "phone.js", name_max=NAME_MAX)


@bp.get("/board")
def board() -> Response:
    """The board for a TV: the ring, the events one by one, the scores."""
    lang = page_lang()
    qr_alt = messages()[lang]["board.qr_alt"].replace("{url}", join_url())
    hotspot = current_app.extensions.get("kalimambo.hotspot")
    wifi_qr_alt = messages()[lang]["board.wifi_qr_alt"].replace(
        "{name}", hotspot.name if hotspot is not None else "")
    table = table_settings()
    return _page("board.html", "board", "board.js", qr_alt=qr_alt, hotspot=hotspot,
                 wifi_qr_alt=wifi_qr_alt, table_name=table.name if table else None)


@bp.get("/host")
def host() -> Response:
    """The host's controls: start, seats, computer players, undo, lights."""
    table = table_settings()
    return _page("host.html", "host", "host.js", levels=LEVELS, default_level=DEFAULT_LEVEL,
                 name_max=NAME_MAX, has_pin=hub().table.has_host_pin,
                 card_problems=table.problems if table else ())


@bp.get("/i18n/<lang>.json")
def language(lang: str) -> Response:
    """One language's messages, for the switch on a page (common/i18n.js)."""
    if lang not in LANGUAGES:
        abort(404)
    body, etag = language_file(lang)
    response = Response(body, mimetype="application/json")
    response.headers["Cache-Control"] = "no-cache"
    response.set_etag(etag)
    response.make_conditional(request)  # a 304 for the ETag the client has
    return response


PAGES = ("/board", "/host")
"""The pages an address differently written (``/board/``, ``/Board``) leads to."""


def missing(path: str) -> Response:
    """A page's address that does not exist: the same page written differently
    (``/board/``, ``/Board``) leads there; anything else gets the table's own page,
    404, with the way to the phone, board and host pages."""
    page = path.rstrip("/").lower()
    if page in PAGES and request.method in ("GET", "HEAD"):
        query = request.query_string.decode("latin-1")
        return Response(status=308, headers={"Location": page + (f"?{query}" if query
                                                                  else "")})
    response = _page("missing.html", "missing", "missing.js", conditional=False, path=path)
    response.status_code = 404
    return response


@bp.after_request
def _modules_are_javascript(response: Response) -> Response:
    """Browsers run a module only if it comes as JavaScript, whatever the system's MIME
    table says about ``.js`` (some map it to text/plain)."""
    if request.endpoint == "pages.static" and request.path.endswith(".js"):
        response.mimetype = "text/javascript"
    return response


def join_url() -> str:
    """The address phones should open, asked of the table each time.

    The table looks it up (the Pi's LAN address or kalimambo.local, never
    localhost) and refreshes it as the network changes; without an address,
    kalimambo.local is the safe answer.
    """
    url = hub().table.join_url()
    return url if isinstance(url, str) and url else FALLBACK_JOIN_URL


def qr_svg(url: str) -> str:
    """A QR code for ``url`` as an SVG (dark on light, so every phone camera reads it)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", scale=8, border=2, dark="#000",
                                    light="#fff", xmldecl=False, omitsize=True,
                                    svgclass="qr")
    return out.getvalue().decode("ascii")


@bp.get("/qr.svg")
def qr() -> Response:
    """The join QR code, drawn on the server (no script and no CDN on the board)."""
    response = Response(qr_svg(join_url()), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/host-qr.svg")
def host_qr() -> Response:
    """The first host's way in, as a QR code: only for the table's own screen, only while
    no host has ever logged in, and never in booth mode (``HostAuth.first_host_open``).
    It carries the first-host code, never the host key, so it opens nothing once a host
    is in.  Else 403."""
    from kalimambo.web.storage.store import StorageError
    from kalimambo.web.table.hostlogin import is_own_screen

    table = hub().table
    if not is_own_screen(request) or not table.first_host_open():
        return Response("Only on the table's own screen, before the first host logs in, "
                        "and never in booth mode.", status=403, mimetype="text/plain")
    try:
        code = table.first_host_code()
    except StorageError:
        return Response("The table cannot save its first-host code.", status=503,
                        mimetype="text/plain")
    response = Response(qr_svg(f"{join_url()}host#key={code}"), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "no-store"
    return response
