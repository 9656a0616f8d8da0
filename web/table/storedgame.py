"""A finished game from the store as rounds ready to play back: each round's events (its
steps are made from them, as a live round's) and the board before it."""

from __future__ import annotations

from dataclasses import dataclass

from kalimambo.engine.events import Event, RoundEvent, event_from_dict
from kalimambo.engine.record import parse_record, resolve_record
from kalimambo.engine.timeline import BoardState
from kalimambo.web.core.seats import COLOURS
from kalimambo.web.core.viewtypes import RoundOutcome, SetupView
from kalimambo.web.storage.archive import stored_record
from kalimambo.web.storage.store import GameRow, Store


@dataclass(frozen=True, slots=True)
class ReplayRound:
    """One stored round: its events (the steps are made from them) and the board before."""

    number: int
    events: tuple[Event, ...]
    """Its events, typed (read back from the record's resolution)."""
    public: list[RoundEvent]
    """The same events' JSON forms, as the replay's view shows them."""
    before: BoardState
    entry: RoundOutcome
    """Its ``history`` entry without the events: round, cards, kali, minus_points."""


@dataclass(frozen=True, slots=True)
class ReplayGame:
    """A stored game ready to be played back."""

    game_id: int
    finished: float | None
    players: list[str]
    colours: dict[str, str]
    bots: dict[str, str]
    """Computer players and their levels."""
    track_length: int
    setup: SetupView
    rounds: list[ReplayRound]
    winners: list[str]


def load_game(store: Store, row: GameRow) -> ReplayGame | None:
    """The stored game ``row`` as rounds to play back; None if it never started or has no
    round yet."""
    record = stored_record(store, row)
    if record is None or not record["rounds"]:
        return None
    parsed = parse_record(record)
    result = resolve_record(parsed, with_events=True)
    players = list(parsed.players)
    before = BoardState(parsed.setup.rhino, parsed.setup.positions(parsed.track_length),
                        dict.fromkeys(players, 0))
    rounds: list[ReplayRound] = []
    for played, snapshot in zip(record["rounds"], result["snapshots"], strict=True):
        number = int(snapshot["round"])
        entry: RoundOutcome = {"round": number, "cards": dict(played["cards"]),
                               "kali": played["kali"],
                               "minus_points": dict(snapshot["minus_points"])}
        events = tuple(event_from_dict(event) for event in snapshot["events"])
        rounds.append(ReplayRound(number, events, [event.to_dict() for event in events],
                                  before, entry))
        before = BoardState(snapshot["rhino"], dict(snapshot["positions"]),
                            dict(snapshot["minus_points"]))
    roster = row.roster or {}
    colours = {name: str(roster.get(name, {}).get("colour") or COLOURS[i % len(COLOURS)])
               for i, name in enumerate(players)}
    bots = {name: str(roster[name]["bot"]) for name in players
            if roster.get(name, {}).get("bot")}
    return ReplayGame(row.id, row.finished, players, colours, bots, parsed.track_length,
                      parsed.setup.to_dict(), rounds, list(result["winners"]))
