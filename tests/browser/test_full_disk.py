"""A full disk, as the host sees it: the host page says the game goes on in memory, and
the warning goes by itself once there is room again (the table writes it all back)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.browser.conftest import PHONE
from tests.browser.play import WAIT_MS
from tests.conftest import ROOT, ServerProcess, http
from tests.http.test_attacks import fill, tmpfs


def test_the_host_page_says_the_game_goes_on_in_memory(browser: Any, tmp_path: Path) -> None:
    words = json.loads((ROOT / "web/i18n/en.json").read_text())
    with tmpfs(tmp_path / "small", "8m") as mount:
        server = ServerProcess(mount / "data")
        server.log = tmp_path / "server.log"  # the log must not need the full disk
        server.start()
        context = browser.new_context(viewport=PHONE, locale="en-US")
        try:
            host_page = context.new_page()
            host_page.goto(f"{server.url}/host")
            host_page.fill("#pin", str(server.pin))
            host_page.click("#login-form button[type=submit]")
            host_page.wait_for_selector("#console", timeout=WAIT_MS)
            assert host_page.locator("#storage-warning").is_hidden()
            for name in ("Ana", "Ben"):
                assert http("POST", f"{server.url}/api/v1/join", {"name": name})[0] == 201
            host = http("POST", f"{server.url}/api/v1/host", {"pin": server.pin})[1]["token"]
            filler = fill(mount)
            for i in range(400):  # the WAL grows until the disk refuses a page
                status, _ = http("POST", f"{server.url}/api/v1/host/settings",
                                 {"pause_ms": 500 + 100 * (i % 2)}, token=host)
                assert status == 200
                if http("GET", f"{server.url}/api/v1/state")[1]["storage"]["in_memory"]:
                    break
            warning = host_page.locator("#storage-warning")
            warning.wait_for(state="visible", timeout=WAIT_MS)
            assert warning.inner_text() == words["host.storage_memory"]
            assert http("POST", f"{server.url}/api/v1/join", {"name": "Caro"})[0] == 201
            filler.unlink()
            warning.wait_for(state="hidden", timeout=60_000)  # the clock tries every 10 s
            assert http("GET", f"{server.url}/api/v1/state")[1]["storage"]["ok"] is True
        finally:
            context.close()
            server.kill()
