"""The sandbox every untrusted bot runs in.

Interface (the match runner uses only this)::

    sandbox = open_sandbox()                 # bubblewrap, or SandboxError: untrusted bots never run bare
    sandbox = open_sandbox(trusted=True)     # bare subprocesses, with a loud warning: one's own bots only
    sandbox = open_sandbox(builds=directory) # build results also kept as files there, for later processes
    workdir = sandbox.prepare(bot, limits)   # private copy of the bot's files, or of its build's result:
                                             # bot.build runs once per version and sandbox (offline, in the
                                             # sandbox, runner.build); BadBot with the log tail on failure
    proc = sandbox.spawn(workdir, bot, limits, env={})   # env: BGTP_VERSION=1 + env, nothing else
    proc.pid                                 # host pid of the sandbox (bwrap); signals to it end the bot
    proc.stdin / proc.stdout / proc.stderr   # binary, unbuffered pipes; select() on stdout/stderr
    proc.poll()                              # the bot's exit code (bwrap passes it on) or None
    proc.suspend(); proc.resume()            # freeze / thaw the whole tree (cgroup freezer, else SIGSTOP)
    proc.kill()                              # whole tree killed and reaped, cgroups and workdir removed;
                                             # idempotent; also ``with proc: ...``

``Limits`` holds every resource limit (memory, CPU seconds, processes, disk,
/tmp, open files, file size, and the build's time, log tail and output caps). One workdir serves one spawn:
``kill`` removes it. ``sandbox.name`` is "bubblewrap" or "trusted";
``sandbox.describe()`` says what the host offered.

Spawning from a thread: bubblewrap's ``--die-with-parent`` ties the sandbox to
the *thread* that spawned it, so spawn from a thread that outlives the game.
Opening the bubblewrap sandbox makes this process a child subreaper, so the
orphans of a bot's tree come back to it and ``kill`` reaps them.

What each bot gets from the bubblewrap sandbox:
- its own user, PID, network (no loopback service of the host is reachable),
  IPC, UTS and cgroup namespaces; no new user namespaces inside;
- a read-only ``/usr`` (so ``python3`` is ``/usr/bin/python3``), the dynamic
  loader cache, and nothing else of the host: no /home, /root, /etc secrets,
  project tree, other bots;
- the bot's library (``engines``, the bot SDK) read-only at ``/opt/tabula/engines``
  with ``PYTHONPATH=/opt/tabula``; never this host package (``runner``);
- ``/bot``, its working directory: a tmpfs of ``disk_bytes`` holding a copy of
  the prepared workdir (which stays read-only at ``/opt/tabula/bot``);
  ``/tmp``: a tmpfs of ``tmp_bytes``;
- rlimits: address space, CPU seconds, file size, open files, no core dumps,
  and processes when it has its own uid;
- a seccomp filter (built here, no libseccomp): sockets only for AF_UNIX; no
  ptrace, mount, namespaces, bpf, keyctl, io_uring, module or clock changes;
- as root: a dedicated uid per bot, and cgroup memory and pids limits (v1 or
  v2, whichever the host offers), ``cgroup.kill``/``cgroup.freeze`` with v2.
Without root there are no cgroups: the rlimits and the PID namespace remain.
The trusted sandbox gives none of this; its ``kill`` covers the process group.
"""

from __future__ import annotations

import ctypes
import os
import platform
import random
import re
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import engines

from .bots import BadBot, Bot
from .build import BuildStore, collect
from .bundle import Entry, write_tree

# The bot's library, all a bot sees of this project: the host side (this package) is never mounted.
ENGINES_DIR = Path(engines.__file__).resolve().parent
# The build (its stdout joins its log on stderr), then its result as a tar stream on stdout:
# no -S, so a sparse file is written, and counted, at its full size (see runner.build).
BUILD_SCRIPT = '/bin/sh -c "$1" >&2 || exit $?; exec tar -cf - .'


