"""A bot's build: run once per version, its output read through a capped channel, its result kept."""

from __future__ import annotations

import hashlib
import os
import select
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO, Protocol

from .bots import BadBot, Bot
from .bundle import BadFiles, Entry, FileLimits, _tar_budget, pack, read_tar, unpack


class Limits(Protocol):
    """The build's part of ``runner.sandbox.Limits`` (named by shape: the sandbox imports this module)."""

    build_timeout_s: float
    build_log_bytes: int
    build_output_bytes: int
    build_output_entries: int


class BotProcess(Protocol):
    """The build's view of ``runner.sandbox.BotProcess``: its two output pipes and its exit code."""

    stdout: BinaryIO
    stderr: BinaryIO

    def poll(self) -> int | None: ...

CHUNK = 1 << 16
EXIT_GRACE_S = 1.0  # after the build's process ended, how long its pipes may stay open (trusted mode)


def output_limits(limits: Limits) -> FileLimits:
    return FileLimits(max_entries=limits.build_output_entries, max_bytes=limits.build_output_bytes,
                      max_ratio=None)


def collect(proc: BotProcess, bot: Bot, limits: Limits) -> list[Entry]:
    """Read a started build to its end and return its output as checked entries, or raise BadBot.

    The caller kills ``proc`` (its whole tree) afterwards, whatever happened here.
    """
    output, log, code = _read(proc, bot, limits)
    if code != 0:
        raise BadBot(f"bot {bot.name!r}: build {bot.build!r} failed (exit {code}); log tail:\n{log}")
    try:
        return read_tar(output, output_limits(limits))
    except BadFiles as error:
        raise BadBot(f"bot {bot.name!r}: the build's output is refused: {error}") from None


def _read(proc: BotProcess, bot: Bot, limits: Limits) -> tuple[bytes, str, int]:
    """(output, log tail, exit code): both pipes read with select against the deadline."""
    deadline = time.monotonic() + limits.build_timeout_s
    cap = _tar_budget(output_limits(limits))
    output, log = bytearray(), bytearray()
    out_fd, log_fd = proc.stdout.fileno(), proc.stderr.fileno()
    open_fds = [out_fd, log_fd]
    ended = None  # when the build's process exited
    while True:
        now = time.monotonic()
        if now >= deadline:
            raise BadBot(f"bot {bot.name!r}: build timed out after {limits.build_timeout_s} s; "
                         f"log tail:\n{_text(log)}")
        code = proc.poll()
        if code is not None:
            ended = ended or now
            # a pipe still open past the grace is held by a process the build left behind: its
            # writes are not the build's output (the kill that follows ends it)
            if not open_fds or now - ended > EXIT_GRACE_S:
                return bytes(output), _text(log), code
        if not open_fds:  # both pipes closed, the build still running
            time.sleep(min(0.05, deadline - now))
            continue
        ready, _, _ = select.select(open_fds, [], [], min(0.1, deadline - now))
        for fd in ready:
            chunk = os.read(fd, CHUNK)
            if not chunk:
                open_fds.remove(fd)
            elif fd == log_fd:
                log += chunk
                del log[:-limits.build_log_bytes]  # only the tail is ever held
            else:
                output += chunk
                if len(output) > cap:
                    raise BadBot(
                        f"bot {bot.name!r}: the build's output is over {cap} bytes, more than "
                        f"{limits.build_output_entries} files and directories of "
                        f"{limits.build_output_bytes} bytes in all can take (sparse files count at "
                        f"their full size); log tail:\n{_text(log)}")


def _text(log: bytearray) -> str:
    return log.decode("utf-8", "replace")


def build_key(bot: Bot) -> str:
    """A digest of the bot's build command and of every name, kind, mode bit and content of its files."""
    digest = hashlib.sha256(b"build\0" + (bot.build or "").encode() + b"\0")
    for source in bot.files():
        paths, base = [source], source.parent  # a directory is copied as its content, a file by name
        if source.is_dir() and not source.is_symlink():
            base = source
            for root, dirs, files in os.walk(source):  # links to directories are not followed
                dirs.sort()
                paths += [Path(root) / name for name in sorted(dirs + files)]
        for path in paths:
            name = os.fsencode(path.relative_to(base).as_posix())
            if path.is_symlink():
                digest.update(b"l\0" + name + b"\0" + os.fsencode(os.readlink(path)) + b"\0")
            elif path.is_dir():
                digest.update(b"d\0" + name + b"\0")
            elif not path.is_file():  # a fifo or a device: never opened (the copy refuses it)
                digest.update(b"o\0" + name + b"\0")
            else:
                executable = b"x" if os.access(path, os.X_OK) else b"-"
                with open(path, "rb") as handle:
                    content = hashlib.file_digest(handle, "sha256").digest()
                digest.update(b"f\0" + name + b"\0" + executable + content)
    return digest.hexdigest()


class BuildStore:
    """Each build's result, made once: entries or the BadBot, per key (see ``build_key``)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory  # successes kept there as bundle files too, for later processes
        self.results: dict[str, list[Entry] | BadBot] = {}
        self.lock = threading.Lock()
        self.key_locks: dict[str, threading.Lock] = {}

    def entries(self, bot: Bot, limits: Limits, build: Callable[[Bot, Limits], list[Entry]]) -> list[Entry]:
        try:
            key = build_key(bot)
        except OSError as error:
            raise BadBot(f"bot {bot.name!r}: cannot read its files in {bot.directory}: {error}") from None
        with self.lock:
            key_lock = self.key_locks.setdefault(key, threading.Lock())
        with key_lock:  # two games of one bot starting at once build it once
            if key not in self.results:
                self.results[key] = self._load(key, limits) or self._make(key, bot, limits, build)
        result = self.results[key]
        if isinstance(result, BadBot):
            raise BadBot(str(result))
        return result

    def _make(self, key: str, bot: Bot, limits: Limits, build) -> list[Entry] | BadBot:
        try:
            entries = build(bot, limits)
        except BadBot as error:
            return error  # kept in memory only: on another day (a less busy machine) it may pass
        if self.directory is not None:
            self._keep(key, entries)
        return entries

    def _keep(self, key: str, entries: list[Entry]) -> None:
        """Write the bundle whole, or not at all: a full disk only costs a later process a build."""
        temporary = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=self.directory, prefix=f".{key}-", delete=False) as handle:
                temporary = handle.name
                handle.write(pack(entries))
            os.replace(temporary, self.directory / f"{key}.bundle")
        except OSError:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)

    def _load(self, key: str, limits: Limits) -> list[Entry] | None:
        if self.directory is None:
            return None
        try:
            return unpack((self.directory / f"{key}.bundle").read_bytes(), output_limits(limits))
        except (OSError, BadFiles):
            return None  # not built yet, or damaged: build again
