"""Per-bot cgroups (v1, v2 or hybrid; whatever the host offers): memory and pids limits, an equal CPU weight,
freeze, kill."""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from .base import Limits, SandboxError
from .proctree import kill_pid, read_text

CPU_SHARES, CPU_WEIGHT = 1024, 100  # the defaults of v1 and v2: one bot, one equal share


# The controllers that keep bots apart (v2 names; v1 has cpu, memory and pids under the same names).
LIMITED = ("memory", "pids", "cpu")
# Where a worker at the root of a delegated subtree moves its own processes (see ``_move_into_leaf``).
WORKER_LEAF = "worker"


def _enable(directory: Path, wanted: set[str]) -> set[str]:
    """Enable ``wanted`` for the children of ``directory``; returns those enabled."""
    for controller in wanted:
        _write(directory / "cgroup.subtree_control", f"+{controller}")
    return set(read_text(directory / "cgroup.subtree_control").split()) & wanted


def _move_into_leaf(directory: Path) -> bool:
    """Move every process of ``directory`` into its leaf ``worker/``. v2 lets only a cgroup without processes
    enable controllers for its children, and a worker in a container with a private cgroup namespace (compose's
    ``cgroup: private``) sits in the root of its delegated subtree together with its whole container. Once the
    root is empty, the bots' cgroups live beside the leaf: siblings with equal weights, each with its limits."""
    leaf = directory / WORKER_LEAF
    try:
        leaf.mkdir(exist_ok=True)
    except OSError:
        return False
    for _ in range(5):  # a process forked meanwhile is born in the root: move it on the next pass
        pids = read_text(directory / "cgroup.procs").split()
        if not pids:
            return True
        for pid in pids:
            _write(leaf / "cgroup.procs", pid)  # one that has exited meanwhile is simply not moved
    return False


def _write(path: Path, value: str) -> bool:
    try:
        with open(path, "w") as handle:
            handle.write(value)
        return True
    except OSError:
        return False


@dataclass
class CgroupHost:
    """Where this process may create per-bot cgroups: v1 controller dirs and/or a v2 dir."""

    v1: dict[str, Path] = field(default_factory=dict)  # controller -> this process's cgroup dir
    v2: Path | None = None
    v2_controllers: frozenset[str] = frozenset()  # enabled for children of ``v2``
    _v2_freezes: bool = False

    @classmethod
    def detect(cls, controllers: tuple[str, ...] = LIMITED) -> CgroupHost:
        """``controllers``: the v2 controllers to enable for the bots' cgroups where v1 does not hold them."""
        host = cls()
        if os.geteuid() != 0:
            return host  # without root (and without systemd delegation) cgroups are not ours to make
        mounts = [line.split() for line in read_text(Path("/proc/self/mounts")).splitlines()]
        own = {}
        for line in read_text(Path("/proc/self/cgroup")).splitlines():
            _, names, path = line.split(":", 2)
            own[names] = path
        if own.get("") == f"/{WORKER_LEAF}":
            own[""] = "/"  # a worker process of a delegated subtree (moved, or born, into its leaf): its root
        for mount in mounts:
            if len(mount) < 4:
                continue
            where, kind, options = Path(mount[1]), mount[2], mount[3].split(",")
            if kind == "cgroup":
                for controller in ("memory", "pids", "cpu", "freezer"):
                    key = next((c for c in own if controller in c.split(",")), None)
                    if controller in options and key is not None:
                        directory = where / own[key].lstrip("/")
                        if os.access(directory, os.W_OK):
                            host.v1[controller] = directory
            elif kind == "cgroup2" and "" in own:
                directory = where / own[""].lstrip("/")
                if os.access(directory, os.W_OK) and (directory / "cgroup.procs").exists():
                    host.v2 = directory
        if host.v2 is not None:
            available = set(read_text(host.v2 / "cgroup.controllers").split()) & set(controllers)
            wanted = available - set(host.v1)
            enabled = _enable(host.v2, wanted)
            if enabled != wanted and own[""] == "/" and _move_into_leaf(host.v2):
                enabled = _enable(host.v2, wanted)
            host.v2_controllers = frozenset(enabled)
        host._v2_freezes = host._v2_can_freeze()
        if "freezer" in host.v1 and host._v2_freezes:
            del host.v1["freezer"]  # v2's cgroup.freeze does it: one cgroup fewer to make and join per bot
        host.sweep()
        return host

    def _v2_can_freeze(self) -> bool:
        if self.v2 is None:
            return False
        probe = self.v2 / f"tabula-probe-{os.getpid()}"
        try:
            probe.mkdir()
        except OSError:
            return False
        try:
            return (probe / "cgroup.freeze").exists()
        finally:
            probe.rmdir()

    def sweep(self) -> None:
        """Remove the empty cgroups a crashed worker left behind (named tabula-...-<its pid>)."""
        for parent in [*self.v1.values(), *([self.v2] if self.v2 else [])]:
            for directory in parent.glob("tabula-*-*"):
                owner = directory.name.rsplit("-", 1)[1]
                if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                    try:
                        directory.rmdir()
                    except OSError:
                        pass  # still holds processes; leave it to an operator

    @property
    def can_freeze(self) -> bool:
        """Whether a paused bot is frozen whole (v2's cgroup.freeze or v1's freezer), not signalled process by
        process, which a bot forking fast enough escapes."""
        return "freezer" in self.v1 or self._v2_freezes

    def missing(self) -> list[str]:
        """What a bot's cgroups cannot do here, of what keeps bots apart: memory (kernel memory included),
        processes, an equal CPU share, and a freeze nothing escapes."""
        gaps = [c for c in ("memory", "pids", "cpu") if c not in self.v1 and c not in self.v2_controllers]
        return gaps + ([] if self.can_freeze else ["freezer"])

    def describe(self) -> str:
        parts = [f"v1 {c}" for c in sorted(self.v1)]
        if self.v2 is not None:
            parts.append("v2 (" + ", ".join(["kill", "freeze", *sorted(self.v2_controllers)]) + ")")
        return ", ".join(parts) or "none"

    def create(self, name: str, limits: Limits) -> BotCgroup:
        cgroup = BotCgroup()
        try:
            for controller, parent in self.v1.items():
                directory = parent / name
                directory.mkdir()
                cgroup.dirs.append(directory)
                if controller == "memory":
                    _must_write(directory / "memory.limit_in_bytes", str(limits.memory_bytes))
                    if (directory / "memory.memsw.limit_in_bytes").exists():
                        _must_write(directory / "memory.memsw.limit_in_bytes", str(limits.memory_bytes))
                elif controller == "pids":
                    _must_write(directory / "pids.max", str(limits.processes))
                elif controller == "cpu":
                    _must_write(directory / "cpu.shares", str(CPU_SHARES))
                elif controller == "freezer":
                    cgroup.v1_freezer = directory
            if self.v2 is not None:
                directory = self.v2 / name
                directory.mkdir()
                cgroup.dirs.append(directory)
                cgroup.v2 = directory
                if "memory" in self.v2_controllers:
                    _must_write(directory / "memory.max", str(limits.memory_bytes))
                    _write(directory / "memory.swap.max", "0")
                if "pids" in self.v2_controllers:
                    _must_write(directory / "pids.max", str(limits.processes))
                if "cpu" in self.v2_controllers:
                    _must_write(directory / "cpu.weight", str(CPU_WEIGHT))
        except OSError as error:
            cgroup.remove()
            raise SandboxError(f"cannot set up cgroup {name}: {error}") from None
        return cgroup


