"""The sandbox every untrusted bot runs in.

Interface (the match runner uses only this)::

    sandbox = open_sandbox()                 # bubblewrap, or SandboxError; open_sandbox(trusted=True): bare
    workdir = sandbox.prepare(bot, limits)   # private copy of the bot's files; runs bot.build once
    proc = sandbox.spawn(workdir, bot, limits, env={})   # env: BGTP_VERSION=1 + env, nothing else
    proc.stdin.write(b"bgtp 1\\n"); proc.stdin.flush()
    line = proc.stdout.readline()            # binary, unbuffered pipes; use select() on proc.stdout
    proc.suspend(); proc.resume()            # freeze / thaw the whole tree
    proc.poll()                              # exit code of the bot's sandbox or None
    proc.kill()                              # whole tree killed and reaped, workdir removed; idempotent

``Limits`` holds every resource limit. ``BotProcess.kill`` is the only
clean-up a caller needs; a ``BotProcess`` is also a context manager.

Spawning from a thread: bubblewrap's ``--die-with-parent`` ties the sandbox to
the *thread* that spawned it, so spawn from a thread that outlives the game.

What the bubblewrap sandbox gives each bot (see docs in sandbox-notes.md):
own user, PID, network (no loopback service is reachable), IPC, UTS and cgroup
namespaces; a read-only ``/usr`` and nothing else of the host (no /home,
/root, project tree, /etc secrets); the referee library read-only at
``/opt/tabula/engines`` with ``PYTHONPATH=/opt/tabula``; ``/bot`` a size-capped
tmpfs holding a copy of the bot's files (the working directory); ``/tmp`` a
small tmpfs; rlimits (address space, CPU seconds, file size, open files,
processes, no core dumps); a seccomp filter (only AF_UNIX sockets; no ptrace,
mount, namespaces, bpf, keyctl, io_uring, ...); as root, a dedicated uid per
bot and cgroup memory and pids limits (v1 or v2, whichever the host offers),
with ``cgroup.kill``/``cgroup.freeze`` where v2 exists.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from .bots import BadBot, Bot

ENGINES_DIR = Path(__file__).resolve().parent


class SandboxError(RuntimeError):
    """The sandbox cannot be built; an untrusted bot must then not run at all."""


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = 1 << 30  # cgroup memory limit; also the address-space rlimit
    cpu_seconds: int = 3600  # CPU time over the bot's whole life (RLIMIT_CPU)
    processes: int = 64  # cgroup pids limit (and RLIMIT_NPROC with a dedicated uid)
    disk_bytes: int = 256 << 20  # size of the writable working directory
    tmp_bytes: int = 64 << 20  # size of /tmp
    open_files: int = 256
    file_size_bytes: int = 256 << 20
    build_timeout_s: float = 300.0
    build_log_bytes: int = 4096  # tail of the build log kept in BadBot

    def __post_init__(self) -> None:
        for name in ("memory_bytes", "cpu_seconds", "processes", "disk_bytes", "tmp_bytes",
                     "open_files", "file_size_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive integer, got {value!r}")
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


def _new_workdir(bot: Bot) -> Workdir:
    base = Path(tempfile.gettempdir()) / "tabula-bots"
    base.mkdir(mode=0o711, exist_ok=True)
    path = Path(tempfile.mkdtemp(prefix=f"{bot.name}-", dir=base))
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
        self._signal_tree(signal.SIGCONT)  # a stopped tree would not die promptly from SIGTERM later
        self._signal_tree(signal.SIGKILL)
        self.popen.wait()

    def __enter__(self) -> "BotProcess":
        return self

    def __exit__(self, *exc_info) -> None:
        self.kill()


class Sandbox:
    name = "abstract"

    def prepare(self, bot: Bot, limits: Limits) -> Workdir:
        raise NotImplementedError

    def spawn(self, workdir: Workdir, bot: Bot, limits: Limits, env: dict[str, str] | None = None) -> BotProcess:
        raise NotImplementedError


def _bot_env(env: dict[str, str] | None) -> dict[str, str]:
    result = {"BGTP_VERSION": "1"}
    for key, value in (env or {}).items():
        if not isinstance(key, str) or not isinstance(value, str) or not key or "=" in key or "\0" in key + value:
            raise ValueError(f"bad environment variable for a bot: {key!r}={value!r}")
        result[key] = value
    return result


class TrustedSandbox(Sandbox):
    """No isolation at all: a bare subprocess in its own session. For one's own bots only."""

    name = "trusted"

    def prepare(self, bot: Bot, limits: Limits) -> Workdir:
        workdir = _new_workdir(bot)
        if bot.build:
            try:
                result = subprocess.run(
                    ["/bin/sh", "-c", bot.build], cwd=workdir.path, env=self._env({}),
                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                    timeout=limits.build_timeout_s, start_new_session=True,
                )
            except subprocess.TimeoutExpired:
                workdir.remove()
                raise BadBot(f"bot {bot.name!r}: build timed out after {limits.build_timeout_s} s") from None
            if result.returncode != 0:
                workdir.remove()
                tail = result.stdout[-limits.build_log_bytes:].decode("utf-8", "replace")
                raise BadBot(f"bot {bot.name!r}: build failed (exit {result.returncode}):\n{tail}")
        return workdir

    def _env(self, env: dict[str, str] | None) -> dict[str, str]:
        result = _bot_env(env)
        result.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
        result.setdefault("PYTHONPATH", str(ENGINES_DIR.parent))
        return result

    def spawn(self, workdir: Workdir, bot: Bot, limits: Limits, env: dict[str, str] | None = None) -> BotProcess:
        popen = subprocess.Popen(
            ["/bin/sh", "-c", "exec " + bot.run], cwd=workdir.path, env=self._env(env),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            bufsize=0, start_new_session=True, close_fds=True,
        )
        return BotProcess(popen, workdir, self.name)


def open_sandbox(trusted: bool = False) -> Sandbox:
    if trusted:
        message = ("TRUSTED MODE: bots run as bare subprocesses with NO sandbox "
                   "(no network, file or process isolation). Use only for your own bots.")
        warnings.warn(message, RuntimeWarning, stacklevel=2)
        print(f"WARNING: {message}", file=sys.stderr, flush=True)
        return TrustedSandbox()
    raise SandboxError("bubblewrap sandbox not implemented yet; refusing to run untrusted bots")
