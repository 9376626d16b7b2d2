"""/proc as the kill path reads it: a bot chooses its own command name, spaces and parentheses included."""

from __future__ import annotations

import os
import subprocess
import sys

from runner.sandbox.proctree import alive, group_members, parent_of, reap, stat_fields

from .conftest import zombie_children

# The name a bot gives itself (prctl PR_SET_NAME, 15 bytes kept) may fake the fields that follow it.
RENAMED = """
import ctypes, os, sys, time
ctypes.CDLL(None).prctl(15, b"x) Z 1 1 ", 0, 0, 0)
child = os.fork()
if child == 0:
    time.sleep(60)
    os._exit(0)
print(child, flush=True)
time.sleep(60)
"""


def test_a_bots_own_command_name_does_not_change_its_state_parent_or_group():
    bot = subprocess.Popen([sys.executable, "-c", RENAMED], stdout=subprocess.PIPE, process_group=0, text=True)
    try:
        child = int(bot.stdout.readline())
        assert b"(x) Z 1 1 ) " in open(f"/proc/{bot.pid}/stat", "rb").read()  # the disguise is in place
        assert group_members(bot.pid) == {bot.pid, child}
        assert alive(bot.pid) and parent_of(bot.pid) == os.getpid()
        assert stat_fields(bot.pid)[2] == str(bot.pid).encode()  # its group, not the name's "1"
    finally:
        os.killpg(bot.pid, 9)
        bot.wait()
        reap({child})  # the orphan comes back to this process when a sandbox test made it a subreaper
    assert not alive(bot.pid) and parent_of(bot.pid) is None and stat_fields(bot.pid) == []
    assert not alive(child) and zombie_children() == []


def test_a_process_that_is_gone_has_no_fields():
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(done.stdout)
    assert stat_fields(pid) == [] and not alive(pid) and parent_of(pid) is None
    assert group_members(pid) == set()
