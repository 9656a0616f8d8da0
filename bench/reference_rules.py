"""A deliberately plain second reading of RULES.md, to cross-check the fast engine.

It measures every distance from Mambo afresh for each step, exactly as the rules
word it, and shares no code with ``kalimambo.engine.rules``.
"""

from __future__ import annotations

KALI = "Kali"


def play_round(length: int, rhino: int, positions: dict[str, int], dung: set[int],
               minus: dict[str, int], cards: dict[str, int], kali: int) -> int:
    """Resolve a round in place on ``positions`` and ``minus``; return Mambo's space."""
    played = dict(cards)
    played[KALI] = kali

    def ahead(figure: str) -> int:
        return (positions[figure] - rhino) % length

    def pay(figure: str, points: int) -> None:
        if figure == KALI:
            lowest = min(cards.values())
            for player, card in cards.items():
                if card == lowest:
                    minus[player] += points
        else:
            minus[figure] += points

    for value in range(11, 0, -1):
        group = [f for f in played if played[f] == value]
        if not group:
            continue
        actor = min(group, key=ahead)
        front = max(positions, key=ahead)
        if actor == front:
            continue
        last = min(positions, key=ahead)
        target = (positions[front] + 1) % length
        if target == rhino:
            taken = set(positions.values()) | {rhino}
            target = (rhino + 1) % length
            while target in taken:
                target = (target + 1) % length
        positions[actor] = target
        if target in dung:
            pay(actor, 3)
        if actor == last:
            new_last = min(positions, key=ahead)
            new_rhino = (positions[new_last] - 1) % length
            pay(new_last, (new_rhino - rhino) % length)
            rhino = new_rhino
    return rhino
