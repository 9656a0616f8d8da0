"""The running table: the service around the core, and what it runs.

``service.Table`` holds the lock, saves each plan to the store before the core applies it,
keeps the clock and tells its listeners; around it the computer players (``bots``, run
through ``tasks``), the hint desk (``hints``), replays and attract mode (``replay``), the
table's day (``day``) and the host's login (``hostlogin``).
"""

if __name__ != "kalimambo.web.table":  # reached as "table" from inside web/, say
    raise ImportError(f"import kalimambo.web.table, not {__name__}: "
                      "one module, one name (README)")
