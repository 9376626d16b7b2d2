"""Signal its parent, PID 1, every process it may (-1) and the test process by its host pid."""
import os
import signal

from _bgtp import TARGETS, attempt, resign, until_go


def kill(pid):
    def action():
        os.kill(pid, signal.SIGKILL if pid != -1 else signal.SIGTERM)
        return f"signalled {pid}"
    return action


until_go()
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # kill(-1) must not take us with it
for pid in (TARGETS.get("test_pid", 0), TARGETS.get("opponent_pid", 0), os.getppid(), 1):
    if pid > 0:
        attempt(f"kill-{pid}", kill(pid))
try:
    os.kill(-1, signal.SIGTERM)  # every process we may signal; only our own sandbox should be hit
except OSError:
    pass
resign()
