"""The booth's host settings (attract mode, the empty lobby's wait before it, sound cues):
their defaults, the check of what the host sends, and the values the store kept."""

from __future__ import annotations

from typing import Any

from kalimambo.engine.values import is_int
from kalimambo.web.core.refusals import bad_input
from kalimambo.web.storage.store import SettingKey, Store

DEFAULT_ATTRACT_AFTER_S = 120
ATTRACT_AFTER_MIN_S = 1
ATTRACT_AFTER_MAX_S = 3600
SETTINGS = {SettingKey.ATTRACT: True, SettingKey.ATTRACT_AFTER_S: DEFAULT_ATTRACT_AFTER_S,
            SettingKey.SOUND: False}
"""The booth's host settings and their defaults (kept in the store's settings)."""


def check_booth_settings(data: dict[str, Any]) -> dict[str, Any]:
    """The booth settings among ``data`` (others are the table's), checked; 400 if bad."""
    found = {key: data[key] for key in SETTINGS if key in data}
    for key in (SettingKey.ATTRACT, SettingKey.SOUND):
        if key in found and not isinstance(found[key], bool):
            raise bad_input("bad_setting", f"{key} is true or false.")
    after = found.get(SettingKey.ATTRACT_AFTER_S)
    if SettingKey.ATTRACT_AFTER_S in found and (
            not is_int(after)
            or not ATTRACT_AFTER_MIN_S <= after <= ATTRACT_AFTER_MAX_S):
        raise bad_input("bad_setting", "attract_after_s is a whole number of seconds from "
                                         f"{ATTRACT_AFTER_MIN_S} to {ATTRACT_AFTER_MAX_S}.")
    return found


def stored_booth_settings(store: Store) -> dict[str, Any]:
    """The booth settings the store kept; the default for one missing or of another kind."""
    settings: dict[str, Any] = {}
    for key, default in SETTINGS.items():
        value = store.setting(key, default)
        settings[key] = value if type(value) is type(default) else default
    return settings
