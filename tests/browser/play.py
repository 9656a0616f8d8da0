"""What the browser tests do with the pages, the way a player would: tap, read, wait.

Every wait is for a condition on the page, with a timeout, never a fixed sleep.
"""

from __future__ import annotations

from typing import Any

WAIT_MS = 30_000
"""Ceiling for a wait on the page (a busy machine is slow; a passing wait returns at once)."""

CONTRAST_JS = """
(selectors) => {
  function rgb(text) {
    const m = text.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const parts = m[1].split(',').map((p) => parseFloat(p));
    return {r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1};
  }
  function lum(c) {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b);
  }
  function background(node) {
    for (let n = node; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    return {r: 255, g: 255, b: 255, a: 1};
  }
  const out = [];
  for (const selector of selectors) {
    for (const node of document.querySelectorAll(selector)) {
      if (!node.offsetParent && getComputedStyle(node).position !== 'fixed') continue;
      if (!node.textContent.trim()) continue;
      const fg = rgb(getComputedStyle(node).color);
      const bg = background(node);
      const a = lum(fg), b = lum(bg);
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      out.push({selector, text: node.textContent.trim().slice(0, 30),
                ratio: Math.round(ratio * 100) / 100});
    }
  }
  return out;
}
"""


def join(page: Any, url: str, name: str) -> None:
    """Open the phone page and join the table by typing a name and tapping Join."""
    page.goto(f"{url}/")
    page.wait_for_selector("#join-form", state="visible", timeout=WAIT_MS)
    page.fill("#name", name)
    page.click("#join-button")
    page.wait_for_selector("#seat", state="visible", timeout=WAIT_MS)
    assert page.text_content("#me-name") == name


def hand(page: Any) -> list[int]:
    """The cards still in hand, as the page shows them."""
    values: list[str] = page.eval_on_selector_all(
        "#hand button.card:not(.played)", "nodes => nodes.map(n => n.dataset.card)")
    return sorted(int(v) for v in values)


def wait_for_hand(page: Any, size: int) -> None:
    """Wait until the page shows a hand of ``size`` cards open for picking."""
    page.wait_for_function(
        "n => document.querySelectorAll('#hand button.card:not(.played):not([disabled])')"
        ".length === n",
        arg=size, timeout=WAIT_MS)


def dismiss_reveal(page: Any) -> None:
    if page.is_visible("#sheet"):
        page.click("#sheet-ok")
        page.wait_for_selector("#sheet", state="hidden", timeout=WAIT_MS)


COUNT_CONFIRM_TAPS_JS = """
() => { if (window.__confirmTaps === undefined) { window.__confirmTaps = 0;
  document.addEventListener('click', e => { if (e.target.closest && e.target.closest('#confirm'))
    window.__confirmTaps += 1; }, true); }
  return window.__confirmTaps; }
"""


def pick(page: Any, card: int) -> None:
    """Tap a card, then tap confirm.

    A confirm tap that never reached the page (once in CI: WebKit's driver clicked while
    the bar was still being laid out, and no click event arrived) is tapped again, as a
    player would. The page counts the clicks it receives on the button, so a tap that
    arrived is never repeated and a page that ignores one still fails the test.
    """
    page.click(f'#hand .card[data-card="{card}"]')
    page.wait_for_selector("#confirm-bar", state="visible", timeout=WAIT_MS)
    taps = page.evaluate(COUNT_CONFIRM_TAPS_JS)
    for _ in range(3):
        page.click("#confirm")
        if page.evaluate(COUNT_CONFIRM_TAPS_JS) > taps:
            return
    raise AssertionError(f"three taps on Play {card}: none reached the page")


def wait_picked(page: Any, card: int) -> None:
    page.wait_for_selector(f'#hand .card.picked[data-card="{card}"]', timeout=WAIT_MS)


def revealed_cards(page: Any, box: str = "#sheet-cards") -> dict[str, int]:
    """The reveal as the page shows it: figure name -> card."""
    pairs: list[list[str]] = page.eval_on_selector_all(
        f"{box} .mini", "nodes => nodes.map(n => [n.querySelector('.mini-name').textContent,"
        " n.querySelector('.mini-card').textContent])")
    return {name: int(card) for name, card in pairs}


def contrast(page: Any, selectors: list[str]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(CONTRAST_JS, selectors)
    return found


def overflow(page: Any) -> int:
    """How many pixels the page is wider than the screen (0: nothing sticks out)."""
    extra: int = page.evaluate(
        "() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth)")
    return extra


AXE_OFF: dict[str, str] = {}
"""axe-core rules switched off for every page, each with the reason (none so far)."""


def axe(page: Any, name: str) -> list[str]:
    """axe-core's violations on the page as it is now, one readable line each.

    axe-core comes inside the axe-playwright-python package (no download at test time).
    """
    from axe_playwright_python.sync_playwright import Axe

    options = {"resultTypes": ["violations"],
               "rules": {rule: {"enabled": False} for rule in AXE_OFF}}
    results = Axe().run(page, options=options)
    return [f"{name}: {v['id']} ({v['impact']}): {v['help']} at "
            f"{[node['target'] for node in v['nodes']][:5]}"
            for v in results.response["violations"]]


def focused(page: Any) -> str:
    """The focused element as 'tag#id' (or 'tag[data-x]' text for one without an id)."""
    found: str = page.evaluate(
        "() => { const n = document.activeElement; if (!n || n === document.body) return 'body';"
        " return (n.tagName.toLowerCase() + (n.id ? '#' + n.id : '') + ' ' +"
        " (n.textContent || '').trim()).trim(); }")
    return found


def console_errors(page: Any) -> list[str]:
    """Collect the page's console errors and uncaught exceptions from now on."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text)
            if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors
