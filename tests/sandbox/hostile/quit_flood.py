"""Resign, then at ``quit`` keep writing stdout without a newline (256 MiB at most) instead of exiting."""
import signal
import sys

from _bgtp import resign, until_go

until_go()
signal.signal(signal.SIGTERM, signal.SIG_IGN)
resign()  # returns at quit
block = b"x" * (1 << 20)
try:
    for _ in range(256):
        sys.stdout.buffer.write(block)
        sys.stdout.buffer.flush()
except (BrokenPipeError, OSError):
    pass
