"""Game records (``kalimambo-record/1``, RECORD.md): validation, and a record resolved to
its result.

``parse_record`` turns decoded JSON into a checked ``Record`` or raises
``RecordError`` whose message names the key and the reason, counting rounds from
1 in the words (``rounds[3].cards.Ben: 7 was already played in round 2``).
``resolve_record`` plays its rounds through the rules to the result that ``kalimambo
replay`` prints (RECORD.md's "replay result").  Both stay lean: ``kalimambo replay
--jsonl`` runs them thousands of times a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kalimambo.engine.errors import RecordError, SetupError
from kalimambo.engine.events import KALI
from kalimambo.engine.game import RECORD_FORMAT, Game, PlayedRound, record_dict
from kalimambo.engine.rules import CARD_VALUES, ROUNDS, Board, leaders
from kalimambo.engine.setup import Setup, check_players, check_setup, check_track_length, is_card


@dataclass(frozen=True, slots=True)
class Record:
    """A checked game record."""

    players: tuple[str, ...]
    track_length: int
    setup: Setup
    rounds: tuple[PlayedRound, ...]

    def to_dict(self) -> dict[str, Any]:
        return record_dict(self.players, self.track_length, self.setup, self.rounds)

    def to_game(self) -> Game:
        """A ``Game`` at the end of this record, ready to go on (or undo)."""
        game = Game(self.players, self.setup, self.track_length)
        for played in self.rounds:
            game.play_round(dict(zip(self.players, played.cards, strict=True)), played.kali)
        return game


def parse_record(data: object) -> Record:
    """Check decoded JSON against RECORD.md; raise ``RecordError`` on the first fault."""
    if not isinstance(data, dict):
        raise RecordError("record: must be a JSON object")
    fmt = data.get("format")
    if fmt != RECORD_FORMAT:
        raise RecordError(f"format: expected \"{RECORD_FORMAT}\", got {_show(fmt)}")
    try:
        players = check_players(data.get("players"))
        setup_data = data.get("setup")
        heaps = setup_data.get("dung") if isinstance(setup_data, dict) else None
        track_length = check_track_length(
            data.get("track_length"), len(players),
            len(heaps) if isinstance(heaps, list) else 0)
        setup = check_setup(setup_data, players, track_length)
    except SetupError as error:
        raise RecordError(str(error)) from None
    rounds = data.get("rounds", [])
    if not isinstance(rounds, list):
        raise RecordError("rounds: must be a list of rounds")
    if len(rounds) > ROUNDS:
        raise RecordError(f"rounds: {len(rounds)} rounds; a game has at most {ROUNDS}")
    parsed = _rounds_fast(rounds, players)
    if parsed is None:
        parsed = _rounds_checked(rounds, players)
    return Record(players, track_length, setup, tuple(parsed))


_CARDS = frozenset(range(CARD_VALUES))
_NOT_A_CARD = f"is not a card (0 to {CARD_VALUES - 1})"


def _rounds_fast(rounds: list[Any], players: tuple[str, ...]) -> list[PlayedRound] | None:
    """The rounds of a good record, or None at the first fault of any kind.

    Most records are good, so this lean pass runs first, checking whole columns
    (one seat's cards over the rounds) at once; only a faulty record goes through
    ``_rounds_checked`` to find the words for its fault.
    """
    if not rounds:
        return []
    count = len(players)
    rows: list[tuple[Any, ...]] = []
    kalis: list[Any] = []
    for entry in rounds:
        if type(entry) is not dict:
            return None
        cards = entry.get("cards")
        if type(cards) is not dict or len(cards) != count:
            return None
        try:
            rows.append(tuple([cards[name] for name in players]))
        except KeyError:
            return None
        kalis.append(entry.get("kali"))
    for column in (*zip(*rows, strict=True), kalis):
        # the type check keeps out True and 7.0 (equal to 1 and 7 in a set) and
        # comes first, so a list or an object never reaches set()
        if (set(map(type, column)) != {int} or len(set(column)) != len(column)
                or not _CARDS.issuperset(column)):
            return None
    return [PlayedRound(row, kali) for row, kali in zip(rows, kalis, strict=True)]


def _rounds_checked(rounds: list[Any], players: tuple[str, ...]) -> list[PlayedRound]:
    """Check the rounds one rule at a time; raise ``RecordError`` naming the first fault."""
    played_in: list[dict[int, int]] = [{} for _ in players]
    kali_played: dict[int, int] = {}
    parsed: list[PlayedRound] = []
    for number, entry in enumerate(rounds, 1):
        key = f"rounds[{number - 1}]"
        if not isinstance(entry, dict):
            raise RecordError(f"{key}: must be an object with cards and kali")
        cards = entry.get("cards")
        if not isinstance(cards, dict):
            raise RecordError(f"{key}.cards: must map each player to a card")
        for name in cards:
            if name not in players:
                raise RecordError(f"{key}.cards.{name}: not a player of this game")
        row: list[int] = []
        for seat, name in enumerate(players):
            if name not in cards:
                raise RecordError(f"{key}.cards.{name}: missing (every player plays a card)")
            card = cards[name]
            if not is_card(card):
                raise RecordError(f"{key}.cards.{name}: {_show(card)} {_NOT_A_CARD}")
            earlier = played_in[seat].get(card)
            if earlier is not None:
                raise RecordError(f"{key}.cards.{name}: {card} was already played "
                                  f"in round {earlier}")
            played_in[seat][card] = number
            row.append(card)
        if "kali" not in entry:
            raise RecordError(f"{key}.kali: missing (Kali's card)")
        kali = entry["kali"]
        if not is_card(kali):
            raise RecordError(f"{key}.kali: {_show(kali)} {_NOT_A_CARD}")
        earlier = kali_played.get(kali)
        if earlier is not None:
            raise RecordError(f"{key}.kali: {kali} was already played in round {earlier}")
        kali_played[kali] = number
        parsed.append(PlayedRound(tuple(row), kali))
    return parsed


def _show(value: object) -> str:
    """A short, readable rendering of a bad value for a message."""
    text = repr(value) if not isinstance(value, str) else f"\"{value}\""
    return text if len(text) <= 40 else text[:37] + "..."


def resolve_record(record: Record, with_events: bool = False) -> dict[str, Any]:
    """The result of RECORD.md (its "replay result"): final state, winners, a snapshot
    a round.

    With ``with_events``, each snapshot also carries that round's events, from a
    ``Game`` (the same events the table emits); without, the bare board is faster.
    """
    players = record.players
    names = (*players, KALI)
    game = Game(players, record.setup, record.track_length) if with_events else None
    if game is not None:
        board = game.board
    else:
        start = record.setup.positions(record.track_length)
        board = Board(record.track_length, record.setup.rhino,
                      [start[name] for name in names], record.setup.dung)
    snapshots: list[dict[str, Any]] = []
    for number, played in enumerate(record.rounds, 1):
        if game is None:
            board.play_round((*played.cards, played.kali))
        else:
            events = game.play_round(dict(zip(players, played.cards, strict=True)),
                                     played.kali)
        # zip without strict=: the lengths match by construction, and this is the hot loop.
        snapshot: dict[str, Any] = {
            "round": number,
            "rhino": board.rhino,
            "positions": dict(zip(names, board.positions)),  # noqa: B905
            "minus_points": dict(zip(players, board.minus)),  # noqa: B905
        }
        if game is not None:
            snapshot["events"] = [event.to_dict() for event in events]
        snapshots.append(snapshot)
    return {
        "rounds_played": len(record.rounds),
        "finished": len(record.rounds) == ROUNDS,
        "rhino": board.rhino,
        "positions": dict(zip(names, board.positions, strict=True)),
        "minus_points": dict(zip(players, board.minus, strict=True)),
        "winners": [players[i] for i in leaders(board.minus)],
        "snapshots": snapshots,
    }
