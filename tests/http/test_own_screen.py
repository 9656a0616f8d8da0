"""The table's own screen (the board page on the Pi's HDMI screen, facing the room) gives
nobody host rights (issue 21, item 3).

- no login without a secret, from anywhere; ``/api/v1/local`` says only whether the
  request comes from the own screen and whether it may show the first host's QR code;
- ``/host-qr.svg`` only on the own screen, only while no host has ever logged in and
  never in booth mode (attract mode on, the default); it carries a first-host code,
  never the host key, and that code logs in only while the same holds;
- the own screen may show the next step in step pacing (``/api/v1/screen/next``), and
  nothing more;
- ``kalimambo host-link`` prints the host link for the first host (or one who lost their
  phone).
The browser side is tests/browser/test_own_screen.py.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from kalimambo.web.http.app import create_app
from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.http.pages import qr_svg
from kalimambo.web.storage.store import DB_NAME, SettingKey
from kalimambo.web.table.hostlogin import FREE_TRIES, is_own_screen
from tests.conftest import PIN
from tests.helpers import assert_refused, kalimambo, wait_for

OWN = {"REMOTE_ADDR": "127.0.0.1"}
AWAY = {"REMOTE_ADDR": "192.168.1.20"}
JOIN_URL = "http://192.0.2.10:8000/"
NAMES = ("Ana", "Ben", "Caro")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def error_code(response: Any) -> tuple[int, str]:
    body = response.json
    assert set(body) == {"error"} and body["error"]["message"], body
    return response.status_code, body["error"]["code"]


def table_of(client: Any) -> Any:
    return client.application.extensions["kalimambo"].table


def booth_off(client: Any) -> None:
    """Attract mode off, set on the table itself: no host logs in for it."""
    table_of(client).settings({"attract": False})


def local(client: Any, where: dict[str, str] = OWN) -> dict[str, Any]:
    answer: dict[str, Any] = client.get("/api/v1/local", environ_base=where).json
    return answer


def first_code(client: Any) -> str:
    code: str = table_of(client).store.setting(SettingKey.FIRST_HOST_CODE)
    return code


def logins(client: Any) -> int:
    return len(table_of(client).store.host_tokens())


# -- the one function ------------------------------------------------------------------
@pytest.mark.parametrize(("address", "own"), [
    ("127.0.0.1", True), ("127.0.1.1", True), ("::1", True), ("10.0.0.2", False),
    ("192.168.1.20", False), ("", False), (None, False), ("not an address", False)])
def test_is_own_screen_is_a_loopback_peer(address: str | None, own: bool) -> None:
    request = SimpleNamespace(remote_addr=address, headers={})
    assert is_own_screen(request) is own


def test_a_forwarded_header_does_not_make_the_own_screen() -> None:
    """No proxy in front of the table yet: a header from the LAN proves nothing."""
    request = SimpleNamespace(remote_addr="192.168.1.20",
                              headers={"X-Forwarded-For": "127.0.0.1", "X-Real-IP": "::1"})
    assert not is_own_screen(request)


# -- no secret, no host ----------------------------------------------------------------
@pytest.mark.parametrize("body", [{}, {"pin": None}, {"pin": ""}, {"key": ""}, {"key": None}])
@pytest.mark.parametrize("where", [OWN, {"REMOTE_ADDR": "::1"}, AWAY])
def test_no_secret_is_400_and_changes_nothing(client: Any, body: dict[str, Any],
                                             where: dict[str, str]) -> None:
    booth_off(client)  # even where the first host's QR code is offered
    assert error_code(client.post("/api/v1/host", json=body, environ_base=where)) == \
        (400, "bad_pin")
    assert logins(client) == 0 and local(client)["host_qr"] is True


def test_the_pin_and_the_key_still_log_in_from_anywhere(client: Any) -> None:
    key = table_of(client).host.key
    for where in (OWN, AWAY):
        for body in ({"pin": PIN}, {"key": key}, {"pin": key}):
            answer = client.post("/api/v1/host", json=body, environ_base=where)
            assert answer.status_code == 200
            assert client.get("/api/v1/host", headers=bearer(answer.json["token"])).json == \
                {"host": True}
    assert error_code(client.post("/api/v1/host", json={"pin": "0000"}, environ_base=AWAY)) \
        == (403, "wrong_pin")


# -- /api/v1/local ---------------------------------------------------------------------
def test_local_never_tells_the_pin_or_the_key(client: Any) -> None:
    key = table_of(client).host.key
    seen = []
    seen.append(client.get("/api/v1/local", environ_base=OWN))  # booth mode (the default)
    booth_off(client)
    seen.append(client.get("/api/v1/local", environ_base=OWN))  # before the first host
    seen.append(client.get("/api/v1/local", environ_base=AWAY))
    client.get("/host-qr.svg", environ_base=OWN)  # the first-host code now exists
    seen.append(client.get("/api/v1/local", environ_base=OWN))
    assert [answer.json for answer in seen] == [
        {"local": True, "host_qr": False}, {"local": True, "host_qr": True},
        {"local": False}, {"local": True, "host_qr": True}]
    for answer in seen:
        text = answer.get_data(as_text=True)
        assert PIN not in text and key not in text and first_code(client) not in text


# -- the first host's QR code ------------------------------------------------------------
def test_the_host_qr_code_is_never_there_in_booth_mode(client: Any) -> None:
    assert table_of(client).current.view["booth"]["attract"] is True  # the default
    answer = client.get("/host-qr.svg", environ_base=OWN)
    assert answer.status_code == 403 and answer.headers["Content-Type"].startswith("text/")
    assert first_code(client) is None  # not even made
    booth_off(client)
    assert client.get("/host-qr.svg", environ_base=AWAY).status_code == 403
    assert client.get("/host-qr.svg", environ_base=OWN).status_code == 200
    table_of(client).settings({"attract": True})
    assert client.get("/host-qr.svg", environ_base=OWN).status_code == 403
    assert local(client)["host_qr"] is False


def test_the_host_qr_code_carries_a_first_host_code_not_the_key(client: Any) -> None:
    booth_off(client)
    answer = client.get("/host-qr.svg", environ_base=OWN)
    assert answer.status_code == 200 and answer.mimetype == "image/svg+xml"
    assert answer.headers["Cache-Control"] == "no-store"
    code = first_code(client)
    key = table_of(client).host.key
    assert len(code) >= 24 and code != key
    svg = answer.get_data(as_text=True)
    assert svg == qr_svg(f"{JOIN_URL}host#key={code}")
    assert svg != qr_svg(f"{JOIN_URL}host#key={key}") and key not in svg and PIN not in svg
    # the same code every time, and after a restart (a screen left open keeps working)
    assert client.get("/host-qr.svg", environ_base=OWN).get_data(as_text=True) == svg


def test_the_first_host_code_logs_in_once_then_the_window_closes_for_good(
        client: Any) -> None:
    booth_off(client)
    client.get("/host-qr.svg", environ_base=OWN)
    code = first_code(client)
    answer = client.post("/api/v1/host", json={"key": code}, environ_base=AWAY)  # a phone
    assert answer.status_code == 200
    assert client.get("/api/v1/host", headers=bearer(answer.json["token"])).status_code == 200
    assert client.get("/host-qr.svg", environ_base=OWN).status_code == 403
    assert local(client) == {"local": True, "host_qr": False}
    for where in (AWAY, OWN):  # a photo of the screen opens nothing now, and says why
        assert error_code(client.post("/api/v1/host", json={"key": code},
                                      environ_base=where)) == (403, "first_host_taken")
    assert logins(client) == 1
    # not counted as wrong PINs: the address that scanned it still gets in with the PIN
    for _ in range(FREE_TRIES + 2):
        client.post("/api/v1/host", json={"pin": code}, environ_base=AWAY)
    assert client.post("/api/v1/host", json={"pin": PIN}, environ_base=AWAY).status_code == 200
    # a restart keeps it closed: host tokens are kept
    data_dir = client.application.extensions["kalimambo.config"].data_dir
    client.application.extensions["kalimambo"].close()
    again = create_app(AppConfig(testing=True, data_dir=Path(data_dir), host_pin=PIN,
                                 runner="inline", join_url=JOIN_URL))
    try:
        other = again.test_client()
        assert other.get("/host-qr.svg", environ_base=OWN).status_code == 403
        assert error_code(other.post("/api/v1/host", json={"key": code},
                                     environ_base=AWAY)) == (403, "first_host_taken")
    finally:
        again.extensions["kalimambo"].close()


def test_any_host_login_closes_the_window(client: Any) -> None:
    booth_off(client)
    client.get("/host-qr.svg", environ_base=OWN)
    code = first_code(client)
    assert client.post("/api/v1/host", json={"pin": PIN}, environ_base=AWAY).status_code == 200
    assert client.get("/host-qr.svg", environ_base=OWN).status_code == 403
    assert error_code(client.post("/api/v1/host", json={"key": code}, environ_base=AWAY)) == \
        (403, "first_host_taken")


def test_the_first_host_code_does_not_log_in_in_booth_mode(client: Any) -> None:
    booth_off(client)
    client.get("/host-qr.svg", environ_base=OWN)
    code = first_code(client)
    table_of(client).settings({"attract": True})  # booth mode since the photo was taken
    assert error_code(client.post("/api/v1/host", json={"key": code}, environ_base=AWAY)) == \
        (403, "first_host_taken")
    assert logins(client) == 0


# -- "Next" from the own screen ----------------------------------------------------------
def playing(client: Any, host: str, pacing: str = "step") -> dict[str, str]:
    """Three seats, a started game and round 1 picked: its playback waits."""
    client.post("/api/v1/host/settings", json={"pacing": pacing}, headers=bearer(host))
    tokens = {name: client.post("/api/v1/join", json={"name": name}).json["token"]
              for name in NAMES}
    assert client.post("/api/v1/host/start", json={}, headers=bearer(host)).status_code == 200
    for index, name in enumerate(NAMES):
        hand = client.get("/api/v1/me", headers=bearer(tokens[name])).json["me"]["hand"]
        client.post("/api/v1/pick", json={"round": 1, "card": hand[index]},
                    headers=bearer(tokens[name]))
    assert table_of(client).current.view["phase"] == "playing"
    return tokens


def step(client: Any) -> int:
    shown: int = table_of(client).current.view["playback"]["step"]
    return shown


def test_the_own_screen_shows_the_next_step_in_step_pacing(client: Any,
                                                           host_token: str) -> None:
    playing(client, host_token)
    assert step(client) == 0
    answer = client.post("/api/v1/screen/next", environ_base=OWN)
    assert answer.status_code == 200 and answer.json["step"] == 1 == step(client)
    assert client.post("/api/v1/screen/next", json={}, environ_base=OWN).json["step"] == 2
    # elsewhere only a host may (any pacing, as /host/next)
    assert error_code(client.post("/api/v1/screen/next", environ_base=AWAY)) == \
        (403, "own_screen_only")
    assert step(client) == 2
    answer = client.post("/api/v1/screen/next", headers=bearer(host_token), environ_base=AWAY)
    assert answer.status_code == 200 and step(client) == 3
    assert error_code(client.post("/api/v1/screen/next", headers=bearer("not-a-host"),
                                  environ_base=OWN)) == (403, "host_only")
    assert step(client) == 3


def test_the_own_screen_cannot_hurry_auto_pacing_or_play_what_is_not_there(
        client: Any, host_token: str) -> None:
    assert error_code(client.post("/api/v1/screen/next", environ_base=OWN)) == \
        (409, "not_playing")
    # the longest pause: after the reveal the next step is 10 s away
    client.post("/api/v1/host/settings", json={"pause_ms": 10000},
                headers=bearer(host_token))
    playing(client, host_token, pacing="auto")
    assert wait_for(lambda: step(client) >= 1)
    before = step(client)
    assert error_code(client.post("/api/v1/screen/next", environ_base=OWN)) == \
        (409, "not_step")
    assert step(client) == before


@pytest.mark.parametrize(("path", "body"), [
    ("/host/undo", {}), ("/host/new", {"keep_seats": False}), ("/host/remove", {"name": "Ana"}),
    ("/host/skip", {}), ("/host/next", {}), ("/host/settings", {"pacing": "auto"}),
    ("/host/replay/stop", {}), ("/host/bots", {"count": 1})])
def test_the_own_screen_has_no_host_rights(client: Any, host_token: str, path: str,
                                          body: dict[str, Any]) -> None:
    playing(client, host_token)
    before = table_of(client).current.view_json
    assert error_code(client.post(f"/api/v1{path}", json=body, environ_base=OWN)) == \
        (401, "host_only")
    assert table_of(client).current.view_json == before


# -- kalimambo host-link -----------------------------------------------------------------
def test_host_link_prints_the_link_that_logs_in(client: Any) -> None:
    data_dir = client.application.extensions["kalimambo.config"].data_dir
    key = table_of(client).host.key
    done = kalimambo("host-link", "--data-dir", data_dir, "--port", "80")
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("Host link (opens the host page, logged in): http://")
    assert first.endswith(f"/host#key={key}") and ":80/" not in first
    assert "█" in done.stdout or "▀" in done.stdout  # its QR code, for a phone to scan
    link_key = first.rsplit("#key=", 1)[1]
    assert client.post("/api/v1/host", json={"key": link_key},
                       environ_base=AWAY).status_code == 200
    quiet = kalimambo("host-link", "--data-dir", data_dir, "--no-qr")
    assert quiet.returncode == 0 and ":8000/host#key=" in quiet.stdout
    assert "█" not in quiet.stdout and "▀" not in quiet.stdout


def test_host_link_only_reads(tmp_path: Path) -> None:
    assert_refused(kalimambo("host-link", "--data-dir", str(tmp_path / "none")),
                   "no table has run there yet")
    store = tmp_path / "empty" / DB_NAME
    store.parent.mkdir()
    db = sqlite3.connect(store)
    db.execute("CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.commit()
    db.close()
    before = sorted(p.name for p in store.parent.iterdir())
    assert_refused(kalimambo("host-link", "--data-dir", str(store.parent)), "no host key yet")
    assert sorted(p.name for p in store.parent.iterdir()) == before  # no key made
    broken = tmp_path / "broken" / DB_NAME
    broken.parent.mkdir()
    broken.write_text("not a database")
    assert_refused(kalimambo("host-link", "--data-dir", str(broken.parent)),
                   "cannot read the host key")
    assert_refused(kalimambo("host-link", "--port", "0"), "--port 0")
