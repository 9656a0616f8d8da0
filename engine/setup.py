"""Set-up: checking one entered by hand, and making a random legal one (RULES.md)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict, TypeGuard

from kalimambo.engine.errors import SetupError
from kalimambo.engine.events import KALI
from kalimambo.engine.rules import (
    CARD_VALUES,
    DEFAULT_TRACK_LENGTH,
    MAX_HEAPS,
    MAX_PLAYERS,
    MAX_TRACK_LENGTH,
    MIN_PLAYERS,
)
from kalimambo.engine.values import is_int

HEAP_SPACING = 3
"""A generated set-up keeps heaps at least this many spaces apart around the loop."""
SAMPLE_NAMES = ("Ana", "Ben", "Caro", "Dan", "Eva", "Finn", "Gina")
"""Player names for made-up games (``kalimambo setup``, tournaments, benchmarks)."""


class SetupJson(TypedDict):
    """A set-up's JSON form (RECORD.md): the record's ``setup``, and the view's."""

    rhino: int
    order: list[str]
    dung: list[int]


@dataclass(frozen=True, slots=True)
class Setup:
    """Mambo's space, the explorers from the one right in front of Mambo to the
    one right behind Kali, and the dung heaps."""

    rhino: int
    order: tuple[str, ...]
    dung: tuple[int, ...]

    def positions(self, track_length: int) -> dict[str, int]:
        """Every figure's space, explorers in ``order`` then Kali at the front."""
        spaces = {name: (self.rhino + 1 + i) % track_length
                  for i, name in enumerate(self.order)}
        spaces[KALI] = (self.rhino + 1 + len(self.order)) % track_length
        return spaces

    def to_dict(self) -> SetupJson:
        return {"rhino": self.rhino, "order": list(self.order), "dung": list(self.dung)}


def is_card(value: object) -> TypeGuard[int]:
    """A card's value: a whole number from 0 to ``CARD_VALUES - 1``."""
    return is_int(value) and 0 <= value < CARD_VALUES


def check_players(players: object, key: str = "players") -> tuple[str, ...]:
    """Validate a list of player names; raise ``SetupError`` naming the key."""
    if not isinstance(players, list):
        raise SetupError(f"{key}: must be a list of names")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise SetupError(f"{key}: {len(players)} players; the game takes "
                         f"{MIN_PLAYERS} to {MAX_PLAYERS}")
    seen: set[str] = set()
    for i, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise SetupError(f"{key}[{i}]: must be a non-empty name")
        if name == KALI:
            raise SetupError(f"{key}[{i}]: \"{KALI}\" is reserved for Kali's figure")
        if name in seen:
            raise SetupError(f"{key}[{i}]: {name} is named twice")
        seen.add(name)
    return tuple(players)


def check_track_length(length: object, players: int, heaps: int,
                       key: str = "track_length") -> int:
    """The loop must hold every figure, Mambo, a free space and the heaps."""
    if not is_int(length):
        raise SetupError(f"{key}: must be a whole number of spaces")
    assert isinstance(length, int)
    least = max(players + 3, players + 2 + heaps)
    if length < least:
        raise SetupError(f"{key}: {length} spaces is too short for {players} players "
                         f"and {heaps} heaps (at least {least})")
    if length > MAX_TRACK_LENGTH:
        raise SetupError(f"{key}: {length} spaces is more than {MAX_TRACK_LENGTH}")
    return length


def check_setup(data: object, players: Sequence[str], track_length: int,
                key: str = "setup") -> Setup:
    """Validate a set-up given as JSON (RECORD.md ``setup``) for these players.

    The track length must already be known to fit the players; the heaps are
    checked against it here.
    """
    if not isinstance(data, dict):
        raise SetupError(f"{key}: must be an object with rhino, order and dung")
    rhino = data.get("rhino")
    if not is_int(rhino):
        raise SetupError(f"{key}.rhino: must be a space number")
    assert isinstance(rhino, int)
    if not 0 <= rhino < track_length:
        raise SetupError(f"{key}.rhino: {rhino} is off the track (0 to {track_length - 1})")
    order = data.get("order")
    if not isinstance(order, list):
        raise SetupError(f"{key}.order: must list every player once")
    for i, name in enumerate(order):
        if name not in players:
            raise SetupError(f"{key}.order[{i}]: {name!r} is not a player")
        if name in order[:i]:
            raise SetupError(f"{key}.order[{i}]: {name} stands twice")
    for name in players:
        if name not in order:
            raise SetupError(f"{key}.order: {name} is missing")
    dung = data.get("dung", [])
    if not isinstance(dung, list):
        raise SetupError(f"{key}.dung: must be a list of spaces")
    if len(dung) > MAX_HEAPS:
        raise SetupError(f"{key}.dung: {len(dung)} heaps; the game has at most {MAX_HEAPS}")
    occupied = {(rhino + i) % track_length for i in range(len(players) + 2)}
    for i, space in enumerate(dung):
        if not is_int(space):
            raise SetupError(f"{key}.dung[{i}]: must be a space number")
        if not 0 <= space < track_length:
            raise SetupError(f"{key}.dung[{i}]: {space} is off the track "
                             f"(0 to {track_length - 1})")
        if space in dung[:i]:
            raise SetupError(f"{key}.dung[{i}]: two heaps on space {space}")
        if space in occupied:
            raise SetupError(f"{key}.dung[{i}]: space {space} holds a figure or Mambo")
    if track_length < len(players) + 2 + len(dung):
        raise SetupError(f"{key}.dung: {len(dung)} heaps do not fit beside the figures "
                         f"on {track_length} spaces")
    return Setup(rhino, tuple(order), tuple(dung))


def random_setup(players: Sequence[str], track_length: int = DEFAULT_TRACK_LENGTH,
                 rng: random.Random | None = None) -> Setup:
    """A random legal set-up by the rules' advice.

    Six heaps, none right in front of Kali, each at least ``HEAP_SPACING``
    spaces from the next around the loop; on a short track, as far apart as
    fits (and fewer heaps where even one space apart is too much).
    """
    rng = rng or random.Random()
    count = len(players)
    check_track_length(track_length, count, 0)
    rhino = rng.randrange(track_length)
    order = list(players)
    rng.shuffle(order)
    # Free spaces run from two ahead of Kali (Mambo, the explorers and Kali hold
    # rhino .. rhino + count + 1; the space right in front of Kali stays clear) round
    # to just behind Mambo.
    first_free = rhino + count + 3
    free = track_length - count - 3
    heaps = min(MAX_HEAPS, free)
    dung: list[int] = []
    if heaps:
        gap = HEAP_SPACING if heaps == 1 else min(HEAP_SPACING, (free - 1) // (heaps - 1))
        slots = free - (heaps - 1) * (gap - 1)
        picks = sorted(rng.sample(range(slots), heaps))
        dung = [(first_free + pick + i * (gap - 1)) % track_length
                for i, pick in enumerate(picks)]
    return Setup(rhino, tuple(order), tuple(dung))
