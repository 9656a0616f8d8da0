"""Holds a JSON value to a type of the views' description (``web/core/viewtypes.py``),
strictly: every key of every object must be declared in its TypedDict, every required
one present, every value of its type.  The served OpenAPI document leaves objects open
(clients ignore keys they do not know); this check does not, so a key added to a view
and not to its description is found.

Each type is made into a check function once (a game's views are hundreds of
kilobytes each, and a test walks hundreds of them)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Annotated, Any, Literal, get_args, get_origin, is_typeddict

from kalimambo.web.core.viewtypes import Schema
from kalimambo.web.http.typeschema import fields, is_union

Met = set[tuple[str, str]]
"""(TypedDict name, key) pairs a value held."""
Check = Callable[[Any, str, Met], list[str]]
SCALARS: dict[object, tuple[type, ...]] = {str: (str,), int: (int,), float: (int, float),
                                          bool: (bool,)}


def problems(value: Any, hint: Any, path: str = "$", met: Met | None = None) -> list[str]:
    """What in ``value`` (parsed JSON) the type ``hint`` does not declare or allows not,
    each as ``path: what``; empty when it fits.  ``met`` collects the keys of the
    TypedDicts the value held (of a union, the member it fits)."""
    return check_for(hint)(value, path, set() if met is None else met)


@cache
def check_for(hint: Any) -> Check:
    """The check function of ``hint`` (made once per type)."""
    origin = get_origin(hint)
    if hint is None or hint is type(None):
        return lambda value, path, met: [] if value is None else [
            f"{path}: {value!r} is not null"]
    if hint is object:  # any JSON value (a patch operation's value)
        return lambda value, path, met: []
    if hint in SCALARS:
        return _scalar(hint)
    if origin is Annotated:
        return _annotated(hint)
    if origin is Literal:
        return _literal(get_args(hint))
    if is_union(hint):
        return _union([check_for(member) for member in get_args(hint)])
    if origin is list:
        return _list(get_args(hint)[0])
    if origin is dict:
        return _dict(get_args(hint)[1])
    if is_typeddict(hint):
        return _object(hint)
    raise TypeError(f"the check knows no {hint!r}")


def _scalar(hint: Any) -> Check:
    kinds, name = SCALARS[hint], hint.__name__

    def check(value: Any, path: str, met: Met) -> list[str]:
        fits = isinstance(value, kinds) and (hint is bool or not isinstance(value, bool))
        return [] if fits else [f"{path}: {value!r} is not {name}"]
    return check


def _annotated(hint: Any) -> Check:
    inner, *extras = get_args(hint)
    base = check_for(inner)
    schemas = [extra for extra in extras if isinstance(extra, Schema)]

    def check(value: Any, path: str, met: Met) -> list[str]:
        found = base(value, path, met)
        for schema in schemas if not found else ():
            if schema.enum is not None and value not in schema.enum:
                found.append(f"{path}: {value!r} is not one of {schema.enum}")
            if schema.pattern is not None and not re.search(schema.pattern, value):
                found.append(f"{path}: {value!r} does not match {schema.pattern}")
        return found
    return check


def _literal(allowed: tuple[Any, ...]) -> Check:
    def check(value: Any, path: str, met: Met) -> list[str]:
        fits = any(value == a and type(value) is type(a) for a in allowed)
        return [] if fits else [f"{path}: {value!r} is not one of {allowed}"]
    return check


def _union(members: list[Check]) -> Check:
    def check(value: Any, path: str, met: Met) -> list[str]:
        tried = []
        for member in members:
            member_met: Met = set()
            found = member(value, path, member_met)
            if not found:
                met |= member_met
                return []
            tried.append(found)
        return min(tried, key=len)
    return check


def _list(item: Any) -> Check:
    def check(value: Any, path: str, met: Met) -> list[str]:
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__} is not a list"]
        each = check_for(item)
        return [p for i, member in enumerate(value) for p in each(member, f"{path}[{i}]", met)]
    return check


def _dict(member_type: Any) -> Check:
    def check(value: Any, path: str, met: Met) -> list[str]:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__} is not an object"]
        each = check_for(member_type)
        return [p for key, member in value.items() for p in each(member, f"{path}.{key}", met)]
    return check


def _object(typed: Any) -> Check:
    name = typed.__name__

    def check(value: Any, path: str, met: Met) -> list[str]:
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__} is not an object ({name})"]
        declared = fields(typed)
        found = [f"{path}.{key}: not declared in {name}"
                 for key in value if key not in declared]
        for key, (hint, required) in declared.items():
            if key in value:
                met.add((name, key))
                found += check_for(hint)(value[key], f"{path}.{key}", met)
            elif required:
                found.append(f"{path}.{key}: missing (required in {name})")
        return found
    return check
