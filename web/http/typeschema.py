"""JSON Schema from Python types: the OpenAPI document's view schemas are made from the
views' one description (``web/core/viewtypes.py``), so the two cannot drift.

Understood: ``str``, ``int``, ``float``, ``bool``, ``None``, ``list[T]``,
``dict[str, T]``, ``Literal[...]``, unions (``X | None`` too), ``Annotated[T,
Schema(...)]`` and TypedDicts (``NotRequired`` keys left out of ``required``).  Each
TypedDict becomes a named component (its docstring its description) and is referred
to by ``$ref``; anything else is refused, so a new kind of value cannot slip in
undescribed.  Objects stay open (no ``additionalProperties: false``): clients ignore
keys they do not know (docs/API.md), so adding one is no new version.
"""

from __future__ import annotations

import inspect
import types
from functools import cache
from typing import (
    Annotated,
    Any,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

from kalimambo.web.core.viewtypes import Schema

JSON = dict[str, Any]
SCALARS: dict[object, JSON] = {str: {"type": "string"}, int: {"type": "integer"},
                               float: {"type": "number"}, bool: {"type": "boolean"},
                               type(None): {"type": "null"}, None: {"type": "null"},
                               object: {}}
"""``object``: any JSON value (a JSON Patch operation's ``value``)."""


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


@cache
def fields(typed: Any) -> dict[str, tuple[Any, bool]]:
    """A TypedDict's keys, each with its type and whether it is required (read from the
    annotations, so string annotations and inherited keys count as they are written).
    Do not change the answer: it is kept for the next call."""
    found = {}
    for key, hint in get_type_hints(typed, include_extras=True).items():
        required = bool(getattr(typed, "__total__", True))
        if get_origin(hint) in (NotRequired, Required):
            required = get_origin(hint) is Required
            (hint,) = get_args(hint)
        found[key] = (hint, required)
    return found


def is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


def schema_of(hint: Any, components: dict[str, JSON]) -> JSON:
    """The JSON Schema of ``hint``; each TypedDict met is added to ``components`` (once,
    by its name) and referred to."""
    origin = get_origin(hint)
    if hint in SCALARS:
        return dict(SCALARS[hint])
    if origin is Annotated:
        inner, *extras = get_args(hint)
        schema = schema_of(inner, components)
        for extra in extras:
            if isinstance(extra, Schema):
                schema.update(extra.keywords())
        return schema
    if origin is Literal:
        values = list(get_args(hint))
        return {"const": values[0]} if len(values) == 1 else {"enum": values}
    if is_union(hint):
        return {"anyOf": [schema_of(member, components) for member in get_args(hint)]}
    if origin is list:
        (item,) = get_args(hint)
        return {"type": "array", "items": schema_of(item, components)}
    if origin is dict:
        key, value = get_args(hint)
        if key is not str:
            raise TypeError(f"JSON object keys are strings, not {key!r}")
        return {"type": "object", "additionalProperties": schema_of(value, components)}
    if is_typeddict(hint):
        name = hint.__name__
        if name not in components:
            components[name] = {}  # taken before its keys: a type may refer to itself
            components[name] = _object(hint, components)
        return ref(name)
    raise TypeError(f"no JSON Schema for {hint!r}")


def _object(typed: Any, components: dict[str, JSON]) -> JSON:
    described = fields(typed)
    schema: JSON = {"type": "object",
                    "required": [key for key, (_, required) in described.items() if required],
                    "properties": {key: schema_of(hint, components)
                                   for key, (hint, _) in described.items()}}
    doc = typed.__doc__
    if doc and not doc.startswith(f"{typed.__name__}("):  # not the generated one
        schema["description"] = " ".join(inspect.cleandoc(doc).split())
    return schema


def components_of(*roots: Any) -> dict[str, JSON]:
    """The named schemas of ``roots`` and of every TypedDict they hold."""
    components: dict[str, JSON] = {}
    for root in roots:
        schema_of(root, components)
    return components
