"""A bot whose import fails at start, as one needing a library the sandbox does not have."""

import sys

import arena_no_such_module  # noqa: F401

sys.exit(0)
