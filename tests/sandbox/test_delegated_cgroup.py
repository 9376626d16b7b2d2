"""The compose worker's cgroups, played out without a Docker engine: a private cgroup namespace rooted at a
cgroup of its own, mounted read-only as Docker mounts it, and only the capabilities compose gives the worker.

``scripts/worker-entry`` remounts it writable and drops the privilege that took; the worker, sitting in the root
of its subtree with the whole container, moves itself into a leaf so that the root may enable controllers for
the bots' cgroups beside it (v2 lets only a cgroup without processes do that). This host keeps memory, pids and
cpu on v1, so the controllers the leaf move unlocks here are the v2 ones it has (hugetlb); on a v2 host
they are memory, pids and cpu themselves, by the same code.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
# compose's worker: cap_drop ALL, then these (docs/deployment.md).
COMPOSE_CAPS = ("cap_setuid", "cap_setgid", "cap_kill", "cap_sys_admin", "cap_setpcap")
CAP_SYS_ADMIN, CAP_SETPCAP = 21, 8

PROBE = """
import json, os, select, sys, time
from pathlib import Path
from runner.bots import load_bot
from runner.sandbox import Limits, open_sandbox
from runner.sandbox.cgroups import LIMITED, CgroupHost

root = Path("/sys/fs/cgroup")
extra = tuple(set(root.joinpath("cgroup.controllers").read_text().split()) - set(LIMITED))
host = CgroupHost.detect(LIMITED + extra)
leaf = root / "worker" / "cgroup.procs"
leaf_procs = leaf.read_text().split() if leaf.exists() else []
bounding = int(next(l for l in open("/proc/self/status") if l.startswith("CapBnd")).split()[1], 16)
report = {"v2": str(host.v2), "enabled": sorted(host.v2_controllers), "available": sorted(extra),
          "root_procs": root.joinpath("cgroup.procs").read_text().split(),
          "leaf_has_me": str(os.getpid()) in leaf_procs,
          "bounding": bounding, "can_freeze": host.can_freeze}
sandbox = open_sandbox()
bot = load_bot(Path(sys.argv[1]))
proc = sandbox.spawn(sandbox.prepare(bot, Limits()), bot, Limits(), {})
proc.stdin.write(b"bgtp 1\\n")
report["handshake"] = bool(select.select([proc.stdout], [], [], 20)[0]) and proc.stdout.readline().decode()
bot_cgroup = proc.cgroup.v2
report["bot_cgroup_parent"] = str(bot_cgroup.parent)
proc.suspend()
deadline = time.monotonic() + 5  # the kernel reports the freeze once every task has stopped
while "frozen 1" not in bot_cgroup.joinpath("cgroup.events").read_text() and time.monotonic() < deadline:
    time.sleep(0.01)
report["frozen"] = "frozen 1" in bot_cgroup.joinpath("cgroup.events").read_text()
proc.resume()
proc.kill()
report["bot_cgroup_removed"] = not bot_cgroup.exists()
print(json.dumps(report))
"""


def _own_v2() -> Path | None:
    """This process's cgroup on the v2 hierarchy, if it is mounted here."""
    path = next((line.split(":", 2)[2].strip() for line in open("/proc/self/cgroup") if line.startswith("0::")), None)
    for line in open("/proc/self/mounts"):
        device, where, kind, *_ = line.split()
        if kind == "cgroup2" and path is not None:
            return Path(where) / path.lstrip("/")
    return None


@pytest.fixture
def delegated():
    """A cgroup of its own for the emulated container, with the v2 controllers this host has available."""
    parent = _own_v2()
    tools = [shutil.which(tool) for tool in ("unshare", "capsh", "setpriv", "bwrap")]
    problem = ("needs root" if os.geteuid() != 0 else "no cgroup2 mount" if parent is None
               else "needs unshare, capsh, setpriv and bwrap" if not all(tools) else "")
    if not problem:
        controllers = parent.joinpath("cgroup.controllers").read_text().split()
        for controller in controllers:
            try:
                parent.joinpath("cgroup.subtree_control").write_text(f"+{controller}")
            except OSError:
                pass
        if not parent.joinpath("cgroup.subtree_control").read_text().split():
            problem = f"no v2 controller can be enabled under {parent}"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"CI must play the compose worker's cgroups, but: {problem}")
        pytest.skip(problem)
    container = parent / f"compose-worker-{uuid.uuid4().hex[:8]}"
    container.mkdir()
    yield container
    for child in sorted(container.rglob("*"), reverse=True):
        if child.is_dir():
            child.rmdir()
    container.rmdir()


def test_the_compose_worker_takes_its_own_cgroup_with_only_its_privileges(delegated, tmp_path):
    bot = tmp_path / "bot.py"
    bot.write_text("import sys\nfor line in sys.stdin:\n    print('bgtp 1 name=delegated', flush=True)\n")
    (tmp_path / "probe.py").write_text(PROBE)
    drop = ",".join(cap for cap in _all_caps() if cap not in COMPOSE_CAPS)
    # As Docker starts a container with `cgroup: private`: a cgroup namespace rooted at the container's cgroup,
    # a mount namespace whose /sys/fs/cgroup is that cgroup alone, read-only; then compose's capabilities.
    container = (
        "umount -R /sys/fs/cgroup 2>/dev/null || umount -l /sys/fs/cgroup 2>/dev/null; "
        "mount -t cgroup2 -o ro none /sys/fs/cgroup && "
        f"exec capsh --drop={drop} -- -c 'exec {PROJECT}/scripts/worker-entry {sys.executable} probe.py {bot}'")
    result = subprocess.run(
        ["sh", "-c", f'echo $$ > {delegated}/cgroup.procs && exec unshare --cgroup --mount --propagation private '
                     f'sh -c "$0"', container],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(PROJECT)}, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert not report["bounding"] & (1 << CAP_SYS_ADMIN | 1 << CAP_SETPCAP), "the worker could mount again"
    assert report["v2"] == "/sys/fs/cgroup"
    assert report["available"] and report["enabled"] == report["available"]  # the root may give them to bots
    assert report["root_procs"] == [] and report["leaf_has_me"]  # because the worker left it for its leaf
    assert report["handshake"].startswith("bgtp 1 name=delegated")
    assert report["bot_cgroup_parent"] == "/sys/fs/cgroup"  # the bot's cgroup is the leaf's sibling
    assert report["can_freeze"] and report["frozen"]
    assert report["bot_cgroup_removed"]


def test_without_a_namespace_of_its_own_the_worker_leaves_the_hosts_tree_read_only(delegated, tmp_path):
    """Docker's ``cgroupns=host`` shows the host's whole tree: making that writable would hand the container
    every cgroup on the host, so the entry refuses and the worker goes on without cgroups per bot."""
    container = ("umount -R /sys/fs/cgroup 2>/dev/null || umount -l /sys/fs/cgroup 2>/dev/null; "
                 "mount -t cgroup2 -o ro none /sys/fs/cgroup && "
                 f"exec {PROJECT}/scripts/worker-entry cat /proc/self/mounts")
    result = subprocess.run(
        ["sh", "-c", f'echo $$ > {delegated}/cgroup.procs && exec unshare --mount --propagation private '
                     f'sh -c "$0"', container], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "no private cgroup namespace" in result.stderr
    assert " /sys/fs/cgroup cgroup2 ro," in result.stdout


def _all_caps() -> list[str]:
    bounding = subprocess.run(["capsh", "--print"], capture_output=True, text=True).stdout
    line = next(line for line in bounding.splitlines() if line.startswith("Bounding set"))
    return line.split("=", 1)[1].split(",")