def _must_write(path: Path, value: str) -> None:
    with open(path, "w") as handle:
        handle.write(value)


@dataclass
class BotCgroup:
    dirs: list[Path] = field(default_factory=list)
    v2: Path | None = None
    v1_freezer: Path | None = None

    def procs_files(self) -> list[Path]:
        return [d / "cgroup.procs" for d in self.dirs]

    def join(self, pid: int, unless_member: bool = False) -> None:
        for procs in self.procs_files():
            if unless_member and str(pid) in read_text(procs).split():
                continue  # a migration waits for an RCU grace period: skip the ones not needed
            try:
                _must_write(procs, str(pid))
            except OSError as error:
                raise SandboxError(f"cannot put the bot into {procs}: {error}") from None

    def pids(self) -> set[int]:
        found = set()
        for directory in self.dirs:
            found.update(int(p) for p in read_text(directory / "cgroup.procs").split())
        return found

    def freeze(self, frozen: bool) -> bool:
        if self.v2 is not None and (self.v2 / "cgroup.freeze").exists():
            return _write(self.v2 / "cgroup.freeze", "1" if frozen else "0")
        if self.v1_freezer is not None:
            return _write(self.v1_freezer / "freezer.state", "FROZEN" if frozen else "THAWED")
        return False

    def kill(self, timeout_s: float = 5.0) -> set[int]:
        """SIGKILL everything in the cgroup until it is empty; returns every pid seen."""
        seen: set[int] = set()
        deadline = time.monotonic() + timeout_s
        pause = 0.0002  # a killed bot is usually gone within a fraction of a millisecond
        while True:
            pids = self.pids()
            seen |= pids
            if not pids or time.monotonic() > deadline:
                return seen
            if not (self.v2 is not None and _write(self.v2 / "cgroup.kill", "1")):
                self.freeze(True)  # no cgroup.kill: freeze so nothing forks while we kill one by one
                for pid in pids:
                    kill_pid(pid, signal.SIGKILL)
                self.freeze(False)
            time.sleep(pause)
            pause = min(pause * 2, 0.002)

    def remove(self) -> None:
        for directory in reversed(self.dirs):
            deadline, pause = time.monotonic() + 1.0, 0.0002
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(pause)  # tasks still exiting
                    pause = min(pause * 2, 0.005)
        self.dirs.clear()
