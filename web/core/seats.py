"""Seats at the table: names, explorer colours and unguessable tokens."""

from __future__ import annotations

import hashlib
import secrets
import unicodedata
from dataclasses import dataclass

from kalimambo.engine.events import KALI
from kalimambo.engine.rules import EXPLORER_COLOURS
from kalimambo.web.core.names import fold, has_visible
from kalimambo.web.core.refusals import Kind, Refusal, bad_input

COLOURS = EXPLORER_COLOURS
"""The wooden explorers' colours, handed out in this order."""

MAX_SEATS = len(COLOURS)
MIN_SEATS = 3
NAME_MAX = 20

BOT_NAMES = ("Zuri", "Tembo", "Nia", "Bako", "Safi", "Juma", "Kibo", "Imani", "Duma")
"""Computer players' names: short, friendly, unlikely to clash with a person's."""


@dataclass(slots=True)
class Seat:
    """One seat: who sits there, their colour, and how they pick."""

    name: str
    colour: str
    token_hash: str
    hosted: bool = False
    bot_level: str | None = None
    id: str = ""
    """Short, URL-safe and stable for the seat's life (kept in the store): pages
    address a seat by it, never by its name."""

    @property
    def bot(self) -> bool:
        return self.bot_level is not None


def new_token() -> str:
    """A seat or host token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def new_seat_id(taken: set[str]) -> str:
    """A short seat id (8 hex digits) no other seat has."""
    while True:
        found = secrets.token_hex(4)
        if found not in taken:
            return found


def token_hash(token: str) -> str:
    """Tokens are kept hashed, so a copied database holds no valid token."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def clean_name(raw: object, taken: list[str]) -> str:
    """A trimmed name of 1-20 characters in any script, unique at the table.

    ``taken`` are the names already seated; names compare by their folded form
    (``kalimambo.web.core.names.fold``: NFKC, case, look-alike letters), and so does "Kali".
    """
    if not isinstance(raw, str):
        raise bad_input("bad_name", "Please type a name.")
    name = unicodedata.normalize("NFC", raw).strip()
    if not name:
        raise bad_input("bad_name", "Please type a name.")
    if len(name) > NAME_MAX:
        raise bad_input("bad_name", f"That name is too long: at most {NAME_MAX} characters.")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp")
           for ch in name):
        raise bad_input("bad_name", "Please use letters, digits or ordinary signs "
                                      "in your name.")
    if not has_visible(name):
        raise bad_input("bad_name", "Please type a name people can read.")
    folded = fold(name)
    if folded == fold(KALI):
        raise Refusal(Kind.CONFLICT, "name_taken",
                      "Kali is the black figure's name: please pick another one.")
    if any(fold(other) == folded for other in taken):
        raise Refusal(Kind.CONFLICT, "name_taken",
                      f"Someone called {name} (or a name that looks the same) is already at "
                      "the table: please pick another name.")
    return name


def free_colour(seats: list[Seat]) -> str:
    """The first colour in the wooden figures' order that nobody has yet."""
    used = {seat.colour for seat in seats}
    for colour in COLOURS:
        if colour not in used:
            return colour
    raise table_full()


def table_full() -> Refusal:
    return Refusal(Kind.CONFLICT, "table_full",
                   f"The table is full: {MAX_SEATS} explorers at most.")
