"""TypedDict to JSON Schema (web/http/typeschema.py): each kind of type it knows, what
it refuses, and the served document's view schemas made by it from web/core/viewtypes.py.

This module's annotations are strings (``from __future__ import annotations``), as a
TypedDict's may be: ``NotRequired`` must still leave a key out of ``required``."""

from __future__ import annotations

from typing import Annotated, Any, Literal, NotRequired, TypedDict

import pytest

from kalimambo.web.core import viewtypes
from kalimambo.web.core.viewtypes import Schema
from kalimambo.web.http.openapi import VIEWS, document
from kalimambo.web.http.typeschema import components_of, schema_of


class Inner(TypedDict):
    """An inner
    object."""

    n: int


class Sample(TypedDict):
    text: str
    count: int
    share: float
    flag: bool
    nothing: None
    maybe: int | None
    kinds: Literal["a", "b"]
    one: Literal[True]
    names: list[str]
    scores: dict[str, int]
    inner: Inner
    inners: list[Inner | None]
    worded: Annotated[str, Schema(enum=("x", "y"), description="a word")]
    later: NotRequired[str]


class Extended(Sample):
    more: bool


def test_each_kind_of_type_becomes_its_schema() -> None:
    components = components_of(Extended)
    assert components["Inner"] == {"type": "object", "required": ["n"],
                                   "properties": {"n": {"type": "integer"}},
                                   "description": "An inner object."}
    extended = components["Extended"]
    assert "description" not in extended
    assert extended["required"] == [key for key in extended["properties"] if key != "later"]
    assert extended["properties"] == {
        "text": {"type": "string"}, "count": {"type": "integer"},
        "share": {"type": "number"}, "flag": {"type": "boolean"},
        "nothing": {"type": "null"},
        "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "kinds": {"enum": ["a", "b"]}, "one": {"const": True},
        "names": {"type": "array", "items": {"type": "string"}},
        "scores": {"type": "object", "additionalProperties": {"type": "integer"}},
        "inner": {"$ref": "#/components/schemas/Inner"},
        "inners": {"type": "array", "items": {"anyOf": [
            {"$ref": "#/components/schemas/Inner"}, {"type": "null"}]}},
        "worded": {"type": "string", "enum": ["x", "y"], "description": "a word"},
        "later": {"type": "string"},
        "more": {"type": "boolean"},
    }
    assert set(components) == {"Inner", "Extended"}  # Sample is only its base


@pytest.mark.parametrize("hint", [Any, set[int], dict[int, str], tuple[int, int], bytes])
def test_a_type_without_a_json_schema_is_refused(hint: Any) -> None:
    with pytest.raises(TypeError):
        schema_of(hint, {})


def test_the_documents_view_schemas_are_made_from_the_description() -> None:
    schemas = document()["components"]["schemas"]
    assert {name: schemas[name] for name in VIEWS} == VIEWS
    assert {viewtypes.PublicView.__name__, viewtypes.PrivateView.__name__,
            viewtypes.ReplayBoard.__name__, viewtypes.HistoryEntry.__name__} <= set(VIEWS)
    assert set(schemas["PrivateView"]["required"]) == (
        set(schemas["PublicView"]["required"]) | {"me"})
