"""Open pseudo-terminals, up to 64: every one taken comes out of the host's shared pool (kernel.pty.max)."""
import os

from _bgtp import report, resign, until_go

CEILING = 64

until_go()
held = []
try:
    while len(held) < CEILING:
        held.extend(os.openpty())
except OSError as error:
    outcome = "SUCCEEDED" if held else "BLOCKED"
    report("pty", f"{outcome} errno={error.errno} after {len(held) // 2} terminals")
else:
    report("pty", f"SUCCEEDED {len(held) // 2} terminals")
for fd in held:
    os.close(fd)
resign()
