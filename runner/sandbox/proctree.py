"""A bot's process tree as /proc shows it: members, namespaces, signals, reaping the orphans."""

from __future__ import annotations

import ctypes
import os
import time
from pathlib import Path


def read_text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def stat_fields(pid: int | str) -> list[bytes]:
    """The fields of /proc/PID/stat after the command name (state first), or [] when the process is gone.
    Plain ``os`` calls: a kill scans every process's stat file twice, and pathlib's reads cost four times as much."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
    except OSError:
        return []
    try:
        data = os.read(fd, 4096)
    except OSError:
        return []
    finally:
        os.close(fd)
    return data.rpartition(b")")[2].split()  # the name may hold spaces and parentheses, never after the last ")"


def kill_pid(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def children(pid: int) -> list[int]:
    """Direct children of ``pid``, from /proc/PID/task/*/children."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        found.extend(int(p) for p in read_text(task / "children").split())
    return found


def group_members(pgid: int) -> set[int]:
    """Pids in process group ``pgid`` (field 5 of /proc/PID/stat)."""
    members = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = stat_fields(entry)
            if len(fields) > 2 and int(fields[2]) == pgid:
                members.add(int(entry))
    return members


def live(pids: list[int]) -> list[int]:
    """Those of ``pids`` that are not zombies (a zombie only waits to be reaped)."""
    return [pid for pid in pids if alive(pid)]


def alive(pid: int) -> bool:
    """Running or stopped, not gone and not a zombie (field 3 of /proc/PID/stat)."""
    fields = stat_fields(pid)
    return bool(fields) and fields[0] not in (b"Z", b"X")


def pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def namespace_members(namespace: str) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and pid_namespace(int(entry)) == namespace:
            members.append(int(entry))
    return members


def parent_of(pid: int) -> int | None:
    """Field 4 of /proc/PID/stat, or None when the process is gone."""
    fields = stat_fields(pid)
    return int(fields[1]) if len(fields) > 1 else None


def reap(pids: set[int], timeout_s: float = 5.0) -> None:
    """Reap those of ``pids`` that are or become our children (we are a child subreaper).

    They were SIGKILLed but may still be exiting: a namespace's init waits for the
    whole namespace, and a process whose parent in the tree is still dying comes
    back to us only once that parent is gone. So a pid is settled when it is gone,
    reaped by us, or a zombie whose parent is outside the tree (someone else's to
    reap); up to ``timeout_s`` in all.
    """
    deadline = time.monotonic() + timeout_s
    waiting = set(pids)
    me = os.getpid()
    while waiting and time.monotonic() < deadline:
        for pid in list(waiting):
            parent = parent_of(pid)
            if parent == me:
                try:
                    if os.waitpid(pid, os.WNOHANG)[0]:
                        waiting.discard(pid)
                except ChildProcessError:  # reaped meanwhile by someone waiting on it (Popen.wait)
                    waiting.discard(pid)
            elif parent is None or (parent not in waiting and not alive(pid)):
                waiting.discard(pid)
        if waiting:
            time.sleep(0.001)


_SUBREAPER_SET = False


def become_subreaper() -> None:
    """Orphans of a bot's tree come back to us (not to a lazy PID 1), so we can reap them."""
    global _SUBREAPER_SET
    if _SUBREAPER_SET:
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_CHILD_SUBREAPER = 36
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    _SUBREAPER_SET = True
