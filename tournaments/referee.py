"""The service's only door to the referee's runner: unpack a stored version, smoke-test it, play a game.

``engines`` knows nothing of Django; this module turns ``BotVersion`` rows into ``engines.bots.Bot``
directories and calls the sandbox and the match runner. Failures come back in two kinds:
``BotFailure`` (the bot's fault: reject it, or score the game) and ``InfrastructureError`` (ours:
requeue, never score).
"""

from __future__ import annotations

import os
import selectors
import shutil
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

from django.conf import settings

from engines import get_game
from engines.bots import BadBot, Bot, load_bot


class InfrastructureError(RuntimeError):
    """The sandbox or the runner could not do its job; nothing about the bot is known."""


class BotFailure(Exception):
    """The bot did something the protocol does not allow; the message says what."""


def _sandbox_module():
    from engines import sandbox

    return sandbox


def open_sandbox():
    sandbox = _sandbox_module()
    try:
        return sandbox.open_sandbox(trusted=settings.ARENA["SANDBOX_TRUSTED"])
    except sandbox.SandboxError as error:
        raise InfrastructureError(f"sandbox unavailable: {error}") from error


def limits():
    return _sandbox_module().Limits(memory_bytes=settings.ARENA["BOT_MEMORY_BYTES"])


def unpack_archive(kind: str, source: Path, destination: Path) -> None:
    """Extract a stored, already validated archive (see ``uploads``) into ``destination``."""
    if kind == "zip":
        with zipfile.ZipFile(source) as archive:
            archive.extractall(destination)
    elif kind == "tar.gz":
        with tarfile.open(source, "r:gz") as archive:
            archive.extractall(destination, filter="data")
    else:
        raise ValueError(f"not an archive kind: {kind!r}")


def bot_directory(version) -> Path:
    """The version's files unpacked under BOT_CACHE_DIR, keyed by checksum (unpacked once)."""
    key = f"{version.sha256}-{version.kind.replace('.', '')}"
    if version.kind == "py":  # the file name is part of a one-file bot (its run command names it)
        key += f"-{version.filename}"
    cache = Path(settings.ARENA["BOT_CACHE_DIR"]) / key
    if cache.is_dir():
        return cache
    cache.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="unpack-", dir=cache.parent))
    try:
        source = Path(version.file.path)
        if version.kind == "py":
            shutil.copyfile(source, staging / version.filename)
        else:
            unpack_archive(version.kind, source, staging)
        try:
            os.rename(staging, cache)
        except OSError:
            if not cache.is_dir():  # another worker did not win the race: a real error
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return cache


def load_version(version) -> Bot:
    directory = bot_directory(version)
    path = directory / version.filename if version.kind == "py" else directory
    bot = load_bot(path)
    return Bot(name=f"{version.bot.name}-v{version.number}"[:32], directory=bot.directory, run=bot.run,
               build=bot.build, single_file=bot.single_file)


class _LineReader:
    def __init__(self, proc):
        self.proc = proc
        self.buffer = b""
        self.selector = selectors.DefaultSelector()
        self.selector.register(proc.stdout, selectors.EVENT_READ)

    def readline(self, deadline: float, what: str) -> str:
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BotFailure(f"no {what} within the deadline")
            if not self.selector.select(remaining):
                continue
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                raise BotFailure(f"the bot exited before its {what} (exit code {self.proc.poll()})")
            self.buffer += chunk
            if len(self.buffer) > 64 * 1024:
                raise BotFailure(f"line longer than 64 KiB while waiting for {what}")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("ascii", "replace").rstrip("\r")

    def expect(self, keyword: str, deadline: float) -> list[str]:
        """The words of the first line starting with ``keyword``; info and unknown lines are skipped."""
        while True:
            words = self.readline(deadline, f"'{keyword}' line").split()
            if words and words[0] == keyword:
                return words
            if words and words[0] == "error":
                raise BotFailure(f"the bot reported an error: {' '.join(words[1:])[:200]}")


def _send(proc, line: str) -> None:
    try:
        proc.stdin.write(line.encode("ascii") + b"\n")
        proc.stdin.flush()
    except (BrokenPipeError, OSError):
        raise BotFailure(f"the bot closed its input before {line.split()[0]!r}") from None


def smoke_test(version) -> None:
    """Handshake, ``newgame``, and one ``go`` on the initial position, in the sandbox.

    Raises ``BotFailure`` naming what went wrong, or ``InfrastructureError`` when the sandbox failed.
    """
    try:
        bot = load_version(version)
    except BadBot as error:
        raise BotFailure(str(error)) from None
    sandbox_module = _sandbox_module()
    sandbox = open_sandbox()
    bot_limits = limits()
    startup = settings.ARENA["SMOKE_TEST_STARTUP_SECONDS"]
    try:
        workdir = sandbox.prepare(bot, bot_limits)
    except BadBot as error:
        raise BotFailure(f"build failed: {error}") from None
    except (sandbox_module.SandboxError, OSError) as error:
        raise InfrastructureError(f"could not prepare the sandbox: {error}") from error
    try:
        proc = sandbox.spawn(workdir, bot, bot_limits, {})
    except (sandbox_module.SandboxError, OSError) as error:
        workdir.remove()
        raise InfrastructureError(f"could not start the bot in the sandbox: {error}") from error
    game = get_game(version.bot.game)
    position = game.initial()
    try:
        reader = _LineReader(proc)
        _send(proc, "bgtp 1")
        hello = reader.expect("bgtp", time.monotonic() + startup)
        if len(hello) < 2 or hello[1] != "1":
            raise BotFailure(f"handshake answered protocol version {' '.join(hello[1:2]) or 'none'}, not 1")
        # The bot is told a 1 s budget and given SMOKE_TEST_MOVE_SECONDS: slow machines are not its fault.
        _send(proc, f"newgame id=smoke-{version.pk} game={game.id} side={position.turn} tc=move:1000 seed=1")
        reader.expect("ready", time.monotonic() + startup)
        legal = position.legal_moves()
        _send(proc, f"position {position.text()}")
        _send(proc, "legal " + " ".join(legal))
        _send(proc, f"go side={position.turn} ply={position.ply + 1} movetime=1000")
        answer = reader.expect("move", time.monotonic() + settings.ARENA["SMOKE_TEST_MOVE_SECONDS"])
        if len(answer) < 2 or answer[1].lower() not in {action.lower() for action in legal}:
            raise BotFailure(f"answered the first go with an illegal action {' '.join(answer[1:])[:80]!r}")
        _send(proc, "gameover winner=none reason=smoke-test plies=0")
        _send(proc, "quit")
    finally:
        proc.kill()


def play_game(match, number: int, white_bot: Bot, black_bot: Bot, sandbox) -> dict:
    """One game of ``match`` through ``engines.match.play_game``; the runner's record comes back."""
    from engines import match as runner

    try:
        return runner.play_game(
            match.game, white_bot, black_bot, tc=match.time_control, sandbox=sandbox, limits=limits(),
            seed=match.pk * 1000 + number, match_id=f"m{match.pk}-g{number}",
        )
    except _sandbox_module().SandboxError as error:
        raise InfrastructureError(f"sandbox failed during game {number}: {error}") from error
