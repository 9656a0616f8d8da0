"""The pages' JSDoc types of the views (web/static/common/api.js) name the keys the views'
one description (web/core/viewtypes.py) declares: no key more, none less, and none
required there that the description says may be left out.  (The JSDoc may be looser:
a key required in Python may be optional for the pages.)"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, get_args

from kalimambo.web.core import viewtypes as vt
from kalimambo.web.http.typeschema import fields, is_union
from tests.helpers import ROOT

API_JS = ROOT / "web" / "static" / "common" / "api.js"
DESCRIBED = {
    "View": vt.PublicView, "Seat": vt.SeatView, "Setup": vt.SetupView,
    "RoundEntry": vt.HistoryEntry, "RoundOutcome": vt.RoundOutcome, "Step": vt.StepView,
    "Playback": vt.PlaybackView, "Happened": vt.Happening, "PieceMove": vt.PieceMoveView,
    "Placing": vt.PlacingView, "Power": vt.PowerView, "Lights": vt.LightsView,
    "Storage": vt.StorageView, "Booth": vt.BoothView, "ReplayReason": vt.ReplayReason,
    "ReplayBoard": vt.ReplayBoard, "Replay": vt.ReplayView, "Me": vt.MeView,
    "RoundEvent": vt.RoundEvent, "ChangeMessage": vt.ChangeMessage,
    "PatchOperation": vt.PatchOperation,
}
"""Each typedef of api.js and the type of the description it stands for."""

TYPEDEF = re.compile(r"@typedef\s+\{(.*?)\}\s+(\w+)")
PROPERTY = re.compile(r"@property\s+\{")
NAME = re.compile(r"\s*(\[)?(\w+)(\])?")


@dataclass
class Typedef:
    name: str
    keys: dict[str, bool] = field(default_factory=dict)
    """Each property and whether it is required."""
    problems: list[str] = field(default_factory=list)
    """What in it cannot be checked, each starting with its name."""


def _braced(text: str, start: int) -> int:
    """Where the type in braces opening at ``start`` ends (just after its ``}``)."""
    depth = 0
    for i in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    raise ValueError(f"unclosed type at {text[start:start + 40]!r}")


def typedefs(source: str) -> dict[str, Typedef]:
    """The ``@typedef {object}`` types of a JS file, with their ``@property`` keys."""
    found: dict[str, Typedef] = {}
    current: Typedef | None = None
    for line in source.splitlines():
        if match := TYPEDEF.search(line):
            kind, name = match.groups()
            current = found.setdefault(name, Typedef(name))
            if kind != "object":
                current.problems.append(f"{name}: a typedef of {{{kind}}}, not {{object}} with "
                                        "@property lines, so its keys cannot be checked")
        elif (match := PROPERTY.search(line)) and current is not None:
            end = _braced(line, match.end() - 1)
            kind = line[match.end():end - 1]
            named = NAME.match(line, end)
            assert named is not None, line
            optional, key, _ = named.groups()
            current.keys[key] = not optional
            if "{" in kind and ":" in kind:
                current.problems.append(f"{current.name}.{key}: an object written inline; "
                                        "give it a typedef of its own, so its keys are "
                                        "checked")
    return found


def described(typed: Any) -> dict[str, bool]:
    """The keys of a TypedDict, or of any member of a union of them, each with whether
    every member requires it."""
    members = get_args(typed) if is_union(typed) else (typed,)
    keys: dict[str, bool] = {}
    for member in members:
        for key, (_, required) in fields(member).items():
            keys[key] = keys.get(key, True) and required
    for key in keys:
        if not all(key in fields(member) for member in members):
            keys[key] = False
    return keys


def mismatches(source: str) -> list[str]:
    """Where the typedefs in ``source`` and the description disagree."""
    found: list[str] = []
    defs = typedefs(source)
    for name, typedef in defs.items():
        found += typedef.problems
        if name not in DESCRIBED:
            found.append(f"{name}: no type of web/core/viewtypes.py named for it here")
            continue
        want = described(DESCRIBED[name])
        found += [f"{name}.{key}: not in the description" for key in typedef.keys
                  if key not in want]
        found += [f"{name}.{key}: missing" for key in want if key not in typedef.keys]
        found += [f"{name}.{key}: required here, sometimes left out in the description"
                  for key, required in typedef.keys.items()
                  if required and key in want and not want[key]]
    found += [f"{name}: no typedef" for name in DESCRIBED if name not in defs]
    return found


def test_api_js_names_the_keys_the_description_declares() -> None:
    assert mismatches(API_JS.read_text("utf-8")) == []


def test_the_check_sees_a_key_dropped_added_or_made_required() -> None:
    source = API_JS.read_text("utf-8")
    changed = (source.replace("   @property {Happened[]} happened\n", "")
               .replace("   @property {number} minus_points\n",
                        "   @property {number} minus_points\n   @property {string} mood\n", 1)
               .replace("   @property {number} [from]\n", "   @property {number} from\n"))
    assert changed.count("@property") == source.count("@property")
    assert sorted(mismatches(changed)) == [
        "ChangeMessage.happened: missing",
        "PieceMove.from: required here, sometimes left out in the description",
        "Seat.mood: not in the description",
    ]


def test_the_check_sees_keys_it_could_not_read() -> None:
    source = ("/** @typedef {{a: number}} Loose\n"
              "   @typedef {object} Seat\n   @property {{x: number}} inline */")
    found = mismatches(source)
    assert "Loose: a typedef of {{a: number}}, not {object} with @property lines, " \
           "so its keys cannot be checked" in found
    assert "Seat.inline: an object written inline; give it a typedef of its own, so its " \
           "keys are checked" in found
    assert "Loose: no type of web/core/viewtypes.py named for it here" in found
