"""The starter kits (the reference bots in ``seeds/bots/``) as ready-to-upload archives, and the bot's library
(the ``engines`` package: the referee, ``botkit``, ``fidchellkit``) as an archive to develop with at home."""

from __future__ import annotations

import io
import zipfile
from functools import cache

from django.conf import settings

KITS = settings.BASE_DIR / "seeds" / "bots"
ENGINES = settings.BASE_DIR / "engines"


@cache
def kit_names() -> tuple[str, ...]:
    return tuple(sorted(path.name for path in KITS.iterdir() if (path / "bot.toml").is_file()))


def kits_of(game_id: str) -> list[str]:
    return [name for name in kit_names() if name.rsplit("-", 1)[0] == game_id]


@cache
def kit_zip(name: str) -> bytes | None:
    """The kit's files as a zip with its bot.toml at the top, as the upload form takes it; None for no such kit."""
    if name not in kit_names():
        return None
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted((KITS / name).iterdir()):
            if path.is_file():
                archive.write(path, path.name)
    return buffer.getvalue()


@cache
def library_zip() -> bytes:
    """The ``engines`` package's sources as ``engines/...`` in a zip: unpacked beside a bot, ``import engines`` and
    ``from engines.botkit import run`` work as they do in the sandbox (standard library only, nothing to install)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(ENGINES.rglob("*.py")):
            archive.write(path, (ENGINES.name / path.relative_to(ENGINES)).as_posix())
    return buffer.getvalue()
