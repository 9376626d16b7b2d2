"""Signal the test process by its host pid, then everything it may signal (kill -1).

Its own parent and PID 1 are signalled too, but those live in its own sandbox
(hurting them only hurts itself), so they are not reported as an attack; the
test checks that the test process and the opponent were untouched.
"""
import os
import signal

from _bgtp import TARGETS, attempt, resign, until_go


def kill_test_process():
    os.kill(TARGETS["test_pid"], signal.SIGKILL)
    return f"signalled {TARGETS['test_pid']}"


until_go()
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # kill(-1) must not take us with it
attempt("kill-test-process", kill_test_process)
for pid in (-1, 1, os.getppid()):
    try:
        os.kill(pid, signal.SIGTERM)
    except OSError:
        pass
resign()
