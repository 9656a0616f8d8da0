"""The hotspot's connectivity checks, the welcome page and the Wi-Fi's QR code, through
the app: each system's "sign in here" until the phone has opened the table, then its
"online" answer, for that phone only, kept across a new address and a restart."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kalimambo.web.http.appconfig import AppConfig
from kalimambo.web.http.portal import APPLE_SUCCESS
from kalimambo.web.system.hotspot import Hotspot

PHONE = "10.42.0.57"
OTHER_PHONE = "10.42.0.58"
MAC = "da:a1:19:3c:5e:01"
BOOTH = Hotspot("Kalimambo", "mambo-table-7", "10.42.0.1", None)
# /proc/net/arp as the kernel writes it (net/ipv4/arp.c, arp_seq_show)
ARP_HEADER = ("IP address       HW type     Flags       HW address            Mask     "
              "Device\n")


def arp_line(ip: str, mac: str) -> str:
    return f"{ip:<17}0x1         0x2         {mac}     *        wlan0\n"


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator[Any]:
    from kalimambo.web.http.app import create_app

    made: list[Any] = []
    (tmp_path / "arp").write_text(ARP_HEADER + arp_line(PHONE, MAC))

    def make(hotspot: Hotspot | None = BOOTH) -> Any:
        app = create_app(AppConfig(testing=True, data_dir=tmp_path / "data", runner="inline",
                                   port=80, hotspot=hotspot, arp_file=tmp_path / "arp",
                                   join_url="http://10.42.0.1/"))
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["kalimambo"].close()


CHECKS = [  # host, path, the "online" answer: status and body
    ("connectivitycheck.gstatic.com", "/generate_204", 204, b""),
    ("www.google.com", "/gen_204", 204, b""),
    ("play.googleapis.com", "/generate_204", 204, b""),
    ("captive.apple.com", "/hotspot-detect.html", 200, APPLE_SUCCESS.encode()),
    ("www.apple.com", "/library/test/success.html", 200, APPLE_SUCCESS.encode()),
    ("www.msftconnecttest.com", "/connecttest.txt", 200, b"Microsoft Connect Test"),
    ("www.msftncsi.com", "/ncsi.txt", 200, b"Microsoft NCSI"),
    ("detectportal.firefox.com", "/success.txt", 200, b"success\n"),
]


def check(client: Any, host: str, path: str, ip: str = PHONE) -> Any:
    return client.get(path, headers={"Host": host}, environ_base={"REMOTE_ADDR": ip})


@pytest.mark.parametrize("host, path, status, body", CHECKS)
def test_each_check_signs_in_then_is_online(make_app: Any, host: str, path: str,
                                            status: int, body: bytes) -> None:
    client = make_app().test_client()
    before = check(client, host, path)
    assert before.status_code == 302
    assert before.headers["Location"] == "http://10.42.0.1/welcome"
    assert before.headers["Cache-Control"] == "no-store"
    page = client.get("/welcome", environ_base={"REMOTE_ADDR": PHONE})
    assert page.status_code == 200 and b'action="/welcome"' in page.data
    assert check(client, host, path).status_code == 302  # seeing the page lets nothing through
    done = client.post("/welcome", environ_base={"REMOTE_ADDR": PHONE})
    assert done.status_code == 200 and b"http://10.42.0.1/" in done.data
    after = check(client, host, path)
    assert (after.status_code, after.data) == (status, body)
    assert check(client, host, path, OTHER_PHONE).status_code == 302  # that phone only


def test_opening_the_phone_page_lets_the_phone_through(make_app: Any) -> None:
    client = make_app().test_client()
    assert check(client, "captive.apple.com", "/hotspot-detect.html").status_code == 302
    assert client.get("/", environ_base={"REMOTE_ADDR": PHONE}).status_code == 200
    assert check(client, "captive.apple.com", "/hotspot-detect.html").data == \
        APPLE_SUCCESS.encode()


def test_a_phone_outside_the_hotspot_is_not_let_through_by_the_page(make_app: Any) -> None:
    client = make_app().test_client()
    client.get("/", environ_base={"REMOTE_ADDR": "192.168.1.20"})
    assert check(client, "captive.apple.com", "/", "192.168.1.20").status_code == 302


def test_a_new_address_and_a_restart_keep_the_phone_through(make_app: Any,
                                                           tmp_path: Path) -> None:
    app = make_app()
    app.test_client().post("/welcome", environ_base={"REMOTE_ADDR": PHONE})
    app.extensions["kalimambo"].close()
    # the phone's new DHCP lease gave it another address; its Wi-Fi address is the same
    (tmp_path / "arp").write_text(ARP_HEADER + arp_line("10.42.0.99", MAC))
    client = make_app().test_client()  # the table restarted on the same data dir
    assert check(client, "connectivitycheck.gstatic.com", "/generate_204",
                 "10.42.0.99").status_code == 204
    assert check(client, "connectivitycheck.gstatic.com", "/generate_204",
                 PHONE).status_code == 302  # that address now belongs to no known phone


def test_other_paths_on_a_check_host_lead_to_the_welcome_page(make_app: Any) -> None:
    client = make_app().test_client()
    client.post("/welcome", environ_base={"REMOTE_ADDR": PHONE})
    answer = check(client, "connectivitycheck.gstatic.com", "/some/page")
    assert answer.status_code == 302  # only generate_204 says "online" on Android's hosts


def test_the_welcome_page_speaks_the_phones_language(make_app: Any) -> None:
    client = make_app().test_client()
    page = client.get("/welcome", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert '<html lang="de">' in page.text and "Weiter zum Tisch" in page.text
    assert "<script" not in page.text  # a sign-in window may run none


def test_without_a_hotspot_the_table_answers_no_check(make_app: Any) -> None:
    client = make_app(hotspot=None).test_client()
    assert check(client, "captive.apple.com", "/hotspot-detect.html").status_code == 404
    assert client.get("/welcome").status_code == 404
    assert client.get("/wifi-qr.svg").status_code == 404
    board = client.get("/board").text
    assert 'id="wifi-box"' not in board and 'data-i18n="board.join"' in board


def test_the_board_shows_the_wifi_as_a_guest_network_would(make_app: Any) -> None:
    board = make_app().test_client().get("/board").text
    assert 'id="wifi-name">Kalimambo<' in board
    assert 'id="wifi-password">mambo-table-7<' in board
    assert 'src="/wifi-qr.svg"' in board
    open_board = make_app(Hotspot("Open table", None, "10.42.0.1", None)).test_client()
    text = open_board.get("/board").text
    assert 'id="wifi-password"' not in text and 'data-i18n="board.wifi_open"' in text


@pytest.mark.skipif(shutil.which("zbarimg") is None or shutil.which("rsvg-convert") is None,
                    reason="needs zbar-tools and librsvg2-bin (./setup.sh --dev)")
def test_the_wifi_qr_code_reads_back(make_app: Any, tmp_path: Path) -> None:
    hotspot = Hotspot("Kali;mambo", "pass:word,7", "10.42.0.1", None)
    svg = make_app(hotspot).test_client().get("/wifi-qr.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    (tmp_path / "wifi.svg").write_bytes(svg.data)
    subprocess.run(["rsvg-convert", "-o", str(tmp_path / "wifi.png"),
                    str(tmp_path / "wifi.svg")], check=True)
    read = subprocess.run(["zbarimg", "--raw", "-q", str(tmp_path / "wifi.png")],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert read == "WIFI:T:WPA;S:Kali\\;mambo;P:pass\\:word\\,7;;"
