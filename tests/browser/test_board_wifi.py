"""The board page at a hotspot: the Wi-Fi's QR code beside the table's, both read back
by zbarimg from Chromium's screenshot (as a phone camera reads the TV), the name and the
password written under the first, and the lobby still fitting each screen (a TV cannot
scroll) with seven seats taken."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Server
from tests.browser.test_board_fits import OUTSIDE_JS, SCREENS, size_name

pytestmark = pytest.mark.browser

NAME, PASSWORD = "Kalimambo; booth 3", "mambo:table,7"
WIFI = "WIFI:T:WPA;S:Kalimambo\\; booth 3;P:mambo\\:table\\,7;;"


@pytest.mark.skipif(shutil.which("zbarimg") is None,
                    reason="needs zbar-tools (./setup.sh --dev)")
def test_the_lobby_shows_both_codes_and_fits(tmp_path: Path, start_server: Any,
                                             browser: Any, artifacts: Path) -> None:
    hotspot = tmp_path / "hotspot.toml"
    hotspot.write_text(f'name = "{NAME}"\npassword = "{PASSWORD}"\naddress = "10.42.0.1"\n')
    server: Server = start_server(extra=("--hotspot-file", str(hotspot)))
    host = server.host_token()
    server.call("POST", "/host/settings", {"attract": False}, host)
    for name in ("Maximiliana Grünwald", "Anna", "Ben", "Zoë"):
        server.call("POST", "/join", {"name": name})
    server.call("POST", "/host/bots", {"count": 3, "level": "random"}, host)
    problems: dict[str, list[str]] = {}
    for size in SCREENS:
        context = browser.new_context(viewport=size, locale="en-US")
        try:
            page = context.new_page()
            page.goto(f"{server.url}/board")
            page.wait_for_function("() => document.querySelectorAll('#scores tbody tr')"
                                   ".length === 7 && document.getElementById('wifi-qr')"
                                   ".complete && document.getElementById('qr').complete")
            page.wait_for_function("() => document.getAnimations().length === 0")
            assert page.inner_text("#wifi-name") == NAME
            assert page.inner_text("#wifi-password") == PASSWORD
            # the caption says which of the two codes comes first
            assert page.inner_text("#narration").startswith("Scan code 1 for the Wi-Fi")
            shot = artifacts / f"board-wifi-{size_name(size)}.png"
            page.screenshot(path=str(shot))
            outside = page.evaluate(f"() => ({OUTSIDE_JS})()")
            if outside:
                problems[size_name(size)] = outside
        finally:
            context.close()
        read = subprocess.run(["zbarimg", "--raw", "-q", str(shot)], capture_output=True,
                              text=True, check=False).stdout.splitlines()
        assert sorted(read) == sorted([WIFI, server.state()["join_url"]]), (size, read)
    assert problems == {}
