"""WebKit for the browser tests: WebKitGTK's MiniBrowser through Debian's WebKitWebDriver
(Selenium), under an Xvfb the fixture starts; every iPhone browser is WebKit.

``WebKitPage`` answers the few Playwright page calls the helpers in play.py make (goto,
fill, click, wait_for_selector, wait_for_function, text_content, eval_on_selector_all,
is_visible, reload, screenshot, evaluate), so the same helpers drive a WebKit phone.
Nothing is downloaded: the driver's path is given and Selenium Manager is kept offline.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER_GLOB = "/usr/lib/*/webkit2gtk-4.1/MiniBrowser"
PHONE = {"width": 390, "height": 844}
"""The size asked for (an iPhone 12-15); MiniBrowser's window is at least 447 px wide."""

VISIBLE_JS = """
const node = document.querySelector(arguments[0]);
return !!node && node.getClientRects().length > 0
  && getComputedStyle(node).visibility !== 'hidden';
"""

RECT_JS = """
const node = document.querySelector(arguments[0]);
if (!node) return null;
node.scrollIntoView({block: 'nearest'});
const r = node.getBoundingClientRect();
const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
return hit && (hit === node || node.contains(hit)) ? [r.left, r.top, r.width, r.height] : null;
"""

BUTTON_JS = """
const [pattern, flags] = arguments;
const name = new RegExp(pattern, flags);
for (const node of document.querySelectorAll('button, [role=button], a[href]')) {
  const label = (node.getAttribute('aria-label') || node.textContent || '').trim();
  if (name.test(label) && node.getClientRects().length > 0 && !node.disabled) return node;
}
return null;
"""


def minibrowser() -> str | None:
    found = sorted(glob.glob(MINIBROWSER_GLOB))
    return found[0] if found else None


def missing() -> str | None:
    """What WebKit needs that this machine lacks, or None."""
    for tool in (DRIVER, minibrowser(), shutil.which("Xvfb")):
        if not tool or not Path(tool).exists():
            return ("WebKit is not installed (setup.sh --dev installs webkit2gtk-driver "
                    "and xvfb from Debian)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is missing (the dev extra: setup.sh --dev)"
    return None


@contextlib.contextmanager
def xvfb() -> Iterator[str]:
    """An Xvfb on a display of its own choosing (-displayfd), stopped at the end."""
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1920x1080x24",
                             "-nolisten", "tcp"], pass_fds=(write,),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    try:
        if not number:
            raise RuntimeError("Xvfb did not start")
        yield f":{number}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def open_webkit(display: str, width: int, height: int) -> Any:
    """A new MiniBrowser session (its own process and cookies/storage: one phone)."""
    os.environ["SE_OFFLINE"] = "true"   # Selenium Manager never goes to the network
    from selenium import webdriver
    from selenium.webdriver.webkitgtk.options import Options
    from selenium.webdriver.webkitgtk.service import Service

    options = Options()
    options.binary_location = minibrowser() or ""
    options.add_argument("--automation")
    options.add_argument(f"--geometry={width}x{height}")   # ignored by MiniBrowser 2.50
    service = Service(executable_path=DRIVER, env={**os.environ, "DISPLAY": display})
    driver = webdriver.WebKitGTK(options=options, service=service)
    driver.set_window_size(width, height)
    inner = driver.execute_script("return [innerWidth, innerHeight]")
    # the window holds a tool bar: grow it so the page itself gets the height asked for
    driver.set_window_size(width, height + height - inner[1])
    return driver


class WebKitPage:
    """One WebKit session, called the way play.py calls a Playwright page."""

    def __init__(self, driver: Any) -> None:
        self.driver = driver

    # -- waiting --------------------------------------------------------------------
    def _until(self, check: Any, timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout / 1000
        error: Exception | None = None
        while time.monotonic() < deadline:
            try:
                value = check()
                if value:
                    return value
            except Exception as failed:   # a node replaced meanwhile: look again
                error = failed
            time.sleep(0.05)
        raise TimeoutError(f"WebKit: waited {timeout / 1000:.0f} s for {what} ({error})")

    def wait_for_selector(self, selector: str, state: str = "visible",
                          timeout: float = 30_000) -> None:
        def check() -> bool:
            if state == "attached":
                return bool(self.driver.execute_script(
                    "return !!document.querySelector(arguments[0])", selector))
            shown = bool(self.driver.execute_script(VISIBLE_JS, selector))
            return shown if state == "visible" else not shown
        self._until(check, timeout, f"{selector} {state}")

    def wait_for_function(self, expression: str, arg: Any = None,
                          timeout: float = 30_000) -> None:
        script = f"return ({expression})(arguments[0])"
        self._until(lambda: self.driver.execute_script(script, arg), timeout, expression)

    # -- reading --------------------------------------------------------------------
    def evaluate(self, expression: str, arg: Any = None) -> Any:
        return self.driver.execute_script(f"return ({expression})(arguments[0])", arg)

    def eval_on_selector_all(self, selector: str, expression: str) -> Any:
        return self.driver.execute_script(
            f"return ({expression})(Array.from(document.querySelectorAll(arguments[0])))",
            selector)

    def text_content(self, selector: str) -> str | None:
        text: str | None = self.driver.execute_script(
            "const n = document.querySelector(arguments[0]); return n ? n.textContent : null",
            selector)
        return text

    def is_visible(self, selector: str) -> bool:
        return bool(self.driver.execute_script(VISIBLE_JS, selector))

    def is_hidden(self, selector: str) -> bool:
        return not self.is_visible(selector)

    # -- doing ----------------------------------------------------------------------
    def goto(self, url: str) -> None:
        self.driver.get(url)

    def reload(self) -> None:
        self.driver.refresh()

    def click(self, selector: str, timeout: float = 30_000) -> None:
        """A real click (WebDriver's), once the node is shown and takes it."""
        from selenium.webdriver.common.by import By

        self.wait_for_selector(selector, timeout=timeout)
        self._until(lambda: self._ready(selector), timeout, f"{selector} to hold still")
        self._until(lambda: self.driver.find_element(By.CSS_SELECTOR, selector).click()
                    or True, timeout, f"a click on {selector}")

    def _ready(self, selector: str) -> bool:
        """As Playwright does before a click: the node holds still (no slide-in under
        way) and is what a tap at its centre would hit."""
        first = self.driver.execute_script(RECT_JS, selector)
        time.sleep(0.05)
        return bool(first) and first == self.driver.execute_script(RECT_JS, selector)

    def click_button(self, name: str, timeout: float = 30_000) -> None:
        """Click the shown, enabled button whose accessible name matches ``name`` (a
        regular expression, case-insensitive): by role and name, never by layout."""
        def press() -> bool:
            node = self.driver.execute_script(BUTTON_JS, name, "i")
            if node is None:
                return False
            node.click()
            return True
        self._until(press, timeout, f"a button named /{name}/")

    def fill(self, selector: str, text: str) -> None:
        from selenium.webdriver.common.by import By

        self.wait_for_selector(selector)
        field = self.driver.find_element(By.CSS_SELECTOR, selector)
        field.clear()
        field.send_keys(text)

    def screenshot(self, path: str, full_page: bool = False) -> None:
        self.driver.save_screenshot(path)

    def local_storage(self, key: str) -> Any:
        value = self.driver.execute_script("return localStorage.getItem(arguments[0])", key)
        return json.loads(value) if value and value[:1] in "[{" else value
