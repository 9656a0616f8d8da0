"""The README, docs/ and hardware/ stay inside the repository: every link and every
file they name is there, every #anchor is a heading, and none leads to files that a
clone does not have (the specs the project started from lived beside the checkout)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEXT_SUFFIXES = {".md", ".toml", ".csv", ".svg", ".txt"}
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
NAMED_MD = re.compile(r"(?<![\w/.-])((?:\.\./|\./)?[\w./-]*[\w-]+\.md)\b")
CODE_PATH = re.compile(r"`((?:engine|web|firmware|kalimambo|tests|hardware|docs|deploy|bench)"
                       r"/[\w./-]*)`")
OUTSIDE = re.compile(r"\.\./shared|/work/|file://")
MADE_BY_RUNS = {"tests/artifacts"}
"""Folders that runs make (and .gitignore keeps out of a clone): named, never shipped."""


def documents() -> list[Path]:
    found = [ROOT / "README.md"]
    for folder in ("docs", "hardware"):
        found += sorted(p for p in (ROOT / folder).rglob("*") if p.suffix in TEXT_SUFFIXES)
    return found


def slug(heading: str) -> str:
    """The anchor a Markdown heading gets on GitHub."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {slug(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def problems_in(path: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the references in one file (nothing: an empty list)."""
    text = path.read_text(encoding="utf-8")
    where = path.relative_to(root)
    found = [f"{where}: points outside the repository: {m.group(0)!r}"
             for m in OUTSIDE.finditer(text)]
    # Links resolve from the file's folder; a file named in the prose (a path in
    # backticks, a *.md name) may also be meant from the repository's root.
    targets = [(m.group(1), False) for m in LINK.finditer(text)]
    if path.suffix == ".md":
        prose = LINK.sub("", text)
        targets += [(name, True) for name in NAMED_MD.findall(prose)]
        targets += [(m.group(1), True) for m in CODE_PATH.finditer(prose)]
    for target, named in targets:
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        if named and file_part.rstrip("/") in MADE_BY_RUNS:
            continue
        resolved = (path.parent / file_part).resolve() if file_part else path
        if named and not resolved.exists():
            resolved = (root / file_part).resolve()
        if not resolved.is_relative_to(root):
            found.append(f"{where}: {target!r} leaves the repository")
        elif not resolved.exists():
            found.append(f"{where}: {target!r} does not exist")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            found.append(f"{where}: {target!r}: no heading #{anchor} there")
    return found


@pytest.mark.parametrize("path", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_links_and_named_files_stay_inside_and_exist(path: Path) -> None:
    assert problems_in(path) == []


def test_the_checker_catches_what_it_is_for(tmp_path: Path) -> None:
    """The scan is not vacuous: each kind of bad reference is reported, good ones not."""
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "web").mkdir()
    (root / "web" / "api.py").write_text("")
    (root / "docs" / "RULES.md").write_text("# Rules\n\n## The end\n")
    page = root / "docs" / "probe.md"
    page.write_text("# Probe\n\nSee [rules](../../shared/RULES.md), DESIGN.md, "
                    "[gone](missing.md), [a part](RULES.md#no-such-part), `web/nothing.py`, "
                    "and [fine](RULES.md#the-end), `web/api.py`, docs/RULES.md.\n")
    problems = problems_in(page, root)
    joined = "\n".join(problems)
    assert "outside the repository" in joined and "leaves the repository" in joined
    assert "'DESIGN.md' does not exist" in joined
    assert "'missing.md' does not exist" in joined
    assert "no heading #no-such-part" in joined
    assert "'web/nothing.py' does not exist" in joined
    assert len(problems) == 6, problems
