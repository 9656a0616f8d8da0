"""The host's login: a host key, an optional PIN, a first-host code, and a brake.

The real host must always get in, and nobody else:
- the host key does it from anywhere: 144 random bits, made once and kept in the data
  dir, printed on the table's console (the journal on a Pi) as the host link and by
  ``kalimambo host-link``.  Nobody guesses it in a convention day from any number of
  addresses, so it is never rate-limited and no flood of wrong guesses can lock the
  real host out;
- a PIN set with ``--host-pin`` or the board file works as before.  A short PIN can
  be guessed by trying, so wrong ones lock their address out for a while (doubling,
  capped) and a global brake slows a spread-out attack; neither touches the key;
- the table's own screen (the board page on the Pi's HDMI screen, facing the room)
  never makes anyone host by itself: no login without a secret, and no PIN or key on
  any page.  It may show one thing: while no host has ever logged in and booth mode
  is off, a QR code with a *first-host code* (``first_host_open``).  That code logs
  in only while both still hold, so once the first host is in it is worthless, and a
  photo of the screen opens nothing.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from kalimambo.engine.values import is_int
from kalimambo.web.core.refusals import Kind, Refusal
from kalimambo.web.core.seats import new_token, token_hash
from kalimambo.web.storage.store import SettingKey, Store

FREE_TRIES = 5
"""Wrong PINs allowed from one address before it is locked out."""
LOCK_SECONDS = 30.0
LOCK_MAX_SECONDS = 600.0
GLOBAL_TRIES_PER_MINUTE = 30
"""Wrong PINs from all addresses together, per minute (the PIN only, never the key)."""
SHORT_PIN = 10
"""A PIN shorter than this is warned about: it can be guessed from many addresses."""
KEY_BYTES = 18
"""The host key's randomness: 144 bits, 24 URL-safe characters."""
MAX_TRACKED = 10_000
"""Addresses remembered for the lockout; the oldest are forgotten beyond this."""


def make_key() -> str:
    """A fresh host key (URL-safe, so it fits in the host link)."""
    return secrets.token_urlsafe(KEY_BYTES)


def stored_key(store: Store) -> str:
    """The host key kept in the data dir, made (and kept) on first use."""
    key = store.setting(SettingKey.HOST_KEY)
    if not isinstance(key, str) or len(key) < 16:
        key = make_key()
        store.set_settings({SettingKey.HOST_KEY: key})
    return key


def stored_first_code(store: Store) -> str:
    """The first-host code kept in the data dir (made, and kept, on first use): the
    secret of the QR code the table's own screen shows before the first host logs in.
    Kept, so the code on a screen left open across a restart still works."""
    code = store.setting(SettingKey.FIRST_HOST_CODE)
    if not isinstance(code, str) or len(code) < 16:
        code = make_key()
        store.set_settings({SettingKey.FIRST_HOST_CODE: code})
    return code


class Request(Protocol):
    """What ``is_own_screen`` reads of a request (Flask's has both)."""

    remote_addr: str | None
    headers: Any


def is_own_screen(request: Request) -> bool:
    """Whether a request comes from the table's own screen: a browser on the Pi itself
    (its HDMI screen, facing the room), which is no proof of being the host.

    The one place that decides it (the board page's *Next*, ``/api/v1/local``,
    ``/host-qr.svg``).  Today: the peer is a loopback address.  Once nginx runs in
    front of the table on the Pi, every request arrives from loopback: then this must
    read the client's address from the proxy's forwarded header (``X-Forwarded-For``
    or ``X-Real-IP``), trusted only when the peer is that proxy, and compare that."""
    try:
        return ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        return False


def booth_mode(view: Mapping[str, Any]) -> bool:
    """Whether the table is in booth mode: attract mode switched on (the view's
    ``booth.attract``; on by default).  A booth's screen faces passers-by, so it never
    offers the host's way in, not even before the first host logs in."""
    booth = view.get("booth")
    return not isinstance(booth, dict) or booth.get("attract") is not False


def pin_warning(pin: str | None) -> str | None:
    """A warning for the console when the PIN is easy to guess, else None."""
    if pin is not None and len(pin) < SHORT_PIN:
        return (f"the host PIN has only {len(pin)} characters: anyone on the network can "
                "guess it in time. The host link (with its key) always works.")
    return None


def _same(given: str, secret: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"),
                               secret.encode("utf-8", "surrogatepass"))


