"""``python -m engines``: the referee's command line (engines.cli)."""

import sys

from .cli import main

sys.exit(main())
