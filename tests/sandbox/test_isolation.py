"""Bots of different matches on one host cannot slow each other: the CPU is shared between bots, not
between their processes (each bot's cgroup has the same weight), and a paused bot stays paused.

The hog is a bot as a match would start it, whose sixty processes each leave its session with setsid()
and spin; beside it, games at a tight clock between a bot that needs real CPU for every action and a
quick one. Without per-bot CPU weights the busy bot gets a sixtieth of the cores and loses on time.
"""

from __future__ import annotations

import os
import select
import time
import uuid

import pytest

from runner.bots import load_bot
from runner.match import play_game
from runner.sandbox import Limits, open_sandbox

from .conftest import processes_with

pytestmark = pytest.mark.slow

HOG = """
import os, sys, time
END = time.monotonic() + {seconds}  # bounded by itself, whatever happens to the test
for _ in range({children}):
    if os.fork() == 0:
        os.setsid()
        while time.monotonic() < END:
            pass
        os._exit(0)
sys.stdout.write("spinning\\n")
sys.stdout.flush()
time.sleep({seconds})
"""

# Each action costs BUSY_MS of its own CPU time, out of a budget of TC_MS.
BUSY = """
import random, sys, time
BUSY_S = {busy_ms} / 1000
def say(line):
    sys.stdout.write(line + "\\n"); sys.stdout.flush()
legal = []
for raw in sys.stdin:
    words = raw.split()
    if not words:
        continue
    if words[0] == "bgtp":
        say("bgtp 1 name=busy")
    elif words[0] == "newgame":
        say("ready")
    elif words[0] == "legal":
        legal = words[1:]
    elif words[0] == "go":
        start = time.process_time()
        while time.process_time() - start < BUSY_S:
            pass
        say("move " + random.choice(legal))
    elif words[0] == "quit":
        break
"""

def test_the_sandbox_says_whether_it_keeps_bots_apart(sandbox):
    from runner.sandbox.bubblewrap import BubblewrapSandbox
    from runner.sandbox.cgroups import CgroupHost

    bare = BubblewrapSandbox(sandbox.bwrap, CgroupHost())  # what a container without a cgroup of its own has
    assert bare.isolation_problem() == "no per-bot cgroup control of memory, pids, cpu, freezer (none)"
    if os.geteuid() == 0 or os.environ.get("CI"):  # CI runs as root on a host with every controller
        assert sandbox.isolation_problem() == "", sandbox.describe()


HOG_PROCESSES, BUSY_MS, TC_MS, GAMES, PLIES = 60, 30, 150, 20, 60


def bot_of(tmp_path, name: str, source: str):
    """A bot whose every process has ``name`` in its command line."""
    directory = tmp_path / name
    directory.mkdir()
    (directory / f"{name}.py").write_text(source)
    (directory / "bot.toml").write_text(f'run = "python3 {name}.py"\n')
    return load_bot(directory)


def test_a_bot_of_sixty_detached_processes_does_not_slow_a_bot_in_another_match(sandbox, tmp_path, opponent):
    marker = "hog_" + uuid.uuid4().hex[:8]
    hog = bot_of(tmp_path, marker, HOG.format(seconds=300, children=HOG_PROCESSES))
    busy = bot_of(tmp_path, "busy", BUSY.format(busy_ms=BUSY_MS))
    limits = Limits(processes=HOG_PROCESSES + 8)
    workdir = sandbox.prepare(hog, limits)
    proc = sandbox.spawn(workdir, hog, limits, {})
    try:
        assert proc.stdout.readline() == b"spinning\n"
        time.sleep(0.5)
        assert len(processes_with(marker)) > HOG_PROCESSES // 2  # the hog really runs
        losses = []
        for number in range(GAMES):
            record = play_game("tafl9", busy, opponent[0], tc=f"move:{TC_MS}", sandbox=sandbox, max_plies=PLIES,
                               seed=number)
            if record["reason"] == "timeout":
                losses.append((number, record["detail"]))
    finally:
        proc.kill()
        workdir.remove()
    assert losses == []
    assert processes_with(marker) == []


# Each generation forks its successor and exits at once: a pause that signals the processes it finds
# misses the one born in between, which runs on (and on the opponent's clock).
RELAY = """
import os, time
END = time.monotonic() + 60
if os.fork():  # the bot's first process stays (the sandbox ends with it); the relay runs beside it
    time.sleep(60)
    os._exit(0)
generation = 0
while time.monotonic() < END:
    if os.fork():
        os._exit(0)
    generation += 1
    if generation % 20 == 0:
        os.write(1, b"tick\\n")
"""


def ticks(stream, seconds: float) -> int:
    """Lines the relay wrote within ``seconds``."""
    count, deadline = 0, time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        if select.select([stream], [], [], left)[0]:
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                break
            count += chunk.count(b"\n")
    return count


def test_a_paused_bot_stays_paused_however_fast_it_forks(tmp_path):
    """With the cgroup freezer nothing of a paused bot runs. (Without one, by SIGSTOP to the processes
    found, the relay runs on, or is left stopped after the resume: tried with ``CgroupHost()``.)"""
    sandbox = open_sandbox()
    if not sandbox.cgroups.can_freeze:
        message = f"this host offers no cgroup freezer: {sandbox.cgroups.describe()}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    relay = bot_of(tmp_path, "relay_" + uuid.uuid4().hex[:8], RELAY)
    workdir = sandbox.prepare(relay, Limits())
    proc = sandbox.spawn(workdir, relay, Limits(), {})
    try:
        assert ticks(proc.stdout, 1.0) > 0  # it runs
        escapes = 0
        for _ in range(5):
            proc.suspend()
            ticks(proc.stdout, 0.2)  # what was written before the pause took hold
            escapes += ticks(proc.stdout, 0.5)
            proc.resume()
            assert ticks(proc.stdout, 0.5) > 0
    finally:
        proc.kill()
        workdir.remove()
    assert escapes == 0
