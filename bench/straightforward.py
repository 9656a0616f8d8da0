"""The baseline for ``replay --jsonl``: the straightforward way, for comparison only.

Standard-library JSON, one process, and the rules read distance by distance
(``bench.reference_rules``), with the same record checks as the real command.
``python -m bench.engine`` times it on the same games as ``kalimambo replay --jsonl``.
"""

from __future__ import annotations

import json
import sys

from bench.reference_rules import play_round
from kalimambo.engine.record import parse_record
from kalimambo.engine.rules import ROUNDS


def resolve_plain(data: dict[str, object]) -> dict[str, object]:
    record = parse_record(data)
    length = record.track_length
    rhino = record.setup.rhino
    positions = record.setup.positions(length)
    dung = set(record.setup.dung)
    minus = dict.fromkeys(record.players, 0)
    snapshots = []
    for number, played in enumerate(record.rounds, 1):
        cards = dict(zip(record.players, played.cards, strict=True))
        rhino = play_round(length, rhino, positions, dung, minus, cards, played.kali)
        snapshots.append({"round": number, "rhino": rhino, "positions": dict(positions),
                          "minus_points": dict(minus)})
    best = min(minus.values())
    return {"rounds_played": len(record.rounds), "finished": len(record.rounds) == ROUNDS,
            "rhino": rhino, "positions": positions, "minus_points": minus,
            "winners": [p for p in record.players if minus[p] == best],
            "snapshots": snapshots}


def main() -> int:
    with open(sys.argv[1]) as handle:
        for line in handle:
            if line.strip():
                data = json.loads(line)
                sys.stdout.write(json.dumps(resolve_plain(data.get("record", data))) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
