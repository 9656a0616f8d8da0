"""mypy over the project, each module under its one import name.

The package maps ``kalimambo.engine``, ``kalimambo.web`` and ``kalimambo.firmware`` to the
top-level folders (``package-dir`` in pyproject.toml). mypy cannot follow the editable
install's import hook (setuptools' finder), and on its own it names a file by its folder
(``engine/game.py`` would be ``engine.game``). So this hands mypy every file with the
name the install gives it, read from the same map; mypy's settings stay in pyproject.toml.

    .venv/bin/python tools/typecheck.py            (add mypy's own options after it)
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from mypy import build
from mypy.errors import CompileError
from mypy.main import process_options
from mypy.modulefinder import BuildSource

ROOT = Path(__file__).resolve().parent.parent
EXTRA = {"bench": "bench"}
"""Folders checked beside the package, under their folder's name (never installed)."""
SCRIPTS = ("deploy/build_lgpio.py", "deploy/build_image.py", "deploy/card_data.py",
           "deploy/card_root.py", "deploy/card_setup.py", "tools/typecheck.py")


def folders() -> dict[str, Path]:
    """Import name -> folder: the package's map from pyproject.toml, then the extras."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    mapped = config["tool"]["setuptools"]["package-dir"]
    found = {"kalimambo": ROOT / "kalimambo"}
    found |= {name: ROOT / folder for name, folder in mapped.items()}
    return found | {name: ROOT / folder for name, folder in EXTRA.items()}


def module_name(prefix: str, folder: Path, path: Path) -> str:
    parts = list(path.relative_to(folder).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([prefix, *parts])


def sources() -> list[BuildSource]:
    """Every .py file once, under the longest mapped name that holds it (web/core is
    kalimambo.web.core, not a folder of its own)."""
    mapped = folders()
    named: dict[Path, str] = {}
    for prefix, folder in sorted(mapped.items(), key=lambda item: -len(item[0])):
        for path in sorted(folder.rglob("*.py")):
            named.setdefault(path, module_name(prefix, folder, path))
    found = [BuildSource(str(path.relative_to(ROOT)), name) for path, name in named.items()]
    found += [BuildSource(script, Path(script).stem) for script in SCRIPTS]
    return found


def main(argv: list[str]) -> int:
    _, options = process_options(["--config-file", str(ROOT / "pyproject.toml"), *argv,
                                  "--", "tools/typecheck.py"])
    try:
        result = build.build(sources(), options)
        messages = result.errors
    except CompileError as failed:
        messages = failed.messages
    for line in messages:
        print(line)
    if messages:
        return 1
    print(f"Success: no issues found in {len(sources())} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
