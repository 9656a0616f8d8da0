"""``python -m kalimambo`` runs the same command as ``kalimambo``."""

import sys

from kalimambo.cli import main

sys.exit(main())
