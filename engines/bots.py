"""What a bot is: a directory with a manifest, or a single Python file.

A bot directory holds ``bot.toml`` (or ``bot.json``) with ``run`` (the command
line started with no arguments, protocol §3) and an optional ``build`` (run
once, offline, inside the sandbox, before the first game)::

    run = "python3 main.py"
    build = "python3 -m compileall -q ."

A single ``something.py`` is a bot too: its run command is
``python3 something.py`` and only that file is copied into the sandbox, never
its neighbours. ``load_bot`` checks everything it can before a game starts and
raises ``BadBot`` naming the file and the problem.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .core import RefereeError

MANIFESTS = ("bot.toml", "bot.json")
NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]")
MAX_COMMAND = 1000


class BadBot(RefereeError):
    """A bot that cannot be started: bad manifest, missing entry point, failed build."""


@dataclass(frozen=True)
class Bot:
    name: str  # sanitised to [A-Za-z0-9_.-]{1,32}
    directory: Path  # the bot's files; for a single file, see ``files``
    run: str  # command line, run by /bin/sh in the bot's directory
    build: str | None = None
    single_file: str | None = None  # for a one-file bot: the only file exposed

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
    fields = _read_manifest(manifest)
    run = _command(manifest, fields, "run", required=True)
    build = _command(manifest, fields, "build", required=False)
    if build is None:  # a built bot's entry point may not exist yet
        _check_entry_point(manifest, path, run)
    return Bot(name=sanitise_name(path.name), directory=path, run=run, build=build)


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


def _read_manifest(manifest: Path) -> dict:
    try:
        raw = manifest.read_bytes()
        if manifest.suffix == ".toml":
            fields = tomllib.loads(raw.decode("utf-8"))
        else:
            fields = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise BadBot(f"{manifest}: cannot parse: {error}") from None
    except OSError as error:
        raise BadBot(f"{manifest}: cannot read: {error.strerror}") from None
    if not isinstance(fields, dict):
        raise BadBot(f"{manifest}: must be a table/object with 'run' (and optionally 'build')")
    unknown = sorted(set(fields) - {"run", "build", "name", "author", "version", "description"})
    if unknown:
        raise BadBot(f"{manifest}: unknown key(s) {', '.join(unknown)}; expected run, build")
    return fields


def _command(manifest: Path, fields: dict, key: str, required: bool) -> str | None:
    value = fields.get(key)
    if value is None:
        if required:
            raise BadBot(f"{manifest}: missing '{key}' (the command line that starts the bot)")
        return None
    if not isinstance(value, str) or not value.strip():
        raise BadBot(f"{manifest}: '{key}' must be a non-empty string")
    if len(value) > MAX_COMMAND or "\n" in value or "\0" in value:
        raise BadBot(f"{manifest}: '{key}' must be one line of at most {MAX_COMMAND} characters")
    try:
        shlex.split(value)
    except ValueError as error:
        raise BadBot(f"{manifest}: '{key}' is not a valid command line: {error}") from None
    return value.strip()


def _check_entry_point(manifest: Path, directory: Path, run: str) -> None:
    """When ``run`` names a file of the bot (``python3 main.py``, ``./engine``), it must exist.

    A file produced by ``build`` cannot be checked yet, so only interpreter
    scripts and relative paths are checked when there is no build step.
    """
    words = shlex.split(run)
    program = words[0]
    if program.startswith("./") and not (directory / program).exists():
        raise BadBot(f"{manifest}: run names {program!r}, which is not in the bot's directory")
    if Path(program).name.startswith("python") and len(words) > 1 and not words[1].startswith("-"):
        script = directory / words[1]
        if not script.is_file():
            raise BadBot(f"{manifest}: run names {words[1]!r}, which is not in the bot's directory")
