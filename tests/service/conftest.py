"""Helpers for the service tests: bots from files, versions marked ready without a sandbox run."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

BOTS = Path(__file__).resolve().parents[1] / "bots"  # the test bots every suite shares


@pytest.fixture(autouse=True)
def _sandbox(settings):
    """The real (bubblewrap) sandbox where it exists; the bare one on machines without it."""
    settings.ARENA = {**settings.ARENA, "SANDBOX_TRUSTED": shutil.which("bwrap") is None,
                      "SMOKE_TEST_STARTUP_SECONDS": 5, "SMOKE_TEST_MOVE_SECONDS": 5}


def bot_file(name: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, (BOTS / name).read_bytes())


def upload(bot, name: str = "random_bot.py"):
    from tournaments.services import upload_version

    return upload_version(bot, bot_file(name))


def ready_version(bot, name: str = "random_bot.py"):
    """A stored version set ready directly: for tests about matches, not about smoke tests."""
    from tournaments.models import BotVersion

    version = upload(bot, name)
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    version.refresh_from_db()
    return version


@pytest.fixture
def make_bot(player):
    from tournaments.services import create_bot

    def make(name: str, game: str = "tafl9", owner=None, **options):
        return create_bot(owner or player, game, name, **options)

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


def record(winner: str, reason: str | None = None, plies: int = 10) -> dict:
    reasons = {"white": "escape", "black": "king-captured", "none": "no-capture-limit"}
    return {"game": "tafl9", "winner": winner, "reason": reason or reasons[winner], "plies": plies, "actions": []}


def play(a, b, winners, rated=True):
    """A finished match of len(winners) games through the services; version a is white in odd games."""
    from tournaments.services import claim_match, create_match, finish_match

    match = create_match(a, b, games=len(winners), rated=rated)
    token = claim_match(match.pk, "w")
    assert finish_match(match.pk, token, [record(w) for w in winners])
    return match


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