class HostAuth:
    """Checks the host's secret, hands out host tokens (kept hashed) and rate-limits."""

    def __init__(self, store: Store, pin: str | None, key: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.pin = pin
        self.key = key
        self.clock = clock
        self._tokens = store.host_tokens()
        code = store.setting(SettingKey.FIRST_HOST_CODE)
        self._first_code: str | None = code if isinstance(code, str) and len(code) >= 16 \
            else None
        self._first_lock = threading.Lock()
        self._failures: dict[str, int] = {}
        self._locked_until: dict[str, float] = {}
        self._recent: list[float] = []

    @property
    def hosted(self) -> bool:
        """Whether a host has ever logged in at this table (host tokens are kept)."""
        return bool(self._tokens)

    @property
    def has_pin(self) -> bool:
        """Whether a host PIN is set (else only the host key logs in)."""
        return self.pin is not None

    def first_host_open(self, booth: bool) -> bool:
        """Whether the table's own screen may offer the first-host code: only while no
        host has ever logged in, and never in booth mode."""
        return not self.hosted and not booth

    def first_code(self) -> str:
        """The first-host code (for the own screen's QR code, while it is open)."""
        if self._first_code is None:
            self._first_code = stored_first_code(self.store)
        return self._first_code

    def login(self, secret: object, address: str, booth: bool = True) -> str:
        """A new host token for the host key, the PIN, or (while ``first_host_open``)
        the first-host code; else a refusal that changes nothing.  ``booth``: whether
        the table is in booth mode (``booth_mode``)."""
        if secret is None or secret == "":
            raise Refusal(Kind.BAD_INPUT, "bad_pin", "Please type the host PIN or key (or open "
                          "the host link the table prints when it starts).")
        if not (isinstance(secret, str) or is_int(secret)):
            raise Refusal(Kind.BAD_INPUT, "bad_pin", "Please type the host PIN.")
        given = str(secret).strip()
        if len(given) <= 200 and _same(given, self.key):
            return self._new_token()
        if len(given) <= 200 and self._first_code is not None \
                and _same(given, self._first_code):
            return self._first_host(booth)
        self._brake(address)
        if self.pin is not None and len(given) <= 200 and _same(given, self.pin):
            self._failures.pop(address, None)
            self._locked_until.pop(address, None)
            return self._new_token()
        self._failed(address)
        if self.pin is None:  # a table without a PIN: only the key (or its link) opens it
            raise Refusal(Kind.NOT_ALLOWED, "wrong_key", "That is not the host key. Open the "
                          "host link the table printed when it started instead.")
        raise Refusal(Kind.NOT_ALLOWED, "wrong_pin", "That is not the host PIN.")

    def _first_host(self, booth: bool) -> str:
        """The first-host code was given: a token if it may still log in, else a
        refusal with its own message (not counted as a wrong PIN: it was right once)."""
        with self._first_lock:  # two phones scanning at once: one first host
            if self.first_host_open(booth):
                return self._new_token()
        raise Refusal(Kind.NOT_ALLOWED, "first_host_taken",
                      "That code from the table's screen no longer works: a host has "
                      "logged in already (or the table is in booth mode). Use the host "
                      "link the table printed when it started, or the PIN.")

    def _brake(self, address: str) -> None:
        """429 while this address is locked out, or while all addresses are braked."""
        now = self.clock()
        wait = self._locked_until.get(address, 0.0) - now
        self._recent = [t for t in self._recent if now - t < 60.0]
        if wait <= 0 and len(self._recent) >= GLOBAL_TRIES_PER_MINUTE:
            wait = 60.0 - (now - self._recent[0])
        if wait > 0:
            raise Refusal(Kind.TOO_SOON, "too_many_tries",
                          f"Too many wrong PINs: please wait {int(wait) + 1} seconds "
                          "(the host link always works).", retry_after_s=int(wait) + 1)

    def _failed(self, address: str) -> None:
        now = self.clock()
        self._recent.append(now)
        if len(self._failures) >= MAX_TRACKED and address not in self._failures:
            oldest = next(iter(self._failures))
            self._failures.pop(oldest, None)
            self._locked_until.pop(oldest, None)
        failures = self._failures.get(address, 0) + 1
        self._failures[address] = failures
        if failures >= FREE_TRIES:
            lock = min(LOCK_MAX_SECONDS, LOCK_SECONDS * 2 ** min(failures - FREE_TRIES, 16))
            self._locked_until[address] = now + lock

    def _new_token(self) -> str:
        token = new_token()
        hashed = token_hash(token)
        self.store.add_host_token(hashed)
        self._tokens.add(hashed)
        return token

    def check(self, token: str | None) -> None:
        """Raise unless ``token`` is a host token."""
        if token is None:
            raise Refusal(Kind.UNKNOWN_CALLER, "host_only",
                          "Only the host can do that: log in with the PIN.")
        if token_hash(token) not in self._tokens:
            raise Refusal(Kind.NOT_ALLOWED, "host_only",
                          "Only the host can do that: log in with the PIN.")
