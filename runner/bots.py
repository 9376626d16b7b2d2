"""What a bot is: a directory with a manifest, or a single Python file."""

from __future__ import annotations

import json
import posixpath
import re
import shlex
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from engines.core import RefereeError
from engines.registry import GAME_IDS

MANIFESTS = ("bot.toml", "bot.json")
NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]")
MAX_COMMAND = 1000
MAX_MANIFEST = 64 * 1024  # a few lines; tomllib would spend seconds on megabytes
PATH_PIECES = re.compile(r"[=:,]")


class BadBot(RefereeError):
    """A bot that cannot be started: bad manifest, missing entry point, failed build."""


@dataclass(frozen=True)
class Bot:
    name: str  # sanitised to [A-Za-z0-9_.-]{1,32}
    directory: Path  # the bot's files; for a single file, see ``files``
    run: str  # command line, run by /bin/sh in the bot's directory
    build: str | None = None
    single_file: str | None = None  # for a one-file bot: the only file exposed
    games: tuple[str, ...] | None = None  # the game ids its manifest says it plays; None: it does not say

    def check_plays(self, game_id: str) -> None:
        """Raises BadBot when the bot's manifest names the games it plays and ``game_id`` is not one."""
        if self.games is not None and game_id not in self.games:
            raise BadBot(f"bot {self.name!r} plays {', '.join(self.games)} (its manifest's 'games'), not {game_id}")

    def files(self) -> list[Path]:
        """The paths copied into the sandbox: the whole directory, or the one file."""
        if self.single_file is not None:
            return [self.directory / self.single_file]
        return [self.directory]


def sanitise_name(raw: str | None, fallback: str = "bot") -> str:
    """Protocol §4: names are [A-Za-z0-9_.-]{1,32}; other characters become '_'; none at all is ``fallback``."""
    name = NAME_CHARS.sub("_", raw or "")[:32]
    return name or fallback


def load_bot(path: str | Path) -> Bot:
    path = Path(path)
    if not path.exists():
        raise BadBot(f"bot {str(path)!r}: no such file or directory")
    path = path.resolve()
    if path.is_file():
        return _single_file_bot(path)
    if not path.is_dir():
        raise BadBot(f"bot {str(path)!r}: neither a directory nor a regular file")
    manifest = next((path / m for m in MANIFESTS if (path / m).is_file()), None)
    if manifest is None:
        raise BadBot(f"bot directory {str(path)!r}: no bot.toml or bot.json")
    try:
        raw = manifest.read_bytes()
    except OSError as error:
        raise BadBot(f"{manifest}: cannot read: {error.strerror}") from None
    run, build, games = manifest_fields(str(manifest), raw, lambda name: (path / name).is_file())
    return Bot(name=sanitise_name(path.name), directory=path, run=run, build=build, games=games)


def check_bot_files(files: dict[str, bytes]) -> tuple[str, ...] | None:
    """What ``load_bot`` checks, on a bot's files held in memory (an upload, by relative name):
    nothing on disk is looked at, so no name in the manifest can ask about a file of the host. The games
    the manifest says the bot plays (None: it does not say)."""
    manifest = next((name for name in MANIFESTS if name in files), None)
    if manifest is None:
        raise BadBot("no bot.toml or bot.json at the top level")
    return manifest_fields(manifest, files[manifest], lambda name: posixpath.normpath(name) in files)[2]


def manifest_fields(label: str, raw: bytes, has_file: Callable[[str], bool]) -> tuple[str, str | None,
                                                                                      tuple[str, ...] | None]:
    """``run``, ``build`` and ``games`` of a manifest's bytes; ``label`` (its path, or its name in an upload)
    names it in errors. ``has_file`` says whether the bot holds a regular file: it is only ever asked
    about relative names without ``..``, as the commands may name nothing else."""
    fields = _read_manifest(label, raw)
    run = _command(label, fields, "run", required=True)
    build = _command(label, fields, "build", required=False)
    if build is None:  # a built bot's entry point may not exist yet
        _check_entry_point(label, run, has_file)
    return run, build, _games(label, fields)


