"""What changed between two public views, as a JSON Patch (RFC 6902).

The event stream sends a page the whole view once, then only these patches.  Objects
are compared key by key, and so are lists of objects of the same length (the
seats); a list that only grew gets ``add .../-`` for its new items;
a value that is the very object just appended elsewhere (``last_round`` is the last
``history`` entry; a new ``history`` entry's ``events`` are the playback's ``shown``)
is sent as a ``copy`` rather than twice.  The first operation is
always ``test /version``: a page that missed a message notices and asks again.
"""

from __future__ import annotations

from typing import Any

Op = dict[str, Any]


def _pointer(parts: list[str]) -> str:
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def diff(old: dict[str, Any], new: dict[str, Any]) -> list[Op]:
    """The patch that turns ``old`` into ``new`` (both views; ``version`` first)."""
    ops: list[Op] = [{"op": "test", "path": "/version", "value": old.get("version")}]
    added: dict[int, str] = {}
    _diff_dict(old, new, [], ops, added)
    return ops


def _diff_dict(old: dict[str, Any], new: dict[str, Any], path: list[str], ops: list[Op],
               added: dict[int, str]) -> None:
    for key in old:
        if key not in new:
            ops.append({"op": "remove", "path": _pointer([*path, key])})
    for key, value in new.items():
        where = [*path, key]
        if key not in old:
            _add(_pointer(where), value, ops, added)
        else:
            _diff_value(old[key], value, where, ops, added)


def _diff_value(old: Any, new: Any, path: list[str], ops: list[Op],
                added: dict[int, str]) -> None:
    if old is new or (type(old) is type(new) and old == new):
        return
    if id(new) in added:
        ops.append({"op": "copy", "from": added[id(new)], "path": _pointer(path)})
    elif isinstance(old, dict) and isinstance(new, dict):
        _diff_dict(old, new, path, ops, added)
    elif isinstance(old, list) and isinstance(new, list) and len(new) == len(old) \
            and all(isinstance(item, dict) for item in new):
        for i, (was, now) in enumerate(zip(old, new, strict=True)):
            _diff_value(was, now, [*path, str(i)], ops, added)
    elif isinstance(old, list) and isinstance(new, list) and len(new) > len(old) \
            and new[:len(old)] == old:
        for i in range(len(old), len(new)):
            _add(_pointer([*path, "-"]), new[i], ops, added, _pointer([*path, str(i)]))
            added[id(new[i])] = _pointer([*path, str(i)])
        added[id(new)] = _pointer(path)
    else:
        ops.append({"op": "replace", "path": _pointer(path), "value": new})


def _unescape(part: str) -> str:
    return part.replace("~1", "/").replace("~0", "~")


def _walk(doc: Any, pointer: str) -> tuple[Any, str]:
    parts = [_unescape(p) for p in pointer.split("/")[1:]]
    target = doc
    for part in parts[:-1]:
        target = target[int(part)] if isinstance(target, list) else target[part]
    return target, parts[-1]


def _get(doc: Any, pointer: str) -> Any:
    parent, last = _walk(doc, pointer)
    return parent[int(last)] if isinstance(parent, list) else parent[last]


def apply(doc: dict[str, Any], ops: list[Op]) -> dict[str, Any]:
    """Apply a patch made by ``diff`` (the subset of RFC 6902 it uses) to ``doc`` in
    place; ValueError when its ``test`` fails.  For tests and tools (pages do the same
    in ``common/patch.js``)."""
    import copy

    for op in ops:
        kind = op["op"]
        if kind == "test":
            if _get(doc, op["path"]) != op["value"]:
                raise ValueError(f"patch test failed at {op['path']}")
            continue
        if kind == "copy":
            value = copy.deepcopy(_get(doc, op["from"]))
        elif kind == "remove":
            parent, last = _walk(doc, op["path"])
            del parent[last]
            continue
        else:
            value = op["value"]
        parent, last = _walk(doc, op["path"])
        if isinstance(parent, list):
            if last == "-":
                parent.append(value)
            else:
                parent[int(last)] = value
        else:
            parent[last] = value
    return doc


def _add(pointer: str, value: Any, ops: list[Op], added: dict[int, str],
         final: str | None = None) -> None:
    """Add ``value`` at ``pointer`` (``final``: where it ends up, for an append); an
    object's members already sent in this patch are copied, not sent again."""
    if isinstance(value, dict):
        known = [key for key, member in value.items() if id(member) in added]
        if known:
            ops.append({"op": "add", "path": pointer,
                        "value": {k: v for k, v in value.items() if k not in known}})
            for key in known:
                ops.append({"op": "copy", "from": added[id(value[key])],
                            "path": f"{final or pointer}/{_pointer([key])[1:]}"})
            return
    ops.append({"op": "add", "path": pointer, "value": value})
