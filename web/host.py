"""The host's login: a PIN, hashed host tokens, and a brake on guessing.

A four-digit PIN is easy to guess by trying, so wrong PINs from one address lock that
address out for a while, doubling each time (capped), and a global brake slows a
spread-out attack too.
"""

from __future__ import annotations

import hmac
import secrets
import time
from collections.abc import Callable

from kalimambo.web.errors import ApiError
from kalimambo.web.seats import new_token, token_hash
from kalimambo.web.store import Store

FREE_TRIES = 5
"""Wrong PINs allowed from one address before it is locked out."""
LOCK_SECONDS = 30.0
LOCK_MAX_SECONDS = 600.0
GLOBAL_TRIES_PER_MINUTE = 30


def make_pin() -> str:
    """A fresh four-digit PIN."""
    return f"{secrets.randbelow(10_000):04d}"


def stored_pin(store: Store) -> str:
    """The PIN kept in the data dir, made (and kept) on first use."""
    pin = store.setting("host_pin")
    if not isinstance(pin, str) or not pin:
        pin = make_pin()
        store.set_settings({"host_pin": pin})
    return pin


class HostAuth:
    """Checks PINs, hands out host tokens (kept hashed in the store) and rate-limits."""

    def __init__(self, store: Store, pin: str,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.store = store
        self.pin = pin
        self.clock = clock
        self._tokens = store.host_tokens()
        self._failures: dict[str, int] = {}
        self._locked_until: dict[str, float] = {}
        self._recent: list[float] = []

    def login(self, pin: object, address: str) -> str:
        """A new host token for the right PIN; a refusal (and a count) for a wrong one."""
        now = self.clock()
        wait = self._locked_until.get(address, 0.0) - now
        self._recent = [t for t in self._recent if now - t < 60.0]
        if wait <= 0 and len(self._recent) >= GLOBAL_TRIES_PER_MINUTE:
            wait = 60.0 - (now - self._recent[0])
        if wait > 0:
            raise ApiError(429, "too_many_tries",
                           f"Too many wrong PINs: please wait {int(wait) + 1} seconds.",
                           {"Retry-After": str(int(wait) + 1)})
        if not isinstance(pin, str | int) or isinstance(pin, bool):
            raise ApiError(400, "bad_pin", "Please type the host PIN.")
        if not hmac.compare_digest(str(pin).strip().encode(), self.pin.encode()):
            self._recent.append(now)
            failures = self._failures.get(address, 0) + 1
            self._failures[address] = failures
            if failures >= FREE_TRIES:
                lock = min(LOCK_MAX_SECONDS, LOCK_SECONDS * 2 ** (failures - FREE_TRIES))
                self._locked_until[address] = now + lock
            raise ApiError(403, "wrong_pin", "That is not the host PIN.")
        self._failures.pop(address, None)
        self._locked_until.pop(address, None)
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
