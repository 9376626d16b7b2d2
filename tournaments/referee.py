"""The domain's door to the referee's runner: unpack a stored version, hold it on disk, smoke-test it (a claimed
match's games are played by ``play.referee``, with the bots and the sandbox opened here)."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from knobs import arena
from runner.bots import BadBot, Bot, load_bot, sanitise_name
from runner.bundle import BadFiles, Entry, FileLimits, read_tar_gz, read_zip, unpack, write_tree
from runner.cache import TreeCache


def file_limits() -> FileLimits:
    """The limits on an upload's files, from the settings; the worker reads the stored list with them too."""
    return FileLimits(max_entries=arena.UPLOAD_MAX_FILES, max_bytes=arena.UPLOAD_MAX_UNPACKED_BYTES,
                      max_ratio=arena.UPLOAD_MAX_RATIO)


class InfrastructureError(RuntimeError):
    """The sandbox or the runner could not do its job; nothing about the bot is known."""


class BotFailure(Exception):
    """The bot did something the protocol does not allow; the message says what, ``stderr`` the last lines the bot
    wrote to its stderr (``runner.match.stderr_tail``; empty when it never ran)."""

    def __init__(self, message: str, stderr: str = ""):
        super().__init__(message)
        self.stderr = stderr


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
        return sandbox.open_sandbox(trusted=trusted or arena.SANDBOX_TRUSTED,
                                    builds=Path(arena.BOT_CACHE_DIR) / "builds")
    except sandbox.SandboxError as error:
        raise InfrastructureError(f"sandbox unavailable: {error}") from error


def isolation_problem() -> str:
    """Why this worker's bots could reach each other, or "" (``runner.sandbox``'s answer, once per process and
    sandbox mode)."""
    return _isolation_problem(arena.SANDBOX_TRUSTED)


@functools.cache
def _isolation_problem(trusted: bool) -> str:
    try:
        return open_sandbox(trusted).isolation_problem()
    except InfrastructureError as error:
        return str(error)


def limits():
    return _sandbox_module().Limits(memory_bytes=arena.BOT_MEMORY_BYTES)


def bot_cache() -> TreeCache:
    """The worker's unpacked versions under BOT_CACHE_DIR, at most BOT_CACHE_BYTES with their builds
    (``runner.cache``: least recently used out first, never a tree in use)."""
    root = Path(arena.BOT_CACHE_DIR)
    return TreeCache(root, arena.BOT_CACHE_BYTES, companions=_build_of(root / "builds"),
                     wanted=_keys_still_stored)


def cache_key(version) -> str:
    """The name of a version's tree in the cache: its checksum, so two versions of one file share a tree."""
    # "-w": written from a checked list; a directory that extractall made before issue 9 is never reused.
    key = f"{version.sha256}-{version.kind.replace('.', '')}-w"
    if version.kind == "py":  # the file name is part of a one-file bot (its run command names it)
        key += f"-{version.filename}"
    return key


def _keys_still_stored(keys: list[str]) -> set[str]:
    """Of these cache keys, those of versions that still exist (one query)."""
    from .models import BotVersion  # lazy: the referee is imported while the apps load

    digests = {key.split("-", 1)[0] for key in keys}
    rows = BotVersion.objects.filter(sha256__in=digests).only("sha256", "kind", "filename")
    return {cache_key(version) for version in rows}


def _build_of(builds: Path):
    """A tree's build result under ``builds`` (``runner.build.BuildStore``), which goes with it."""
    def companions(key: str, tree: Path) -> list[Path]:
        name = _build_name(key, tree)
        return [builds / name] if name else []

    return companions


@functools.lru_cache(maxsize=4096)
def _build_name(key: str, tree: Path) -> str | None:
    """The file name of the tree's build result, or None: no build. A key's files never change, so this is
    worked out (reading every file, for its digest) once per process, not at every trim."""
    from runner.build import build_key  # lazy: as runner.sandbox above

    single = list(tree.iterdir()) if key.split("-")[1] == "py" else []
    bot = load_bot(single[0] if len(single) == 1 else tree)
    return f"{build_key(bot)}.bundle" if bot.build else None


