"""The rules of Kalimambo: pure Python, standard library only, no I/O.

The table, the lights and the computer players all stand on this package; it
uses nothing of theirs.
"""

from kalimambo.engine.errors import KalimamboError, PlayError, RecordError, SetupError
from kalimambo.engine.events import (
    KALI,
    Dung,
    Event,
    Move,
    Penalty,
    Reveal,
    RhinoRun,
    RoundEnd,
    Stay,
    event_from_dict,
)
from kalimambo.engine.game import RECORD_FORMAT, Game, PlayedRound, shuffled_deck
from kalimambo.engine.record import Record, parse_record, resolve_record
from kalimambo.engine.rules import CARD_VALUES, DEFAULT_TRACK_LENGTH, ROUNDS, Board
from kalimambo.engine.setup import Setup, check_setup, random_setup

__all__ = [
    "CARD_VALUES", "DEFAULT_TRACK_LENGTH", "KALI", "RECORD_FORMAT", "ROUNDS",
    "Board", "Dung", "Event", "Game", "KalimamboError", "Move", "Penalty", "PlayError",
    "PlayedRound", "Record", "RecordError", "Reveal", "RhinoRun", "RoundEnd", "Setup",
    "SetupError", "Stay", "check_setup", "event_from_dict", "parse_record", "random_setup",
    "resolve_record", "shuffled_deck",
]
