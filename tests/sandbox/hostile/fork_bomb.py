"""Fork up to 300 children that each sleep 20 s (the bound), then report how many it got."""
import os
import time

from _bgtp import attempt, resign, until_go

CEILING, NAP = 300, 20


def fork_bomb():
    children = 0
    for _ in range(CEILING):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(NAP)
            os._exit(0)
        children += 1
    return f"{children} children" if children >= CEILING else None


until_go()
attempt("fork-bomb", fork_bomb)
resign()
