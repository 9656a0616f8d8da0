"""The hotspot file setup.sh writes, the Wi-Fi QR text, and the DNS for the phones'
connectivity checks following the Pi's way out."""

from __future__ import annotations

from pathlib import Path

import pytest

from kalimambo.web.system.hotspot import Hotspot, HotspotFileError, escape, read_hotspot
from kalimambo.web.system.portaldns import HOSTS_NAME, PROBE_HOSTS, PortalDns, way_out

# /proc/net/route as the kernel writes it (net/ipv4/fib_trie.c, fib_route_seq_show):
# addresses in hex, in the kernel's (little-endian on a Pi) byte order.
HEADER = ("Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\t"
          "Window\tIRTT\n")
HOTSPOT_NET = "wlan0\t00002A0A\t00000000\t0001\t0\t0\t600\t00FFFFFF\t0\t0\t0\n"  # 10.42.0.0/24
ETH_DEFAULT = "eth0\t00000000\t0202000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"  # via 10.0.2.2
ETH_NET = "eth0\t0002000A\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n"
WLAN_DEFAULT = "wlan0\t00000000\t01002A0A\t0003\t0\t0\t600\t00000000\t0\t0\t0\n"


def test_a_default_route_through_ethernet_is_a_way_out() -> None:
    assert way_out(HEADER + HOTSPOT_NET + ETH_NET + ETH_DEFAULT, "10.42.0.1")


def test_the_hotspot_alone_is_no_way_out() -> None:
    assert not way_out(HEADER + HOTSPOT_NET + ETH_NET, "10.42.0.1")
    assert not way_out(HEADER + HOTSPOT_NET, "10.42.0.1")
    # a default route over the hotspot's own interface leads nowhere new
    assert not way_out(HEADER + HOTSPOT_NET + WLAN_DEFAULT, "10.42.0.1")


def test_broken_route_lines_are_skipped() -> None:
    assert not way_out(HEADER + "eth0\tZZZZ\n" + "eth0\tXYZ0000\t0\t0\t0\t0\t0\tQQ\n",
                       "10.42.0.1")


def test_the_wifi_qr_text_escapes_what_the_format_reserves() -> None:
    assert escape('a;b,c:d"e\\f') == 'a\\;b\\,c\\:d\\"e\\\\f'
    wpa = Hotspot("Kali;mambo", "pass:word", "10.42.0.1", None)
    assert wpa.wifi_qr_text() == "WIFI:T:WPA;S:Kali\\;mambo;P:pass\\:word;;"
    assert Hotspot("Kalimambo", None, "10.42.0.1", None).wifi_qr_text() == \
        "WIFI:T:nopass;S:Kalimambo;;"


def test_the_hotspot_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "hotspot.toml"
    assert read_hotspot(path) is None
    path.write_text('name = "Kalimambo"\npassword = "mambo-table-7"\n'
                    'address = "10.42.0.1"\ndns_dir = "/var/lib/kalimambo-portal"\n')
    assert read_hotspot(path) == Hotspot("Kalimambo", "mambo-table-7", "10.42.0.1",
                                         Path("/var/lib/kalimambo-portal"))
    path.write_text('name = "Open"\npassword = ""\n')
    assert read_hotspot(path) == Hotspot("Open", None, "10.42.0.1", None)


@pytest.mark.parametrize("text, says", [
    ("name = ", "not valid TOML"),
    ('password = "12345678"\n', "needs a name"),
    ('name = "x"\npassword = "short"\n', "8 to 63"),
    ('name = "x"\naddress = "kalimambo.local"\n', "not an IPv4 address"),
    ('name = "x"\ndns_dir = 3\n', "are text"),
])
def test_a_broken_hotspot_file_says_why(tmp_path: Path, text: str, says: str) -> None:
    path = tmp_path / "hotspot.toml"
    path.write_text(text)
    with pytest.raises(HotspotFileError, match=says):
        read_hotspot(path)


def test_the_dns_file_follows_the_way_out(tmp_path: Path) -> None:
    routes, dns_dir = tmp_path / "route", tmp_path / "portal"
    dns_dir.mkdir()
    hosts = dns_dir / HOSTS_NAME
    dns = PortalDns(dns_dir, "10.42.0.1", routes)
    routes.write_text(HEADER + HOTSPOT_NET + ETH_NET)  # no way out: the Pi answers
    assert dns.update() is True
    lines = hosts.read_text().splitlines()
    assert lines == [f"10.42.0.1 {name}" for name in PROBE_HOSTS]
    assert hosts.stat().st_mode & 0o777 == 0o644  # dnsmasq reads it as its own user
    assert [p.name for p in dns_dir.iterdir()] == [HOSTS_NAME]  # no temporary file left
    before = hosts.stat().st_mtime_ns
    assert dns.update() is True and hosts.stat().st_mtime_ns == before  # no rewrite
    routes.write_text(HEADER + HOTSPOT_NET + ETH_NET + ETH_DEFAULT)  # Ethernet came
    assert dns.update() is False and not hosts.exists()
    routes.write_text(HEADER + HOTSPOT_NET)  # it went again
    assert dns.update() is True and hosts.exists()


def test_an_unreadable_routing_table_leaves_the_dns_as_it_is(tmp_path: Path) -> None:
    dns_dir = tmp_path / "portal"
    dns_dir.mkdir()
    (dns_dir / HOSTS_NAME).write_text("10.42.0.1 captive.apple.com\n")
    assert PortalDns(dns_dir, "10.42.0.1", tmp_path / "missing").update() is None
    assert (dns_dir / HOSTS_NAME).exists()
