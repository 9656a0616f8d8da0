"""docs/API.md lists the views' keys as their one description (web/core/viewtypes.py)
declares them: its example view holds every key and nothing else, its key tables name
each key once, and ``/me`` names the keys of ``me``."""

from __future__ import annotations

import json
import re

from kalimambo.web.core.viewtypes import MeView, PowerView, PublicView
from kalimambo.web.http.typeschema import fields
from tests.helpers import ROOT
from tests.view_check import problems

API_MD = ROOT / "docs" / "API.md"
KEYS_CELL = re.compile(r"`([a-z_]+)`")


def section(text: str, heading: str) -> str:
    start = text.index(f"\n{heading}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def key_tables(text: str) -> list[set[str]]:
    """The keys named in the first cell of each ``| key | meaning |`` table, in order."""
    tables: list[set[str]] = []
    rows: set[str] | None = None
    for line in text.splitlines():
        if line.startswith("| key | meaning |"):
            rows = set()
            tables.append(rows)
        elif rows is not None and line.startswith("| `"):
            rows.update(KEYS_CELL.findall(line.split("|")[1]))
        elif rows is not None and not line.startswith("| ---"):
            rows = None
    return tables


def public_view_part() -> str:
    return section(API_MD.read_text("utf-8"), "## The public view")


def test_the_example_view_is_a_whole_public_view() -> None:
    part = public_view_part()
    example = json.loads(part.split("```json\n", 1)[1].split("```", 1)[0])
    assert problems(example, PublicView) == []


def test_the_key_tables_name_the_public_views_keys_and_powers() -> None:
    tables = key_tables(public_view_part())
    assert tables[:2] == [set(fields(PublicView)), set(fields(PowerView))]


def test_me_names_its_keys() -> None:
    row = next(line for line in API_MD.read_text("utf-8").splitlines()
               if line.startswith("| `GET /api/v1/me` |"))
    me = re.search(r'"me": \{([^}]*)\}', row)
    assert me is not None
    assert set(re.findall(r'"(\w+)"', me.group(1))) == set(fields(MeView))


def test_the_table_reader_sees_a_key_left_out() -> None:
    text = ("| key | meaning |\n| --- | --- |\n| `a`, `b` | two |\n| `c` | `not_a_key` |\n"
            "\nprose\n\n| key | meaning |\n| --- | --- |\n| `d` | one |\n")
    assert key_tables(text) == [{"a", "b", "c"}, {"d"}]
