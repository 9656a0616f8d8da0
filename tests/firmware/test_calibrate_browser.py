"""The calibrate page in a real browser: tap spaces on the ring, save, and the board file
has the map (a phone-sized chromium; skipped where Debian's chromium is not installed)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from kalimambo.firmware.calibrate import Calibration, create_calibrate_app
from kalimambo.firmware.hardware import load_hardware_file, parse_hardware
from tests.helpers import free_port

CHROMIUM = "/usr/bin/chromium"
pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs /usr/bin/chromium")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Calibration, Path]]:
    path = tmp_path / "board.toml"
    path.write_text("[track]\nspaces = 8\n# keep this comment\n")
    hardware = parse_hardware({"track": {"spaces": 8}, "strip": {"led_count": 9}})
    session = Calibration(hardware, path, lambda frame: None)
    port = free_port()
    server = make_server("127.0.0.1", port, create_calibrate_app(session), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}/", session, path
    server.shutdown()
    thread.join(timeout=5)


def test_tapping_the_ring_on_a_phone_calibrates_the_board(
        served: tuple[str, Calibration, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    url, session, path = served
    context = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        page: Any = context.new_page()
        page.goto(url)
        prompt = page.locator("#prompt")
        expect(prompt).to_contain_text("LED 0 of 9")
        save = page.locator("#save")
        expect(save).to_be_disabled()
        # LEDs 0..8: space 7 down to 0 (a reversed strip), with LED 4 between spaces.
        taps: list[int | None] = [7, 6, 5, 4, None, 3, 2, 1, 0]
        for led, space in enumerate(taps):
            expect(prompt).to_contain_text(f"LED {led} of 9")
            if space is None:
                page.locator("#none").click()
            else:
                page.locator(f"g.space[aria-label='space {space}']").click()
        expect(prompt).to_contain_text("Save to write the map")
        expect(save).to_be_enabled()
        save.click()
        expect(page.locator("#message")).to_contain_text("Saved to")
    finally:
        context.close()
    hardware = load_hardware_file(path)
    assert hardware.led_count == 9
    assert hardware.layout == ((8,), (7,), (6,), (5,), (3,), (2,), (1,), (0,))
    assert "# keep this comment" in path.read_text()
    assert session.saved


def test_calibrate_page_passes_axe(served: tuple[str, Calibration, Path], browser: Any) -> None:
    from playwright.sync_api import expect

    from tests.browser.play import axe

    url, _session, _path = served
    context = browser.new_context(viewport={"width": 360, "height": 740})
    try:
        page: Any = context.new_page()
        page.goto(url)
        expect(page.locator("#prompt")).to_contain_text("LED 0 of 9")
        found = axe(page, "calibrate")
        page.locator("g.space[aria-label='space 3']").click()
        expect(page.locator("#prompt")).to_contain_text("LED 1 of 9")
        found += axe(page, "calibrate, one LED answered")
    finally:
        context.close()
    assert not found, "\n".join(found)
