"""Fixtures for the service tests: the sandbox they use, bots of ada and of other owners (the rest: tests.support)."""

from __future__ import annotations

import io
import shutil

import pytest

# Moved to tests.support; still importable from here while other branches' tests name this module.
from tests.support import BOTS, bot_file, ready_version, record, upload  # noqa: F401
from tests.support import finished_match as play  # noqa: F401
from tests.support import make_bot as new_bot


@pytest.fixture(autouse=True)
def _sandbox(settings):
    """The real (bubblewrap) sandbox where it exists; the bare one on machines without it."""
    settings.ARENA = {**settings.ARENA, "SANDBOX_TRUSTED": shutil.which("bwrap") is None,
                      "SMOKE_TEST_STARTUP_SECONDS": 5, "SMOKE_TEST_MOVE_SECONDS": 5}


@pytest.fixture
def make_bot(player):
    """make_bot(name, game, owner=ada): a bot closed to others' tournaments unless asked otherwise."""

    def make(name: str, game: str = "tafl9", owner=None, open_to_tournaments: bool = False, **options):
        return new_bot(owner or player, name, game, open_to_tournaments=open_to_tournaments, **options)

    return make


@pytest.fixture
def rivals(make_bot):
    """Ready tafl9 versions of bots of as many players, each open to others' tournaments (rated play needs
    bots of different owners)."""
    from tournaments.services import create_player

    def make(*names: str):
        return [ready_version(make_bot(name, owner=create_player(f"{name}-owner", None), open_to_tournaments=True))
                for name in names]

    return make


@pytest.fixture
def pair(make_bot, other_player):
    """Two ready tafl9 versions of two bots of two owners (two bots of one owner never play rated)."""
    return ready_version(make_bot("alpha")), ready_version(make_bot("beta", owner=other_player))


def zip_bytes(entries) -> bytes:
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for entry in entries:
            if isinstance(entry, zipfile.ZipInfo):
                archive.writestr(entry, b"x")
            else:
                name, data = entry
                archive.writestr(name, data)
    return buffer.getvalue()
