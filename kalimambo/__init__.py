"""The ``kalimambo`` command: a thin dispatcher that imports only what a subcommand needs."""
