"""The bubblewrap sandbox: the mount table, namespaces, rlimits and seccomp filter every untrusted bot gets."""

from __future__ import annotations

import os
import random
import re
import shlex
import shutil
import signal
import stat
import subprocess
import time
from pathlib import Path

from ..bots import Bot
from .base import (
    BUILD_SCRIPT,
    ENGINES_DIR,
    BotProcess,
    Limits,
    Sandbox,
    SandboxError,
    Workdir,
    bot_env,
    owned_tempdir,
)
from .cgroups import BotCgroup, CgroupHost
from .proctree import become_subreaper, children, kill_pid, live, namespace_members, pid_namespace, reap
from .seccomp import seccomp_program

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
        return namespace_members(namespace) if namespace else []

    def _find_namespace(self) -> str | None:
        """The bot's PID namespace: that of bwrap's child (the namespace's init)."""
        if self.namespace is None:
            own = pid_namespace(self.pid)
            for child in children(self.pid):
                namespace = pid_namespace(child)
                if namespace and namespace != own:
                    self.namespace = namespace
        return self.namespace

    def suspend(self) -> None:
        if not (self.cgroup and self.cgroup.freeze(True)):
            for pid in self._members():
                kill_pid(pid, signal.SIGSTOP)

    def resume(self) -> None:
        if not (self.cgroup and self.cgroup.freeze(False)):
            for pid in self._members():
                kill_pid(pid, signal.SIGCONT)

    def _kill_tree(self) -> None:
        seen: set[int] = set()
        namespace = self._find_namespace()
        init = [c for c in children(self.pid)]
        # Killing the namespace's init makes the kernel kill every process in it,
        # including those that setsid'd or double-forked.
        for pid in init:
            kill_pid(pid, signal.SIGKILL)
        kill_pid(self.pid, signal.SIGKILL)
        if self.cgroup is not None and self.cgroup.dirs:
            self.cgroup.freeze(False)
            seen |= self.cgroup.kill()
        elif namespace:
            deadline = time.monotonic() + 5.0
            while (members := live(namespace_members(namespace))) and time.monotonic() < deadline:
                seen.update(members)
                for pid in members:
                    kill_pid(pid, signal.SIGKILL)
                time.sleep(0.002)
        self.popen.wait()
        init_pid = self._init_pid()
        if init_pid is not None:
            kill_pid(init_pid, signal.SIGKILL)
            seen.add(init_pid)
        reap(seen | set(init))
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


DEV_NODES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
DEV_LINKS = (("/dev/fd", "/proc/self/fd"), ("/dev/stdin", "/proc/self/fd/0"), ("/dev/stdout", "/proc/self/fd/1"),
             ("/dev/stderr", "/proc/self/fd/2"))
DEV_BYTES = 64 << 10


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
        become_subreaper()

    def isolation_problem(self) -> str:
        missing = self.cgroups.missing()
        return f"no per-bot cgroup control of {', '.join(missing)} ({self.cgroups.describe()})" if missing else ""

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
        # /dev is a small read-only tmpfs holding the few device nodes a program needs (bind mounts that
        # stay writable) and /dev/shm (POSIX shared memory, semaphores), a tmpfs of the /tmp size. Not bwrap's
        # --dev: that also brings /dev/ptmx and a devpts whose terminals come out of the host's shared
        # pool (kernel.pty.max), and /dev/tty.
        args += ["--proc", "/proc", "--size", str(DEV_BYTES), "--tmpfs", "/dev"]
        for node in DEV_NODES:
            args += ["--dev-bind", node, node]
        for name, target in DEV_LINKS:
            args += ["--symlink", target, name]
        args += ["--size", str(limits.tmp_bytes), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
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
                cgroup.join(popen.pid)
            info, child = _read_child_pid(info_read)
            if child is None:
                popen.wait()
                error = popen.stderr.read().decode("utf-8", "replace")[-500:]
                raise SandboxError(f"bubblewrap exited (code {popen.returncode}) before starting the bot: {error}")
            if cgroup is not None:  # else bwrap won the race: its child joins now, still held
                cgroup.join(child, unless_member=True)
            os.write(block_write, b"1")  # only now may the sandbox go on and run the bot
        except BaseException:
            if popen is not None:  # killed before the block pipe closes: EOF there would set it free
                kill_pid(popen.pid, signal.SIGKILL)
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
        return self._start(workdir, limits, bot_env(env), inner, seed=entries or [])


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
        _SDK_COPY = owned_tempdir("sdk") / "engines"
        shutil.copytree(ENGINES_DIR, _SDK_COPY, ignore=shutil.ignore_patterns("__pycache__"))
        _open_up(_SDK_COPY.parent)
    return _SDK_COPY


def _bwrap_version(bwrap: str) -> tuple[int, ...]:
    try:
        output = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxError(f"cannot run {bwrap} --version: {error}") from None
    match = re.search(r"(\d+)\.(\d+)", output)
    return tuple(int(part) for part in match.groups()) if match else (0, 0)


_SMOKE_CACHE: dict[str, str | None] = {}


def probe_host(sandbox: BubblewrapSandbox) -> None:
    """Start one empty sandbox, once per process: userns or seccomp may be refused by the host."""
    key = sandbox.bwrap
    if key not in _SMOKE_CACHE:
        probe = Bot(name="probe", directory=Path("/nonexistent"), run="true")
        workdir = Workdir(path=owned_tempdir("probe"), bot=probe)
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
