"""The running table: the Table around the core, and what it runs.

``table.Table`` holds the lock and the commands, saves each plan to the store before
the core applies it, and publishes each view (``publisher``); around it the playback
modes (``modes``: the game, or a replay from ``replay``), restoring from the store
(``restore``), the computer players and hints (``thinking``, ``bots``, ``hints``, run
through ``tasks``), open streams (``streams``), records (``records``), the table's day
(``day``) and the host's login (``hostlogin``).
"""
