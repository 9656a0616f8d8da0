"""The host's login: the Pi's own screen, a host key, an optional PIN, and a brake.

The real host must always get in, and nobody else:
- on the Pi itself (a loopback address) no secret is needed;
- elsewhere the host key does it: 144 random bits, made once and kept in the data
  dir, shown on the Pi's console and screen and in the host link's QR code.  Nobody
  guesses it in a convention day from any number of addresses, so it is never
  rate-limited and no flood of wrong guesses can lock the real host out;
- a PIN set with ``--host-pin`` or the board file works as before.  A short PIN can
  be guessed by trying, so wrong ones lock their address out for a while (doubling,
  capped) and a global brake slows a spread-out attack; neither touches the key.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import time
from collections.abc import Callable

from kalimambo.engine.setup import is_int
from kalimambo.web.errors import ApiError
from kalimambo.web.seats import new_token, token_hash
from kalimambo.web.store import Store

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
    key = store.setting("host_key")
    if not isinstance(key, str) or len(key) < 16:
        key = make_key()
        store.set_settings({"host_key": key})
    return key


def is_loopback(address: str) -> bool:
    """Whether the request comes from the Pi itself."""
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


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
        self._failures: dict[str, int] = {}
        self._locked_until: dict[str, float] = {}
        self._recent: list[float] = []

    def login(self, secret: object, address: str) -> str:
        """A new host token for the Pi's own screen, the key or the PIN; else a refusal."""
        if secret is None and is_loopback(address):
            return self._new_token()
        if secret is None:
            raise ApiError(400, "bad_pin", "Please type the host PIN (or open the host link).")
        if not (isinstance(secret, str) or is_int(secret)):
            raise ApiError(400, "bad_pin", "Please type the host PIN.")
        given = str(secret).strip()
        if len(given) <= 200 and _same(given, self.key):
            return self._new_token()
        self._brake(address)
        if self.pin is not None and len(given) <= 200 and _same(given, self.pin):
            self._failures.pop(address, None)
            self._locked_until.pop(address, None)
            return self._new_token()
        self._failed(address)
        raise ApiError(403, "wrong_pin", "That is not the host PIN.")

    def _brake(self, address: str) -> None:
        """429 while this address is locked out, or while all addresses are braked."""
        now = self.clock()
        wait = self._locked_until.get(address, 0.0) - now
        self._recent = [t for t in self._recent if now - t < 60.0]
        if wait <= 0 and len(self._recent) >= GLOBAL_TRIES_PER_MINUTE:
            wait = 60.0 - (now - self._recent[0])
        if wait > 0:
            raise ApiError(429, "too_many_tries",
                           f"Too many wrong PINs: please wait {int(wait) + 1} seconds "
                           "(the host link always works).",
                           {"Retry-After": str(int(wait) + 1)})

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
            raise ApiError(401, "host_only", "Only the host can do that: log in with the PIN.")
        if token_hash(token) not in self._tokens:
            raise ApiError(403, "host_only", "Only the host can do that: log in with the PIN.")
