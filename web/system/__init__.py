"""Around the web worker: the data dir at start, systemd, the machine's address, the lights child.

``startup`` opens and checks the data dir in gunicorn's master before any worker;
``sdnotify`` and ``liveness`` speak to systemd (its watchdog fed only while the worker
answers itself); ``netaddr`` finds the address phones should open; ``lightschild`` runs
``kalimambo lights`` as a supervised child of ``kalimambo serve``.
"""
