"""Flood stdout with info lines (64 MiB at most) instead of moving."""
import sys

from _bgtp import until_go

until_go()
line = "info " + "x" * 1000 + "\n"
try:
    for _ in range((64 << 20) // len(line)):
        sys.stdout.write(line)
    sys.stdout.flush()
except (BrokenPipeError, OSError):
    pass
