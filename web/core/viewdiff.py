"""What changed between two public views, as a JSON Patch (RFC 6902).

The event stream sends a page the whole view once, then only these patches, so a
patch must stay small (issue 10: at most 2 KB with 7 seats, whatever the round).
Objects are compared key by key, and so are lists of objects of the same length (the
seats); a list that only grew gets ``add .../-`` for its new items, one that only
shrank ``remove`` from its end (an undo).  At every level the finer operations are
kept only when they are shorter than replacing the whole value.  A value the page
already has (the very object appended earlier in this patch, or left unchanged at
its place: ``last_round`` is the last ``history`` entry, a new ``history`` entry's
``events`` are the playback's ``shown``) is sent as a ``copy`` rather than twice.
The first operation is always ``test /version``: a page that missed a message
notices and asks again.  The pages apply it with ``common/patch.js``, the lights
process with ``kalimambo.firmware.wire.apply_patch``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

Op = dict[str, Any]


def _pointer(parts: list[str]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Op]:
    """The patch that turns ``old`` into ``new`` (both views; ``version`` first)."""
    ops: list[Op] = [{"op": "test", "path": "/version", "value": old.get("version")}]
    known: dict[int, str] = {}
    _diff_dict(old, new, [], ops, known)
    return ops


def _diff_dict(old: Mapping[str, Any], new: Mapping[str, Any], path: list[str], ops: list[Op],
               known: dict[int, str]) -> None:
    for key in old:
        if key not in new:
            ops.append({"op": "remove", "path": _pointer([*path, key])})
    for key, value in new.items():
        where = [*path, key]
        if key not in old:
            _add(_pointer(where), value, ops, known)
        else:
            _diff_value(old[key], value, where, ops, known)


def _size(ops: list[Op]) -> int:
    return len(orjson.dumps(ops))


def _know(value: dict[str, Any] | list[Any], path: list[str], known: dict[int, str]) -> None:
    """Note an unchanged value and its members (one level: ``playback.shown``, which a
    new ``history`` entry's ``events`` is) as copy sources."""
    known.setdefault(id(value), _pointer(path))
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, member in items:
        if isinstance(member, (dict, list)):
            known.setdefault(id(member), _pointer([*path, str(key)]))


def _know_items(items: list[Any], path: list[str], known: dict[int, str]) -> None:
    """Note a list's items that stay where they are as copy sources."""
    for i, item in enumerate(items):
        if isinstance(item, (dict, list)):
            known.setdefault(id(item), _pointer([*path, str(i)]))


def _diff_value(old: Any, new: Any, path: list[str], ops: list[Op],
                known: dict[int, str]) -> None:
    """Append the operations turning ``old`` into ``new`` at ``path``; ``known`` maps
    the ids of values the page has by now (in the new view) to their pointers."""
    container = isinstance(new, (dict, list))
    if old is new or (type(old) is type(new) and old == new):
        if container:  # unchanged where it is: a later value that is it is copied
            _know(new, path, known)
        return
    pointer = _pointer(path)
    if id(new) in known:
        ops.append({"op": "copy", "from": known[id(new)], "path": pointer})
        return
    replace: Op = {"op": "replace", "path": pointer, "value": new}
    fine: list[Op] = []
    if isinstance(old, dict) and isinstance(new, dict):
        _diff_dict(old, new, path, fine, known)
    elif isinstance(old, list) and isinstance(new, list) and len(new) == len(old) \
            and all(isinstance(item, dict) for item in new):
        for i, (was, now) in enumerate(zip(old, new, strict=True)):
            _diff_value(was, now, [*path, str(i)], fine, known)
    elif isinstance(old, list) and isinstance(new, list) and len(new) > len(old) \
            and new[:len(old)] == old:
        _know_items(new[:len(old)], path, known)
        for i in range(len(old), len(new)):
            _add(_pointer([*path, "-"]), new[i], fine, known, _pointer([*path, str(i)]))
            known[id(new[i])] = _pointer([*path, str(i)])
    elif isinstance(old, list) and isinstance(new, list) and len(new) < len(old) \
            and old[:len(new)] == new:
        _know_items(new, path, known)  # an undo's new last_round is the entry left last
        fine = [{"op": "remove", "path": _pointer([*path, str(i)])}
                for i in range(len(old) - 1, len(new) - 1, -1)]
    else:
        fine = [replace]
    if len(fine) > 1 and _size(fine) >= _size([replace]):
        fine = [replace]  # the whole value is shorter than its pieces
    ops.extend(fine)
    if container:
        known[id(new)] = pointer


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _add(pointer: str, value: Any, ops: list[Op], known: dict[int, str],
         final: str | None = None) -> None:
    """Add ``value`` at ``pointer`` (``final``: where it ends up, for an append); an
    object's members the page already has are copied, when that is shorter."""
    if isinstance(value, dict):
        where = final or pointer
        copies = [{"op": "copy", "from": known[id(member)],
                   "path": f"{where}/{_pointer([key])[1:]}"}
                  for key, member in value.items() if id(member) in known]
        copies = [op for op in copies
                  if _size([op]) < _size([value[_unescape(op["path"][len(where) + 1:])]])]
        if copies:
            skip = {_unescape(op["path"][len(where) + 1:]) for op in copies}
            ops.append({"op": "add", "path": pointer,
                        "value": {k: v for k, v in value.items() if k not in skip}})
            ops.extend(copies)
            return
    ops.append({"op": "add", "path": pointer, "value": value})
