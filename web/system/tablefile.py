"""What a card tells its table about itself, read as the table starts.

On a card made by ``setup.sh --image``, ``kalimambo-card.service`` (deploy/card_setup.py)
writes ``/etc/kalimambo/table.toml`` at every boot, before the table starts: the table's
name (the board page shows it beside its QR codes, so people know which of the hall's
tables they join), the language the pages start in, and what was wrong in the volunteer's
``kalimambo.toml`` (the host page lists it). No file: a table set up by hand, none of it.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

TABLE_FILE = Path("/etc/kalimambo/table.toml")
LANGUAGES = ("en", "de", "fr", "it")
"""The pages' languages (web/i18n; a test holds the three lists equal)."""


class TableFileError(ValueError):
    """The table file cannot be used; the message says why, for a person."""


@dataclass(frozen=True)
class TableSettings:
    """The table's name (None: unnamed), the pages' first language (None: each browser's)
    and the card's settings that were wrong, one sentence each."""

    name: str | None
    language: str | None
    problems: tuple[str, ...]


def read_table_file(path: Path) -> TableSettings | None:
    """The settings ``path`` holds, or None when there is no such file."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise TableFileError(f"cannot read the table file {path}: {error}") from error
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise TableFileError(f"the table file {path} is not valid TOML ({error})") from error
    name, language = data.get("name", ""), data.get("language", "")
    problems = data.get("problems", [])
    if not isinstance(name, str) or len(name) > 63:
        raise TableFileError(f"the table file {path}: name is text of 63 characters at most")
    if language not in ("", *LANGUAGES):
        raise TableFileError(f"the table file {path}: language is one of "
                             f"{', '.join(LANGUAGES)}, not {language!r}")
    if not isinstance(problems, list) or not all(isinstance(p, str) for p in problems):
        raise TableFileError(f"the table file {path}: problems is a list of sentences")
    return TableSettings(name or None, language or None, tuple(problems))


def table_file_text(settings: TableSettings) -> str:
    """The file as the card writes it (deploy/card_setup.py) and ``read_table_file`` reads it."""
    lines = [f"name = {json.dumps(settings.name or '')}",
             f"language = {json.dumps(settings.language or '')}",
             "problems = [" + "".join(f"\n    {json.dumps(p)}," for p in settings.problems)
             + ("\n]" if settings.problems else "]")]
    return ("# Written at each boot by kalimambo-card.service from kalimambo.toml "
            "(deploy/card_setup.py)\n" + "\n".join(lines) + "\n")
