"""The board file both processes read: ``--config``, else /etc/kalimambo/board.toml."""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEFAULT_CONFIG = Path("/etc/kalimambo/board.toml")


def config_path(path: str | None) -> str | None:
    """The board file in use: the option's, else the default if it exists, else None."""
    if path is not None:
        return path
    return str(DEFAULT_CONFIG) if DEFAULT_CONFIG.exists() else None


def load_hardware(path: str | None) -> Any:
    """The board file read (a ``HardwareConfig``); raises ValueError with a one-line reason."""
    from kalimambo.firmware.hardware import HardwareFileError, default_hardware, load_hardware_file

    path = config_path(path)
    if path is None:
        return default_hardware()
    if not Path(path).is_file():
        raise ValueError(f"board file {path}: not found")
    try:
        return load_hardware_file(path)
    except HardwareFileError as error:  # its message already starts with the file's name
        raise ValueError(str(error)) from None
    except OSError as error:
        raise ValueError(f"board file {path}: {error.strerror or error}") from None
