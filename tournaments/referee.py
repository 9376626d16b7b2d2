"""The service's only door to the referee's runner: unpack a stored version, smoke-test it, play a game.

``engines`` and ``runner`` know nothing of Django; this module turns ``BotVersion`` rows into ``runner.bots.Bot``
directories and calls the sandbox and the match runner. Failures come back in two kinds:
``BotFailure`` (the bot's fault: reject it, or score the game) and ``InfrastructureError`` (ours:
requeue, never score).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from django.conf import settings

from engines import get_game
from runner.bots import BadBot, Bot, load_bot, sanitise_name
from runner.bundle import BadFiles, FileLimits, unpack, write_tree

from . import live


def file_limits() -> FileLimits:
    """The limits on an upload's files, from the settings; the worker reads the stored list with them too."""
    arena = settings.ARENA
    return FileLimits(max_entries=arena["UPLOAD_MAX_FILES"], max_bytes=arena["UPLOAD_MAX_UNPACKED_BYTES"],
                      max_ratio=arena["UPLOAD_MAX_RATIO"])


class InfrastructureError(RuntimeError):
    """The sandbox or the runner could not do its job; nothing about the bot is known."""


class BotFailure(Exception):
    """The bot did something the protocol does not allow; the message says what."""


def _sandbox_module():
    # lazy: start-up time; the web process imports the referee (through the services) but never opens a sandbox
    from runner import sandbox  # lazy: see above

    return sandbox


def open_sandbox(trusted: bool = False):
    """The sandbox bots run in; bare processes when ARENA_SANDBOX_TRUSTED says so, or when the caller vouches
    for the bots (``trusted``: the reference bots, seeded with ``--trusted-sandbox``)."""
    sandbox = _sandbox_module()
    try:
        # each version's build runs once on this machine: its result is kept next to its files
        return sandbox.open_sandbox(trusted=trusted or settings.ARENA["SANDBOX_TRUSTED"],
                                    builds=Path(settings.ARENA["BOT_CACHE_DIR"]) / "builds")
    except sandbox.SandboxError as error:
        raise InfrastructureError(f"sandbox unavailable: {error}") from error


def limits():
    return _sandbox_module().Limits(memory_bytes=settings.ARENA["BOT_MEMORY_BYTES"])


def bot_directory(version) -> Path:
    """The version's files written under BOT_CACHE_DIR, keyed by checksum (written once).

    What is written is exactly the list checked at upload and stored as a bundle (``uploads``),
    by ``runner.bundle.write_tree``: regular files and directories, never a link followed, never
    a file outside the directory, whatever the stored file holds. A stored file that is not such a
    list is refused (``BadBot``) and nothing is written.
    """
    # "-w": written from a bundle; a directory that extractall made before issue 9 is never reused.
    key = f"{version.sha256}-{version.kind.replace('.', '')}-w"
    if version.kind == "py":  # the file name is part of a one-file bot (its run command names it)
        key += f"-{version.filename}"
    cache = Path(settings.ARENA["BOT_CACHE_DIR"]) / key
    if cache.is_dir():
        return cache
    with version.file.open("rb") as stored:
        blob = stored.read()
    try:
        entries = unpack(blob, file_limits())
    except BadFiles as error:
        raise BadBot(f"the stored files of {version} are refused: {error}") from None
    cache.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="unpack-", dir=cache.parent))
    try:
        write_tree(entries, staging)
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
    # The sandbox names the bot's work directory after it: never a player's raw name (an old row may predate
    # the name rule), always the protocol's safe characters.
    return Bot(name=sanitise_name(f"{version.bot.name}-v{version.number}"), directory=bot.directory, run=bot.run,
               build=bot.build, single_file=bot.single_file)


def smoke_test(version, trusted: bool = False) -> None:
    """Handshake, ``newgame`` and one ``go`` on the initial position, in the sandbox.

    Raises ``BotFailure`` naming what went wrong, or ``InfrastructureError`` when the sandbox failed.
    """
    import runner.match  # lazy: start-up time, as runner.sandbox above

    try:
        bot = load_version(version)
    except BadBot as error:
        raise BotFailure(str(error)) from None
    try:
        failure = runner.match.smoke_test(
            version.bot.game, bot, sandbox=open_sandbox(trusted), limits=limits(),
            startup_ms=settings.ARENA["SMOKE_TEST_STARTUP_SECONDS"] * 1000,
            move_ms=settings.ARENA["SMOKE_TEST_MOVE_SECONDS"] * 1000,
        )
    except _sandbox_module().SandboxError as error:
        raise InfrastructureError(f"sandbox failed during the smoke test: {error}") from error
    if failure:
        raise BotFailure(failure)


def play_game(match, number: int, white_bot: Bot, black_bot: Bot, sandbox) -> dict:
    """One game of ``match`` through ``runner.match.play_game``; the runner's record comes back. Watchers see
    the game as it goes (``tournaments.live``)."""
    import runner.match  # lazy: start-up time, as runner.sandbox above

    start = {"game": match.game, "initial": get_game(match.game).initial().text(), "white": white_bot.name,
             "black": black_bot.name, "tc": match.time_control}

    def on_ply(actions, times):
        live.publish(match.pk, number, {**start, "actions": actions, "times": times, "plies": len(actions)})

    on_ply([], [])
    try:
        record = runner.match.play_game(
            match.game, white_bot, black_bot, tc=match.time_control, sandbox=sandbox, limits=limits(),
            seed=match.pk * 1000 + number, match_id=f"m{match.pk}-g{number}", on_ply=on_ply,
        )
    except _sandbox_module().SandboxError as error:
        raise InfrastructureError(f"sandbox failed during game {number}: {error}") from error
    live.publish(match.pk, number, record)
    return record
