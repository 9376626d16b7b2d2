"""Count the processes visible in /proc and read their command lines and environments."""
import os

from _bgtp import TARGETS, attempt, resign, until_go


def foreign_processes():
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ")
            except OSError:
                continue
            if b"pytest" in cmdline or b"postgres" in cmdline or b"redis" in cmdline:
                found.append(cmdline[:100])
    return found


def test_process_environ():
    with open(f"/proc/{TARGETS['test_pid']}/environ", "rb") as handle:
        return handle.read(4096)


until_go()
attempt("proc-foreign", foreign_processes)
attempt("proc-test-environ", test_process_environ)
resign()