class SandboxError(RuntimeError):
    """The sandbox cannot be built; an untrusted bot must then not run at all."""


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 1 << 30  # cgroup memory limit; also the address-space rlimit
    cpu_seconds: int = 3600  # CPU time over the bot's whole life (RLIMIT_CPU)
    processes: int = 64  # cgroup pids limit (and RLIMIT_NPROC with a dedicated uid)
    disk_bytes: int = 256 << 20  # size of the writable working directory
    tmp_bytes: int = 64 << 20  # size of /tmp, and of /dev/shm
    open_files: int = 256
    file_size_bytes: int = 256 << 20
    build_timeout_s: float = 300.0
    build_log_bytes: int = 4096  # tail of the build log kept in BadBot (all the worker holds of it)
    build_output_bytes: int = 64 << 20  # the built files' sizes added up (a sparse file at its full size)
    build_output_entries: int = 10_000  # files and directories the build may leave
    # RLIMIT_AS; None means memory_bytes. Raise it for runtimes that reserve much more virtual memory
    # than they use (JVM, Go): the cgroup limit, where the host has one, still caps real memory.
    address_space_bytes: int | None = None

    def __post_init__(self) -> None:
        for name in ("memory_bytes", "cpu_seconds", "processes", "disk_bytes", "tmp_bytes",
                     "open_files", "file_size_bytes", "build_log_bytes", "build_output_bytes",
                     "build_output_entries"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive integer, got {value!r}")
        if self.address_space_bytes is not None and (
                not isinstance(self.address_space_bytes, int) or self.address_space_bytes <= 0):
            raise ValueError(f"Limits.address_space_bytes must be a positive integer or None, "
                             f"got {self.address_space_bytes!r}")
        if self.build_timeout_s <= 0:
            raise ValueError(f"Limits.build_timeout_s must be positive, got {self.build_timeout_s!r}")


@dataclass
class Workdir:
    """A private copy of one bot's files, made by ``Sandbox.prepare`` for one game."""

    path: Path
    bot: Bot
    removed: bool = False

    def remove(self) -> None:
        if not self.removed:
            shutil.rmtree(self.path, ignore_errors=True)
            self.removed = True


def _copy_bot_files(bot: Bot, destination: Path) -> None:
    for source in bot.files():
        if source.is_dir():
            shutil.copytree(source, destination, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(source, destination / source.name)


def _owned_tempdir(prefix: str) -> Path:
    """A fresh directory under the bots' temp root, named after this process (see ``sweep_workdirs``)."""
    base = Path(tempfile.gettempdir()) / "tabula-bots"
    base.mkdir(mode=0o711, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-{prefix}-", dir=base))


def sweep_workdirs() -> int:
    """Remove what a dead process (a worker killed mid-game) left under the bots' temp root."""
    swept = 0
    for directory in (Path(tempfile.gettempdir()) / "tabula-bots").glob("*-*"):
        owner = directory.name.split("-", 1)[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            shutil.rmtree(directory, ignore_errors=True)
            swept += 1
    return swept


def _new_workdir(bot: Bot) -> Workdir:
    path = _owned_tempdir(bot.name)
    try:
        _copy_bot_files(bot, path)
    except OSError as error:
        shutil.rmtree(path, ignore_errors=True)
        raise BadBot(f"bot {bot.name!r}: cannot copy its files from {bot.directory}: {error}") from None
    return Workdir(path=path, bot=bot)


class BotProcess:
    """A running bot: its pipes, and control over its whole process tree."""

    def __init__(self, popen: subprocess.Popen, workdir: Workdir, sandbox_name: str) -> None:
        self.popen = popen
        self.pid = popen.pid
        self.stdin = popen.stdin
        self.stdout = popen.stdout
        self.stderr = popen.stderr
        self.workdir = workdir
        self.sandbox_name = sandbox_name
        self.killed = False

    def poll(self) -> int | None:
        return self.popen.poll()

    def suspend(self) -> None:
        self._signal_tree(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_tree(signal.SIGCONT)

    def kill(self) -> None:
        if self.killed:
            return
        self.killed = True
        try:
            self._kill_tree()
        finally:
            for pipe in (self.stdin, self.stdout, self.stderr):
                try:
                    if pipe is not None:
                        pipe.close()
                except OSError:
                    pass
            self.workdir.remove()

    def _signal_tree(self, signum: int) -> None:
        try:
            os.killpg(self.pid, signum)
        except ProcessLookupError:
            pass

    def _kill_tree(self) -> None:
        members = _group_members(self.pid)
        self._signal_tree(signal.SIGKILL)
        self.popen.wait()
        _reap(members)

    def __enter__(self) -> BotProcess:
        return self

    def __exit__(self, *exc_info) -> None:
        self.kill()


class Sandbox:
    """``prepare`` builds each version once (see ``runner.build``); ``builds``: where the results
    are also kept as files for later processes (the service's cache), or None: in memory only."""

    name = "abstract"

    def __init__(self, builds: Path | None = None) -> None:
        self.builds = BuildStore(builds)

    def prepare(self, bot: Bot, limits: Limits) -> Workdir:
        if not bot.build:
            return self._ready(_new_workdir(bot))
        entries = self.builds.entries(bot, limits, self._build)
        workdir = Workdir(path=_owned_tempdir(bot.name), bot=bot)
        try:
            write_tree(entries, workdir.path)
        except OSError as error:  # the entries were checked: this is the host's disk, not the bot
            workdir.remove()
            raise SandboxError(f"cannot write the built files of bot {bot.name!r}: {error}") from None
        return self._ready(workdir)

    def _ready(self, workdir: Workdir) -> Workdir:
        return workdir

    def _build(self, bot: Bot, limits: Limits) -> list[Entry]:
        """Run the build on a scratch copy of the bot's files; its whole tree and the copy go after."""
        proc = self._start_build(_new_workdir(bot), bot, limits)
        try:
            return collect(proc, bot, limits)
        finally:
            proc.kill()

    def _start_build(self, scratch: Workdir, bot: Bot, limits: Limits) -> BotProcess:
        raise NotImplementedError

    def spawn(self, workdir: Workdir, bot: Bot, limits: Limits,
              env: dict[str, str] | None = None) -> BotProcess:
        raise NotImplementedError


def _bot_env(env: dict[str, str] | None) -> dict[str, str]:
    result = {"BGTP_VERSION": "1"}
    for key, value in (env or {}).items():
        well_formed = isinstance(key, str) and isinstance(value, str) and key and "=" not in key
        if not well_formed or "\0" in key + value:
            raise ValueError(f"bad environment variable for a bot: {key!r}={value!r}")
        result[key] = value
    return result


class TrustedSandbox(Sandbox):
    """No isolation at all: a bare subprocess in its own session. For one's own bots only."""

    name = "trusted"

    def _start_build(self, scratch: Workdir, bot: Bot, limits: Limits) -> BotProcess:
        # the same channel as in the sandbox (runner.build), minus the sandbox: one's own bots only
        try:
            popen = subprocess.Popen(
                ["/bin/sh", "-c", BUILD_SCRIPT, "tabula-build", bot.build], cwd=scratch.path, env=self._env({}),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, start_new_session=True, close_fds=True,
            )
        except BaseException:
            scratch.remove()
            raise
        return BotProcess(popen, scratch, self.name)

    def _env(self, env: dict[str, str] | None) -> dict[str, str]:
        result = _bot_env(env)
        result.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        result.setdefault("PYTHONPATH", str(ENGINES_DIR.parent))
        return result

    def spawn(self, workdir: Workdir, bot: Bot, limits: Limits,
              env: dict[str, str] | None = None) -> BotProcess:
        try:
            popen = subprocess.Popen(
                ["/bin/sh", "-c", "exec " + bot.run], cwd=workdir.path, env=self._env(env),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, start_new_session=True, close_fds=True,
            )
        except BaseException:
            workdir.remove()
            raise
        return BotProcess(popen, workdir, self.name)


# --- seccomp: a classic BPF program, built without libseccomp --------------------------------------

AF_UNIX = 1
EACCES, EPERM, ENOSYS = 13, 1, 38
SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_KILL_PROCESS = 0x80000000
BPF_LD_W_ABS, BPF_JEQ_K, BPF_JGE_K, BPF_JSET_K, BPF_RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
X32_SYSCALL_BIT = 0x40000000

# Denied with EPERM: ways out of the sandbox or into the kernel's soft spots. Numbers from
# asm/unistd_64.h (x86_64) and asm-generic/unistd.h (aarch64).
DENIED_SYSCALLS = {
    "x86_64": (0xC000003E, {
        "ptrace": 101, "mount": 165, "umount2": 166, "unshare": 272, "setns": 308, "pivot_root": 155,
        "chroot": 161, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
        "perf_event_open": 298, "userfaultfd": 323, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "process_vm_readv": 310, "process_vm_writev": 311, "kexec_load": 246,
        "kexec_file_load": 320, "init_module": 175, "finit_module": 313, "delete_module": 176,
        "swapon": 167, "swapoff": 168, "reboot": 169, "acct": 163, "open_by_handle_at": 304,
        "name_to_handle_at": 303, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "move_mount": 429,
        "open_tree": 428, "fspick": 433, "mount_setattr": 442, "quotactl": 179, "syslog": 103,
        "kcmp": 312, "pidfd_getfd": 438, "process_madvise": 440, "iopl": 172, "ioperm": 173,
        "lookup_dcookie": 212, "vhangup": 153, "settimeofday": 164, "clock_settime": 227,
        "adjtimex": 159, "sethostname": 170, "setdomainname": 171,
    }, {"socket": 41, "clone": 56, "clone3": 435}),
    "aarch64": (0xC00000B7, {
        "ptrace": 117, "mount": 40, "umount2": 39, "unshare": 97, "setns": 268, "pivot_root": 41,
        "chroot": 51, "keyctl": 219, "add_key": 217, "request_key": 218, "bpf": 280,
        "perf_event_open": 241, "userfaultfd": 282, "io_uring_setup": 425, "io_uring_enter": 426,
        "io_uring_register": 427, "process_vm_readv": 270, "process_vm_writev": 271, "kexec_load": 104,
        "kexec_file_load": 294, "init_module": 105, "finit_module": 273, "delete_module": 106,
        "swapon": 224, "swapoff": 225, "reboot": 142, "acct": 89, "open_by_handle_at": 265,
        "name_to_handle_at": 264, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "move_mount": 429,
        "open_tree": 428, "fspick": 433, "mount_setattr": 442, "quotactl": 60, "syslog": 116,
        "kcmp": 272, "pidfd_getfd": 438, "process_madvise": 440, "vhangup": 58, "settimeofday": 170,
        "clock_settime": 112, "adjtimex": 171, "sethostname": 161, "setdomainname": 162,
    }, {"socket": 198, "clone": 220, "clone3": 435}),
}


def _bpf(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k & 0xFFFFFFFF)


def seccomp_program(machine: str | None = None) -> bytes:
    """The filter bwrap loads with ``--seccomp FD`` (struct sock_filter[], native byte order).

    socket() is allowed only for AF_UNIX (EACCES otherwise); clone() may not make
    namespaces; clone3 gets ENOSYS so glibc falls back to clone; the denied list
    gets EPERM; a foreign ABI is killed.
    """
    machine = machine or platform.machine()
    if machine not in DENIED_SYSCALLS:
        raise SandboxError(f"no seccomp syscall table for machine {machine!r}; "
                           f"known: {', '.join(DENIED_SYSCALLS)}")
    audit_arch, denied, special = DENIED_SYSCALLS[machine]
    numbers = sorted(set(denied.values()))
    errno_eperm = _bpf(BPF_RET_K, SECCOMP_RET_ERRNO | EPERM)
    n = len(numbers)
    tail = [
        _bpf(BPF_JEQ_K, special["clone3"], jt=0, jf=1),
        _bpf(BPF_RET_K, SECCOMP_RET_ERRNO | ENOSYS),
        _bpf(BPF_JEQ_K, special["socket"], jt=2, jf=0),
        _bpf(BPF_JEQ_K, special["clone"], jt=5, jf=0),
        _bpf(BPF_RET_K, SECCOMP_RET_ALLOW),
        # socket(domain, ...): domain is args[0], its low 32 bits at offset 16 (little endian)
        _bpf(BPF_LD_W_ABS, 16),
        _bpf(BPF_JEQ_K, AF_UNIX, jt=1, jf=0),
        _bpf(BPF_RET_K, SECCOMP_RET_ERRNO | EACCES),
        _bpf(BPF_RET_K, SECCOMP_RET_ALLOW),
        # clone(flags, ...): no new namespaces (bwrap < 0.8 has no --disable-userns)
        _bpf(BPF_LD_W_ABS, 16),
        _bpf(BPF_JSET_K, CLONE_NAMESPACES, jt=0, jf=1),
        _bpf(BPF_RET_K, SECCOMP_RET_ERRNO | EPERM),
        _bpf(BPF_RET_K, SECCOMP_RET_ALLOW),
    ]
    # each JEQ jumps over the rest of the JEQs and the tail, to errno_eperm
    body = [_bpf(BPF_JEQ_K, number, jt=(n - 1 - i) + len(tail), jf=0) for i, number in enumerate(numbers)]
    header = [
        _bpf(BPF_LD_W_ABS, 4),  # seccomp_data.arch
        _bpf(BPF_JEQ_K, audit_arch, jt=1, jf=0),
        _bpf(BPF_RET_K, SECCOMP_RET_KILL_PROCESS),
        _bpf(BPF_LD_W_ABS, 0),  # seccomp_data.nr
        _bpf(BPF_JGE_K, X32_SYSCALL_BIT, jt=0, jf=1),
        _bpf(BPF_RET_K, SECCOMP_RET_KILL_PROCESS),
    ]
    return b"".join(header + body + tail + [errno_eperm])


# --- cgroups: v1, v2 or hybrid; whatever the host offers ---------------------------------------------

def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


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

    @classmethod
    def detect(cls) -> CgroupHost:
        host = cls()
        if os.geteuid() != 0:
            return host  # without root (and without systemd delegation) cgroups are not ours to make
        mounts = [line.split() for line in _read(Path("/proc/self/mounts")).splitlines()]
        own = {}
        for line in _read(Path("/proc/self/cgroup")).splitlines():
            _, controllers, path = line.split(":", 2)
            own[controllers] = path
        for mount in mounts:
            if len(mount) < 4:
                continue
            where, kind, options = Path(mount[1]), mount[2], mount[3].split(",")
            if kind == "cgroup":
                for controller in ("memory", "pids", "freezer"):
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
            available = set(_read(host.v2 / "cgroup.controllers").split()) & {"memory", "pids"}
            wanted = available - set(host.v1)
            for controller in wanted:
                _write(host.v2 / "cgroup.subtree_control", f"+{controller}")
            host.v2_controllers = frozenset(set(_read(host.v2 / "cgroup.subtree_control").split()) & wanted)
        if "freezer" in host.v1 and host._v2_can_freeze():
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

    def pids(self) -> set[int]:
        found = set()
        for directory in self.dirs:
            found.update(int(p) for p in _read(directory / "cgroup.procs").split())
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
                    _kill_pid(pid, signal.SIGKILL)
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


def _kill_pid(pid: int, signum: int) -> None:
    try:
        os.kill(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _children(pid: int) -> list[int]:
    """Direct children of ``pid``, from /proc/PID/task/*/children."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        found.extend(int(p) for p in _read(task / "children").split())
    return found


def _group_members(pgid: int) -> set[int]:
    """Pids in process group ``pgid`` (field 5 of /proc/PID/stat)."""
    members = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _read(Path(f"/proc/{entry}/stat")).rsplit(")", 1)[-1].split()
            if len(fields) > 2 and int(fields[2]) == pgid:
                members.add(int(entry))
    return members


def _live(pids: list[int]) -> list[int]:
    """Those of ``pids`` that are not zombies (a zombie only waits to be reaped)."""
    return [pid for pid in pids if _alive(pid)]


def _alive(pid: int) -> bool:
    """Running or stopped, not gone and not a zombie (field 3 of /proc/PID/stat)."""
    return _read(Path(f"/proc/{pid}/stat")).rsplit(")", 1)[-1][1:2] not in ("", "Z", "X")


def _pid_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _namespace_members(namespace: str) -> list[int]:
    members = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _pid_namespace(int(entry)) == namespace:
            members.append(int(entry))
    return members


def _reap(pids: set[int], timeout_s: float = 5.0) -> None:
    """Reap those of ``pids`` that became our children (we are a child subreaper).

    They were SIGKILLed but may still be exiting (a namespace's init waits for the
    whole namespace), so wait for each, up to ``timeout_s`` in all.
    """
    deadline = time.monotonic() + timeout_s
    for pid in pids:
        while True:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break  # not ours, or already reaped
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.001)
    for pid in pids:  # not our children: wait until they are gone (or zombies of someone else)
        while time.monotonic() < deadline and _alive(pid):
            time.sleep(0.001)


_SUBREAPER_SET = False


def _become_subreaper() -> None:
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


# --- bubblewrap ---------------------------------------------------------------------------------------

BOT_DIR = "/bot"  # the bot's working directory inside the sandbox (a size-capped tmpfs)
BOT_SOURCE = "/opt/tabula/bot"  # read-only view of the prepared workdir, copied to /bot at start
SDK_ROOT = "/opt/tabula"
UID_BASE, UID_SPAN = 1_000_000, 1_000_000
SHELL_SYNTAX = re.compile(r"[;&|<>()$`*?~#{}\[\]\n]|^\w+=")


class BubblewrapProcess(BotProcess):
    def __init__(self, popen, workdir, sandbox_name, cgroup: BotCgroup | None, info_fd: int) -> None:
        super().__init__(popen, workdir, sandbox_name)
        self.cgroup = cgroup
        self.namespace: str | None = None
        self.info_fd = info_fd  # bwrap writes {"child-pid": N} here: the namespace's init, to reap
        self.info = b""

    def _members(self) -> list[int]:
        if self.cgroup is not None and self.cgroup.dirs:
            return sorted(self.cgroup.pids())
        namespace = self._find_namespace()
        return _namespace_members(namespace) if namespace else []

    def _find_namespace(self) -> str | None:
        """The bot's PID namespace: that of bwrap's child (the namespace's init)."""
        if self.namespace is None:
            own = _pid_namespace(self.pid)
            for child in _children(self.pid):
                namespace = _pid_namespace(child)
                if namespace and namespace != own:
                    self.namespace = namespace
        return self.namespace

    def suspend(self) -> None:
        if not (self.cgroup and self.cgroup.freeze(True)):
            for pid in self._members():
                _kill_pid(pid, signal.SIGSTOP)

    def resume(self) -> None:
        if not (self.cgroup and self.cgroup.freeze(False)):
            for pid in self._members():
                _kill_pid(pid, signal.SIGCONT)

    def _kill_tree(self) -> None:
        seen: set[int] = set()
        namespace = self._find_namespace()
        init = [c for c in _children(self.pid)]
        # Killing the namespace's init makes the kernel kill every process in it,
        # including those that setsid'd or double-forked.
        for pid in init:
            _kill_pid(pid, signal.SIGKILL)
        _kill_pid(self.pid, signal.SIGKILL)
        if self.cgroup is not None and self.cgroup.dirs:
            self.cgroup.freeze(False)
            seen |= self.cgroup.kill()
        elif namespace:
            deadline = time.monotonic() + 5.0
            while (members := _live(_namespace_members(namespace))) and time.monotonic() < deadline:
                seen.update(members)
                for pid in members:
                    _kill_pid(pid, signal.SIGKILL)
                time.sleep(0.002)
        self.popen.wait()
        init_pid = self._init_pid()
        if init_pid is not None:
            _kill_pid(init_pid, signal.SIGKILL)
            seen.add(init_pid)
        _reap(seen | set(init))
        if self.cgroup is not None:
            self.cgroup.remove()

    def _init_pid(self) -> int | None:
        """The host pid of the sandbox's init, from bwrap's --info-fd (read once bwrap is gone)."""
        if self.info_fd is not None:
            os.set_blocking(self.info_fd, False)
            try:
                while chunk := os.read(self.info_fd, 4096):
                    self.info += chunk
            except BlockingIOError:
                pass
            finally:
                os.close(self.info_fd)
                self.info_fd = None
        match = re.search(rb'"child-pid"\s*:\s*(\d+)', self.info)
        return int(match.group(1)) if match else None


CHILD_PID = re.compile(rb'"child-pid"\s*:\s*(\d+)\D')


def _read_child_pid(info_fd: int) -> tuple[bytes, int | None]:
    """Read bwrap's --info-fd up to the host pid of its child; None if bwrap ended first."""
    info = b""
    while not (match := CHILD_PID.search(info)):
        chunk = os.read(info_fd, 4096)
        if not chunk:
            return info, None
        info += chunk
    return info, int(match.group(1))


def _rlimit_shell(limits: Limits, dedicated_uid: bool) -> list[str]:
    """A shell that sets the bot's rlimits (soft and hard) with its ``ulimit`` builtin, then execs "$@".

    A shell builtin costs no exec, unlike prlimit; resource.prlimit from here on the bwrap
    child would need CAP_SYS_RESOURCE once it has the bot's uid, which containers often drop.
    """
    address_space = limits.address_space_bytes or limits.memory_bytes
    # dash's units: -v in KiB, -f in 512-byte blocks; rounding down only tightens the limit
    rlimits = [("v", max(1, address_space // 1024)), ("t", limits.cpu_seconds),
               ("f", max(1, limits.file_size_bytes // 512)), ("n", limits.open_files), ("c", 0)]
    if dedicated_uid:  # RLIMIT_NPROC counts per uid, so it only means something with a dedicated one
        rlimits.append(("p", limits.processes))
    steps = [f"ulimit -{flag} {value} || exit 125" for flag, value in rlimits]
    return ["/bin/sh", "-c", "; ".join(steps + ['exec "$@"']), "tabula-launch"]


def _seed_args(seed: list[tuple[str, str, int, str]], fds: list[int]) -> list[str]:
    """bwrap options that recreate the seeded workdir in /bot; each file's open fd goes to ``fds``."""
    args = []
    for kind, target, mode, source in seed:
        if kind == "symlink":
            args += ["--symlink", source, target]
        elif kind == "dir":
            args += ["--perms", f"{mode:o}", "--dir", target]
        else:
            fds.append(os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC))
            args += ["--perms", f"{mode:o}", "--file", str(fds[-1]), target]
    return args


def _join_cgroups(cgroup: BotCgroup, pid: int, unless_member: bool = False) -> None:
    for procs in cgroup.procs_files():
        if unless_member and str(pid) in _read(procs).split():
            continue  # a migration waits for an RCU grace period: skip the ones not needed
        try:
            _must_write(procs, str(pid))
        except OSError as error:
            raise SandboxError(f"cannot put the bot into {procs}: {error}") from None


class BubblewrapSandbox(Sandbox):
    name = "bubblewrap"

    def __init__(self, bwrap: str, cgroups: CgroupHost, builds: Path | None = None) -> None:
        super().__init__(builds)
        self.bwrap = bwrap
        self.version = _bwrap_version(bwrap)
        self.cgroups = cgroups
        self.root = os.geteuid() == 0
        self.seccomp = seccomp_program()
        self.sdk = _readable_engines_dir()
        _become_subreaper()

    def describe(self) -> str:
        version = ".".join(map(str, self.version))
        return f"bubblewrap {version} ({self.bwrap}); cgroups: {self.cgroups.describe()}; " \
               f"dedicated uid: {'yes' if self.root else 'no'}"

    # The mount table every bot sees: /usr read-only and nothing else of the host.
    def _system_binds(self) -> list[str]:
        args = ["--ro-bind", "/usr", "/usr"]
        for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
            host = Path("/") / name
            if host.is_symlink():
                args += ["--symlink", os.readlink(host), str(host)]
            elif host.is_dir():
                args += ["--ro-bind", str(host), str(host)]
        for name in ("/etc/ld.so.cache", "/etc/alternatives", "/etc/localtime"):
            args += ["--ro-bind-try", name, name]
        return args

    def _bwrap_args(self, workdir: Workdir, limits: Limits, env: dict[str, str], seccomp_fd: int,
                    info_fd: int) -> list[str]:
        args = [self.bwrap, "--unshare-all", "--unshare-user", "--die-with-parent",
                "--new-session", "--hostname", "bot", "--clearenv"]
        if self.version >= (0, 8):
            args.append("--disable-userns")  # older bwrap: the seccomp filter's clone rule does this
        base_env = {"PATH": "/usr/bin:/bin", "HOME": BOT_DIR, "PYTHONPATH": SDK_ROOT,
                    "PYTHONDONTWRITEBYTECODE": "1", "LANG": "C.UTF-8"}
        for key, value in {**base_env, **env}.items():
            args += ["--setenv", key, value]
        args += self._system_binds()
        # /dev is a tmpfs of bwrap's as big as half the RAM: read-only once /dev/shm (POSIX shared
        # memory, semaphores) is a tmpfs of the /tmp size on it; the device nodes are bind mounts
        # and stay writable
        args += ["--proc", "/proc", "--dev", "/dev",
                 "--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
                 "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
                 "--size", str(limits.disk_bytes), "--tmpfs", BOT_DIR,
                 "--ro-bind", str(workdir.path), BOT_SOURCE,
                 "--ro-bind", str(self.sdk), f"{SDK_ROOT}/engines",
                 "--remount-ro", "/",
                 "--chdir", BOT_DIR,
                 "--seccomp", str(seccomp_fd), "--info-fd", str(info_fd)]
        return args

    def _start(self, workdir: Workdir, limits: Limits, env: dict[str, str], inner: list[str],
               stdin=subprocess.PIPE, seed: list[tuple[str, str, int, str]] = ()) -> BubblewrapProcess:
        """Start bwrap straight away, held at ``--block-fd`` until it is confined.

        bwrap's child (the future namespace init) waits there before it loads the seccomp
        filter or forks the bot, so the cgroups it is in by then hold everything the bot ever
        runs. The launcher is put into them as soon as Popen returns, mostly before bwrap
        forks that child, which then needs no migration (an RCU grace period) of its own.
        In front of bwrap, a shell sets the rlimits and setpriv drops to the bot's uid: no
        preexec_fn (unsafe in a threaded worker), nor Popen's user=, which forces a fork
        instead of vfork (19 ms rather than 2 ms from a 300 MB worker).
        """
        uid = UID_BASE + random.randrange(UID_SPAN) if self.root else None
        seccomp_fd = os.memfd_create("tabula-seccomp", 0)
        info_read, info_write = os.pipe()
        block_read, block_write = os.pipe()
        cgroup = popen = None
        seed_fds: list[int] = []
        try:
            os.write(seccomp_fd, self.seccomp)
            os.lseek(seccomp_fd, 0, os.SEEK_SET)
            command = _rlimit_shell(limits, uid is not None)
            if uid is not None:
                command += ["/usr/bin/setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
            command += self._bwrap_args(workdir, limits, env, seccomp_fd, info_write) + \
                ["--block-fd", str(block_read)] + _seed_args(seed, seed_fds)
            if self.cgroups.v1 or self.cgroups.v2:
                cgroup = self.cgroups.create(f"tabula-{workdir.path.name}-{os.getpid()}", limits)
            popen = subprocess.Popen(
                command + inner, env={"PATH": "/usr/bin:/bin"}, cwd="/",
                stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, start_new_session=True, close_fds=True,
                pass_fds=(seccomp_fd, info_write, block_read, *seed_fds),
            )
            os.close(info_write)
            info_write = None
            if cgroup is not None:  # usually lands before bwrap forks, so its child is born inside
                _join_cgroups(cgroup, popen.pid)
            info, child = _read_child_pid(info_read)
            if child is None:
                popen.wait()
                error = popen.stderr.read().decode("utf-8", "replace")[-500:]
                raise SandboxError(f"bubblewrap exited (code {popen.returncode}) before starting the bot: {error}")
            if cgroup is not None:  # else bwrap won the race: its child joins now, still held
                _join_cgroups(cgroup, child, unless_member=True)
            os.write(block_write, b"1")  # only now may the sandbox go on and run the bot
        except BaseException:
            if popen is not None:  # killed before the block pipe closes: EOF there would set it free
                _kill_pid(popen.pid, signal.SIGKILL)
                popen.wait()
                popen.stdout.close()
                popen.stderr.close()
                if popen.stdin is not None:
                    popen.stdin.close()
            os.close(info_read)
            if cgroup is not None:
                cgroup.kill()
                cgroup.remove()
            workdir.remove()
            raise
        finally:
            for fd in seed_fds:
                os.close(fd)
            os.close(block_write)
            os.close(block_read)
            os.close(seccomp_fd)
            if info_write is not None:
                os.close(info_write)
        process = BubblewrapProcess(popen, workdir, self.name, cgroup, info_read)
        process.info = info
        return process

    def _ready(self, workdir: Workdir) -> Workdir:
        _open_up(workdir.path)
        return workdir

    def _start_build(self, scratch: Workdir, bot: Bot, limits: Limits) -> BotProcess:
        """The build in the sandbox, on a copy in /bot; its output comes back as a tar stream."""
        _open_up(scratch.path)
        script = f"cp -R {BOT_SOURCE}/. {BOT_DIR}/ || exit 97; {BUILD_SCRIPT}"
        return self._start(scratch, limits, {"BGTP_VERSION": "1"},
                           ["/bin/sh", "-c", script, "tabula-build", bot.build], stdin=subprocess.DEVNULL)

    def spawn(self, workdir: Workdir, bot: Bot, limits: Limits,
              env: dict[str, str] | None = None) -> BotProcess:
        if workdir.removed:
            raise ValueError(f"workdir {workdir.path} was already used and removed; prepare a new one")
        entries = _seed_entries(workdir.path, limits)
        copy = "" if entries is not None else f"cp -R {BOT_SOURCE}/. {BOT_DIR}/ || exit 97; "
        if SHELL_SYNTAX.search(bot.run):
            inner = ["/bin/sh", "-c", copy + 'exec /bin/sh -c "$1"', "tabula-bot", bot.run]
        elif copy:  # a simple command: exec it directly, one process fewer than sh -c
            inner = ["/bin/sh", "-c", copy + 'exec "$@"', "tabula-bot", *shlex.split(bot.run)]
        else:  # nothing to copy either: bwrap execs the bot itself
            inner = shlex.split(bot.run)
        return self._start(workdir, limits, _bot_env(env), inner, seed=entries or [])


SEED_MAX_ENTRIES = 64  # beyond this (or SEED_MAX_BYTES), cp -R in the sandbox copies the workdir
SEED_MAX_BYTES = 8 << 20


def _seed_entries(directory: Path, limits: Limits) -> list[tuple[str, str, int, str]] | None:
    """The workdir as (kind, path in /bot, mode, symlink target) for bwrap to recreate in /bot.

    bwrap writes small trees itself (--dir, --file, --symlink) while it builds the sandbox,
    which spares a cp process per start. None when the tree is big, or holds anything but
    directories, regular files and symlinks: then cp -R does it, with its own error handling.
    """
    entries: list[tuple[str, str, int, str]] = []
    total = 0
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            path = os.path.join(root, name)
            target = f"{BOT_DIR}/{os.path.relpath(path, directory)}"
            info = os.lstat(path)
            mode = info.st_mode & 0o7777
            if stat.S_ISLNK(info.st_mode):
                entries.append(("symlink", target, 0, os.readlink(path)))
                if name in dirs:
                    dirs.remove(name)  # os.walk does not follow it either
            elif stat.S_ISDIR(info.st_mode):
                entries.append(("dir", target, mode | 0o700, ""))
            elif stat.S_ISREG(info.st_mode):
                entries.append(("file", target, mode, path))
                total += info.st_size
            else:
                return None
            if len(entries) > SEED_MAX_ENTRIES or total > min(SEED_MAX_BYTES, limits.disk_bytes // 2):
                return None
    return entries


def _open_up(directory: Path) -> None:
    """Make a workdir readable by the bot's unprivileged uid (bwrap binds it as that uid)."""
    os.chmod(directory, 0o755)
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                mode = os.lstat(path).st_mode
                os.chmod(path, mode | 0o444 | (0o111 if mode & 0o111 or name in dirs else 0))


def _world_readable(path: Path) -> bool:
    for part in [path, *path.parents]:
        mode = part.stat().st_mode
        if not mode & 0o001:
            return False
    return bool(path.stat().st_mode & 0o004)


_SDK_COPY: Path | None = None


def _readable_engines_dir() -> Path:
    """The referee library as the bot's uid can read it: the package itself, or a snapshot."""
    global _SDK_COPY
    if os.geteuid() != 0 or _world_readable(ENGINES_DIR):
        return ENGINES_DIR
    if _SDK_COPY is None:
        _SDK_COPY = _owned_tempdir("sdk") / "engines"
        shutil.copytree(ENGINES_DIR, _SDK_COPY, ignore=shutil.ignore_patterns("__pycache__"))
        _open_up(_SDK_COPY.parent)
    return _SDK_COPY


_SMOKE_CACHE: dict[str, str | None] = {}


def _bwrap_version(bwrap: str) -> tuple[int, ...]:
    try:
        output = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxError(f"cannot run {bwrap} --version: {error}") from None
    match = re.search(r"(\d+)\.(\d+)", output)
    return tuple(int(part) for part in match.groups()) if match else (0, 0)


def _find_bwrap() -> str | None:
    return shutil.which("bwrap") or next((p for p in ("/usr/bin/bwrap", "/usr/local/bin/bwrap")
                                          if os.access(p, os.X_OK)), None)


def open_sandbox(trusted: bool = False, builds: Path | None = None) -> Sandbox:
    """The bubblewrap sandbox, or ``SandboxError``; ``trusted=True``: no sandbox, loudly.

    ``builds``: a directory where each version's build result is kept for later processes
    (else it is kept in memory for this sandbox object's life)."""
    sweep_workdirs()
    if trusted:
        message = ("TRUSTED MODE: bots run as bare subprocesses with NO sandbox "
                   "(no network, file or process isolation). Use only for your own bots.")
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        print(f"WARNING: {message}", file=sys.stderr, flush=True)
        return TrustedSandbox(builds)
    if not sys.platform.startswith("linux"):
        raise SandboxError(f"the bot sandbox needs Linux (bubblewrap); this is {sys.platform}. "
                           "Untrusted bots are refused; use trusted mode for your own bots.")
    bwrap = _find_bwrap()
    if bwrap is None:
        raise SandboxError("bubblewrap (bwrap) is not installed, so untrusted bots are refused. "
                           "Install it with scripts/install-system-deps.sh (apt-get install bubblewrap).")
    for tool in ("/bin/sh",) + (("/usr/bin/setpriv",) if os.geteuid() == 0 else ()):
        if not os.access(tool, os.X_OK):
            raise SandboxError(f"{tool} is missing (util-linux); run scripts/install-system-deps.sh")
    sandbox = BubblewrapSandbox(bwrap, CgroupHost.detect(), builds)
    _smoke_test(sandbox)
    return sandbox


def _smoke_test(sandbox: BubblewrapSandbox) -> None:
    """Start one empty sandbox, once per process: userns or seccomp may be refused by the host."""
    key = sandbox.bwrap
    if key not in _SMOKE_CACHE:
        probe = Bot(name="probe", directory=Path("/nonexistent"), run="true")
        workdir = Workdir(path=_owned_tempdir("probe"), bot=probe)
        _open_up(workdir.path)
        proc = sandbox.spawn(workdir, probe, Limits(), {})
        try:
            _, err = proc.popen.communicate(timeout=20)
            code = proc.popen.returncode
        except subprocess.TimeoutExpired:
            err, code = b"timed out", -1
        finally:
            proc.kill()
        _SMOKE_CACHE[key] = None if code == 0 else f"exit {code}: {err.decode('utf-8', 'replace')[-500:]}"
    if _SMOKE_CACHE[key] is not None:
        raise SandboxError(f"bubblewrap cannot build a sandbox on this host ({_SMOKE_CACHE[key]}); "
                           "untrusted bots are refused")