def stored_entries(version) -> list[Entry]:
    """The version's files as the checked list the upload made of them.

    The one stored form is the player's file (``BotVersion.original``): its checksum is checked against
    the one taken at upload, then it is read by the same checked reader (``runner.bundle``); a version
    uploaded before the arena kept one file has the list itself (``BotVersion.file``, a bundle). Anything
    refused is a ``BadBot`` and nothing is written.
    """
    if version.original.name:
        with version.original.open("rb") as stored:
            content = stored.read()
        if hashlib.sha256(content).hexdigest() != version.sha256:
            raise BadBot(f"the stored files of {version} are refused: the file does not match its checksum")
        if version.kind == "py":
            return [Entry(version.filename, content)]
        reader = read_zip if version.kind == "zip" else read_tar_gz
    else:
        with version.file.open("rb") as stored:
            content = stored.read()
        reader = unpack
    try:
        return reader(content, file_limits())
    except BadFiles as error:
        raise BadBot(f"the stored files of {version} are refused: {error}") from None


@contextmanager
def version_files(version) -> Iterator[Path]:
    """The version's files on this machine's disk, kept there (not evicted) until the block ends.

    What is written is exactly the checked list (``stored_entries``), by ``runner.bundle.write_tree``:
    regular files and directories, never a link followed, never a file outside the directory.
    """
    with bot_cache().use(cache_key(version), lambda directory: write_tree(stored_entries(version), directory)) \
            as tree:
        yield tree


def bot_directory(version) -> Path:
    """The version's tree, made if need be but not held: eviction may take it once others need the room."""
    with version_files(version) as tree:
        return tree


def load_version(version) -> Bot:
    """The version as a runner bot (its tree made if need be); hold it with ``version_files`` or
    ``loaded_versions`` while it plays."""
    return _as_bot(version, bot_directory(version))


def _as_bot(version, directory: Path) -> Bot:
    path = directory / version.filename if version.kind == "py" else directory
    bot = load_bot(path)
    # The sandbox names the bot's work directory after it: never a player's raw name (an old row may predate
    # the name rule), always the protocol's safe characters.
    return Bot(name=sanitise_name(f"{version.bot.name}-v{version.number}"), directory=bot.directory, run=bot.run,
               build=bot.build, single_file=bot.single_file)


@contextmanager
def loaded_versions(*versions) -> Iterator[list[Bot]]:
    """Runner bots of ``versions``, their trees held in the cache until the block ends (a match's games)."""
    with ExitStack() as stack:
        yield [_as_bot(version, stack.enter_context(version_files(version))) for version in versions]


@contextmanager
def held_bots(*version_ids: int) -> Iterator[dict[int, Bot]]:
    """Runner bots of the versions ``version_ids`` by id (one query), held as ``loaded_versions`` holds them."""
    from .models import BotVersion  # lazy: the referee is imported while the apps load

    rows = BotVersion.objects.select_related("bot").in_bulk(version_ids)
    with loaded_versions(*(rows[pk] for pk in version_ids)) as bots:
        yield dict(zip(version_ids, bots))


def forget_versions(keys) -> None:
    """Remove these cache keys' trees (and builds) now, those no version stores any more; one in use stays
    for eviction later. Called after a deletion commits."""
    cache = bot_cache()
    for key in set(keys) - _keys_still_stored(list(keys)):
        cache.remove(key)


def smoke_test(version, trusted: bool = False) -> None:
    """Handshake, ``newgame`` and one ``go`` on the initial position, in the sandbox.

    Raises ``BotFailure`` naming what went wrong, or ``InfrastructureError`` when the sandbox failed.
    """
    import runner.match  # lazy: start-up time, as runner.sandbox above

    with ExitStack() as stack:
        try:
            bot = _as_bot(version, stack.enter_context(version_files(version)))
        except BadBot as error:
            raise BotFailure(str(error)) from None
        try:
            failure = runner.match.smoke_test(
                version.bot.game, bot, sandbox=open_sandbox(trusted), limits=limits(),
                startup_ms=arena.SMOKE_TEST_STARTUP_SECONDS * 1000,
                move_ms=arena.SMOKE_TEST_MOVE_SECONDS * 1000,
            )
        except _sandbox_module().SandboxError as error:
            raise InfrastructureError(f"sandbox failed during the smoke test: {error}") from error
    if failure:
        raise BotFailure(failure.reason, stderr=failure.stderr)
