"""What the table keeps on disk: the SQLite store and the archive added up from it.

``store`` writes every join, pick and round before the answer (and holds the stored
settings' key names, ``SettingKey``); ``archive`` resolves the finished games' records into
results, statistics, the CSV export and score sheets.
"""
