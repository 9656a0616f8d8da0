"""What the table keeps on disk: the SQLite store and the archive added up from it.

``store`` writes every join, pick and round before the answer (and holds the stored
settings' key names, ``SettingKey``); ``archive`` replays the finished games' records into
results, statistics, the CSV export and score sheets.
"""

if __name__ != "kalimambo.web.storage":  # reached as "storage" from inside web/, say
    raise ImportError(f"import kalimambo.web.storage, not {__name__}: "
                      "one module, one name (README)")
