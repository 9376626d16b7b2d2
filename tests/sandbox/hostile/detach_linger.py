"""Double fork and setsid: a daemon in its own session that outlives the game (60 s at most)."""
import os
import sys
import time

from _bgtp import report, resign, until_go

until_go()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for fd in (0, 1, 2):
            os.close(fd)  # a daemon does not hold the pipes, so only a real tree kill finds it
        time.sleep(60)
    os._exit(0)
os.wait()
report("detach", "BLOCKED (the test checks the daemon does not survive)")
resign()
sys.exit(0)
