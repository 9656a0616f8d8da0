"""gzip and caching without a browser (issue 36, web/http/compress.py): text over 1 KB is
gzipped for a client that accepts it, a static file once; revalidation still answers
304; the event stream is never compressed; a page brings one language, another comes
from /i18n/<lang>.json.  tests/browser/test_page_weight.py measures the bytes in Chromium.
"""

from __future__ import annotations

import gzip
import json
import re
from typing import Any

import pytest

from kalimambo.web.http import compress, pages

GZIP = {"Accept-Encoding": "gzip, deflate, br"}
STATIC = pages.STATIC_DIR


def messages_in(html: str) -> dict[str, Any]:
    block = re.search(r'<script type="application/json" id="messages">(.*?)</script>',
                      html, re.S)
    assert block is not None
    found: dict[str, Any] = json.loads(block.group(1))
    return found


def test_a_module_is_gzipped_once_and_revalidates(client: Any,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = gzip.compress

    def counted(data: bytes, *args: Any, **kwargs: Any) -> bytes:
        calls.append(len(data))
        return real(data, *args, **kwargs)

    monkeypatch.setattr(compress.gzip, "compress", counted)
    raw = (STATIC / "common" / "i18n.js").read_bytes()
    etags = set()
    for _ in range(3):
        response = client.get("/static/common/i18n.js", headers=GZIP)
        assert response.status_code == 200
        assert response.headers["Content-Encoding"] == "gzip"
        assert "Accept-Encoding" in response.headers["Vary"]
        assert response.headers["Cache-Control"] == "no-cache"
        assert response.mimetype == "text/javascript"
        assert gzip.decompress(response.data) == raw
        assert int(response.headers["Content-Length"]) == len(response.data) < len(raw) / 2
        etags.add(response.headers["ETag"])
        response.close()
    assert calls == [len(raw)]  # compressed for the first phone only
    (etag,) = etags
    assert etag.endswith('-gzip"')

    again = client.get("/static/common/i18n.js", headers={**GZIP, "If-None-Match": etag})
    assert again.status_code == 304
    assert again.data == b""
    assert again.headers["ETag"] == etag
    assert "Accept-Encoding" in again.headers["Vary"]
    again.close()


def test_without_gzip_the_file_comes_as_it_is_and_revalidates(client: Any) -> None:
    raw = (STATIC / "style.css").read_bytes()
    response = client.get("/static/style.css")
    assert "Content-Encoding" not in response.headers
    assert "Accept-Encoding" in response.headers["Vary"]
    assert response.data == raw
    etag = response.headers["ETag"]
    assert not etag.endswith('-gzip"')
    response.close()
    again = client.get("/static/style.css", headers={"If-None-Match": etag})
    assert again.status_code == 304
    again.close()
    # the gzip's ETag is another representation's: no 304 for a client without gzip
    zipped = client.get("/static/style.css", headers=GZIP)
    other = client.get("/static/style.css", headers={"If-None-Match": zipped.headers["ETag"]})
    zipped.close()
    assert other.status_code == 200 and other.data == raw
    other.close()


def test_small_files_and_ranges_are_sent_as_they_are(client: Any) -> None:
    icon = client.get("/static/icon.svg", headers=GZIP)  # 261 bytes
    assert "Content-Encoding" not in icon.headers
    assert icon.data == (STATIC / "icon.svg").read_bytes()
    icon.close()
    part = client.get("/static/phone.js", headers={**GZIP, "Range": "bytes=0-9"})
    assert part.status_code == 206
    assert "Content-Encoding" not in part.headers
    assert part.data == (STATIC / "phone.js").read_bytes()[:10]
    part.close()


def test_the_cache_keeps_one_version_of_each_file() -> None:
    cache = compress.StaticCache()
    body = b"let x = 1;\n" * 200
    packed = cache.put("/static/a.js", "1-2200-9", body)
    assert packed is not None and gzip.decompress(packed) == body
    assert cache.get("/static/a.js", "1-2200-9") == (True, packed)
    assert cache.get("/static/a.js", "2-2200-9") == (False, None)  # changed on disk
    assert cache.put("/static/b.bin", "1-1100-3", bytes(range(256)) * 4 + b"x" * 76) in (
        None, cache.get("/static/b.bin", "1-1100-3")[1])


def test_the_page_is_gzipped_in_one_language_and_revalidates(client: Any) -> None:
    response = client.get("/", headers={**GZIP, "Accept-Language": "de-CH, de;q=0.9"})
    assert response.status_code == 200
    assert response.headers["Content-Encoding"] == "gzip"
    assert set(response.vary.as_set()) >= {"accept-encoding", "accept-language", "cookie"}
    html = gzip.decompress(response.data).decode("utf-8")
    assert '<html lang="de"' in html
    assert list(messages_in(html)) == ["de"]
    assert len(response.data) < 12 * 1024  # was 78 KB with all four languages, as it is
    etag = response.headers["ETag"]
    assert etag.startswith("W/")  # the gzip of the same page
    again = client.get("/", headers={**GZIP, "Accept-Language": "de-CH, de;q=0.9",
                                     "If-None-Match": etag})
    assert again.status_code == 304 and again.data == b""
    other = client.get("/", headers={**GZIP, "Accept-Language": "it", "If-None-Match": etag})
    assert other.status_code == 200  # another language is another page


def test_the_switchs_cookie_chooses_the_pages_language(client: Any) -> None:
    client.set_cookie("lang", "it")
    for path in ("/", "/board", "/host", "/nope"):
        html = client.get(path, headers={"Accept-Language": "de"}).get_data(as_text=True)
        assert '<html lang="it"' in html, path
        assert list(messages_in(html)) == ["it"], path
    client.set_cookie("lang", "xx")  # not a language of the table: the browser's
    html = client.get("/", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert list(messages_in(html)) == ["de"]


def test_a_language_comes_on_its_own_with_an_etag(client: Any) -> None:
    english = json.loads((pages.I18N_DIR / "en.json").read_text("utf-8"))
    response = client.get("/i18n/en.json", headers=GZIP)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.headers["Content-Encoding"] == "gzip"
    assert response.headers["Cache-Control"] == "no-cache"
    assert json.loads(gzip.decompress(response.data)) == english
    again = client.get("/i18n/en.json", headers={**GZIP,
                                                 "If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304
    assert client.get("/i18n/en.json").get_json() == english
    for wrong in ("/i18n/xx.json", "/i18n/../en.json", "/i18n/EN.json"):
        assert client.get(wrong).status_code == 404, wrong


def test_api_json_over_1_kb_is_gzipped(client: Any) -> None:
    plain = client.get("/api/v1/openapi.json")
    assert len(plain.data) > compress.MIN_SIZE
    zipped = client.get("/api/v1/openapi.json", headers=GZIP)
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()


def test_the_event_stream_is_never_compressed_nor_buffered(client: Any) -> None:
    response = client.get("/api/v1/events", headers=GZIP, buffered=False)
    try:
        assert response.status_code == 200
        assert response.mimetype == "text/event-stream"
        assert "Content-Encoding" not in response.headers
        assert "Content-Length" not in response.headers
        assert "Accept-Encoding" not in response.headers.get("Vary", "")
        first = next(iter(response.response))  # the first message comes at once, as text
        assert b"data: " in first
    finally:
        response.close()
