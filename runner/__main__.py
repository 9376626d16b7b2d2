"""``python -m runner``: the bot author's commands, a local match and a bot check (runner.cli)."""

import sys

from .cli import main

sys.exit(main())