def _games(label: str, fields: dict) -> tuple[str, ...] | None:
    games = fields.get("games")
    if games is None:
        return None
    if not isinstance(games, list) or not games or not all(isinstance(g, str) for g in games):
        raise BadBot(f"{label}: 'games' must be a non-empty list of game ids ({', '.join(GAME_IDS)})")
    unknown = [g for g in games if g not in GAME_IDS]
    if unknown:
        raise BadBot(f"{label}: 'games' names unknown game id(s) {', '.join(map(repr, unknown[:5]))}; "
                     f"the game ids are {', '.join(GAME_IDS)}")
    return tuple(dict.fromkeys(games))


def _single_file_bot(path: Path) -> Bot:
    if path.suffix != ".py":
        raise BadBot(f"bot file {str(path)!r}: a single-file bot must be a Python file (.py)")
    if NAME_CHARS.search(path.name):
        raise BadBot(f"bot file {str(path)!r}: file name must use only [A-Za-z0-9_.-]")
    return Bot(
        name=sanitise_name(path.stem),
        directory=path.parent,
        run=f"python3 {path.name}",
        build=None,
        single_file=path.name,
    )


def _read_manifest(label: str, raw: bytes) -> dict:
    if len(raw) > MAX_MANIFEST:
        raise BadBot(f"{label}: a manifest may have at most {MAX_MANIFEST} bytes")
    try:
        text = raw.decode("utf-8")
        fields = tomllib.loads(text) if label.endswith(".toml") else json.loads(text)
    # RecursionError: arrays nested thousands deep
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise BadBot(f"{label}: cannot parse: {error}") from None
    if not isinstance(fields, dict):
        raise BadBot(f"{label}: must be a table/object with 'run' (and optionally 'build')")
    unknown = sorted(set(fields) - {"run", "build", "games", "name", "author", "version", "description"})
    if unknown:
        raise BadBot(f"{label}: unknown key(s) {', '.join(unknown)}; expected run, build, games")
    return fields


def _command(label: str, fields: dict, key: str, required: bool) -> str | None:
    value = fields.get(key)
    if value is None:
        if required:
            raise BadBot(f"{label}: missing '{key}' (the command line that starts the bot)")
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadBot(f"{label}: '{key}' must be a non-empty string")
    if len(value) > MAX_COMMAND or "\n" in value or "\0" in value:
        raise BadBot(f"{label}: '{key}' must be one line of at most {MAX_COMMAND} characters")
    try:
        words = _shell_words(value)
    except ValueError as error:
        raise BadBot(f"{label}: '{key}' is not a valid command line: {error}") from None
    for word in words:
        for piece in PATH_PIECES.split(word):  # --file=x, a:b
            if piece.startswith(("/", "~")):
                raise BadBot(f"{label}: '{key}' names {piece!r}, an absolute path: a bot names only its own "
                             "files, relative to its directory")
            if ".." in piece.split("/"):
                raise BadBot(f"{label}: '{key}' names {piece!r}, which climbs out of the bot's directory ('..')")
    return value.strip()


def _shell_words(command: str) -> list[str]:
    """The words /bin/sh would see, with its operators apart (``2>/dev/null`` gives ``/dev/null``)
    and ``#`` not hiding the rest."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split, lexer.commenters = True, ""
    return list(lexer)


def _check_entry_point(label: str, run: str, has_file: Callable[[str], bool]) -> None:
    """When ``run`` names a file of the bot (``python3 main.py``, ``./engine``), it must exist.

    A file produced by ``build`` cannot be checked yet, so only interpreter
    scripts and relative paths are checked when there is no build step.
    """
    words = shlex.split(run)
    program = words[0]
    if program.startswith("./") and not has_file(program):
        raise BadBot(f"{label}: run names {program!r}, which is not in the bot's directory")
    if Path(program).name.startswith("python") and len(words) > 1 and not words[1].startswith("-"):
        if not has_file(words[1]):
            raise BadBot(f"{label}: run names {words[1]!r}, which is not in the bot's directory")
