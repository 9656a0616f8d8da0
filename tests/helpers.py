"""Small helpers shared by the engine tests."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engine import RECORD_FORMAT, random_setup
from engine.rules import CARD_VALUES

ROOT = Path(__file__).resolve().parents[1]
SHARED_VECTORS = ROOT.parent / "shared" / "vectors"
VECTOR_COPIES = ROOT / "tests" / "vectors"
NAMES = ("Ana", "Ben", "Caro", "Dan", "Eva", "Finn", "Gina")


def vector_files() -> list[Path]:
    """Every shared vector (from ../shared/vectors, else the copies in tests/vectors)."""
    found = {path.name: path for path in sorted(VECTOR_COPIES.glob("*.json"))}
    if SHARED_VECTORS.is_dir():
        found.update({path.name: path for path in sorted(SHARED_VECTORS.glob("*.json"))})
    return [found[name] for name in sorted(found)]


def load_vector(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def random_record(rng: random.Random, players: int, track_length: int = 32,
                  rounds: int = 12) -> dict[str, Any]:
    """A random legal record with ``rounds`` rounds."""
    names = list(NAMES[:players])
    setup = random_setup(names, track_length, rng)
    hands = {name: rng.sample(range(CARD_VALUES), CARD_VALUES) for name in names}
    kali = rng.sample(range(CARD_VALUES), CARD_VALUES)
    return {
        "format": RECORD_FORMAT, "track_length": track_length, "players": names,
        "setup": setup.to_dict(),
        "rounds": [{"cards": {n: hands[n][r] for n in names}, "kali": kali[r]}
                   for r in range(rounds)],
    }
