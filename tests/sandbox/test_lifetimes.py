"""1,000 sandboxed bot lifetimes (spawn, handshake, kill) leave no zombie and no survivor."""

from __future__ import annotations

import os
import select
import time
import uuid
from pathlib import Path

import pytest

from runner.bots import load_bot
from runner.sandbox import Limits

from .conftest import processes_with, zombie_children

LIFETIMES = 1000
HANDSHAKE_BOT = """
import os, sys, time
if os.fork() == 0:          # every other lifetime leaves a child behind in a new session
    if {linger}:
        os.setsid()
        time.sleep(60)
    os._exit(0)
for line in sys.stdin:
    if line.startswith("bgtp"):
        print("bgtp 1 name=lifetime", flush=True)
"""


def handshake(proc) -> bytes:
    proc.stdin.write(b"bgtp 1\n")
    ready, _, _ = select.select([proc.stdout], [], [], 20)
    assert ready, "no handshake reply"
    return proc.stdout.read(64)


def cgroup_leftovers() -> list[Path]:
    """Cgroups this process made (their names end in its pid); other workers may be running."""
    found = []
    for root in Path("/sys/fs/cgroup").glob("*"):
        found += [p for p in root.rglob(f"tabula-*-{os.getpid()}") if p.is_dir()] if root.is_dir() else []
    return found


@pytest.mark.slow
def test_a_thousand_lifetimes_leave_nothing_behind(sandbox, tmp_path):
    marker = "lifetime_" + uuid.uuid4().hex[:8]
    bots = []
    for linger in (False, True):
        path = tmp_path / f"{marker}_{int(linger)}.py"
        path.write_text(HANDSHAKE_BOT.format(linger=linger))
        bots.append(load_bot(path))
    limits = Limits()
    started = time.monotonic()
    for lifetime in range(LIFETIMES):
        bot = bots[lifetime % 2]
        proc = sandbox.spawn(sandbox.prepare(bot, limits), bot, limits, {})
        assert handshake(proc).startswith(b"bgtp 1 name=lifetime")
        proc.kill()
    elapsed = time.monotonic() - started
    assert processes_with(marker) == []
    assert zombie_children() == []
    assert cgroup_leftovers() == []
    assert not list((Path(os.environ.get("TMPDIR", "/tmp")) / "tabula-bots").glob(f"{marker}*"))
    print(f"{LIFETIMES} lifetimes in {elapsed:.1f} s ({elapsed / LIFETIMES * 1000:.1f} ms each)")
