"""What every sandbox shares: the limits, the bot's private workdir, the running bot, the trusted sandbox."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import engines

from ..bots import BadBot, Bot
from ..build import BuildStore, collect
from ..bundle import Entry, write_tree
from .proctree import group_members, reap

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


def owned_tempdir(prefix: str) -> Path:
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
    path = owned_tempdir(bot.name)
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
        members = group_members(self.pid)
        self._signal_tree(signal.SIGKILL)
        self.popen.wait()
        # again after the kill: a process forked since the first look is dead now but
        # still listed (as a zombie, or exiting), and may come back to us to be reaped
        reap(members | group_members(self.pid))

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
        workdir = Workdir(path=owned_tempdir(bot.name), bot=bot)
        try:
            write_tree(entries, workdir.path)
        except OSError as error:  # the entries were checked: this is the host's disk, not the bot
            workdir.remove()
            raise SandboxError(f"cannot write the built files of bot {bot.name!r}: {error}") from None
        return self._ready(workdir)

    def _ready(self, workdir: Workdir) -> Workdir:
        return workdir

    def isolation_problem(self) -> str:
        """Why bots of different matches on this host could reach each other (CPU, memory, processes, a
        pause they escape), or "" when each bot is held in its own cgroups."""
        return "no sandbox"

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


def bot_env(env: dict[str, str] | None) -> dict[str, str]:
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

    def isolation_problem(self) -> str:
        return "trusted mode: bots run as bare processes (the operator vouches for every bot)"

    def _start_build(self, scratch: Workdir, bot: Bot, limits: Limits) -> BotProcess:
        # the same channel as in the sandbox (runner.build), minus the sandbox: one's own bots only
        return self._start(["/bin/sh", "-c", BUILD_SCRIPT, "tabula-build", bot.build], scratch, {}, subprocess.DEVNULL)

    def _env(self, env: dict[str, str] | None) -> dict[str, str]:
        result = bot_env(env)
        result.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        result.setdefault("PYTHONPATH", str(ENGINES_DIR.parent))
        return result

    def spawn(self, workdir: Workdir, bot: Bot, limits: Limits,
              env: dict[str, str] | None = None) -> BotProcess:
        return self._start(["/bin/sh", "-c", "exec " + bot.run], workdir, env, subprocess.PIPE)

    def _start(self, argv: list[str], workdir: Workdir, env: dict[str, str] | None, stdin) -> BotProcess:
        """``argv`` in ``workdir``, in a session of its own (so the whole group can be killed)."""
        try:
            popen = subprocess.Popen(argv, cwd=workdir.path, env=self._env(env), stdin=stdin, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, bufsize=0, start_new_session=True, close_fds=True)
        except BaseException:
            workdir.remove()
            raise
        return BotProcess(popen, workdir, self.name)
