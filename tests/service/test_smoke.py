"""The smoke test runs real bot processes: handshake and one go on the initial position."""

from __future__ import annotations

import pytest

from tests.support import pass_smoke_test, upload
from tournaments.services import smoke_test_version, upload_version

from .conftest import zip_bytes

pytestmark = pytest.mark.django_db


def test_a_working_bot_is_ready(make_bot):
    version = smoke_test_version(upload(make_bot("alpha")).pk)
    assert (version.status, version.reject_reason) == ("ready", "")
    assert version.checked_at is not None


def test_reference_bot_archive_is_ready(make_bot):
    from pathlib import Path

    from django.core.files.uploadedfile import SimpleUploadedFile

    source = Path(__file__).resolve().parents[2] / "seeds" / "bots" / "tafl9-random"
    archive = zip_bytes([(p.name, p.read_bytes()) for p in source.iterdir() if p.is_file()])
    version = upload_version(make_bot("ref"), SimpleUploadedFile("ref.zip", archive))
    assert smoke_test_version(version.pk).status == "ready"


@pytest.mark.parametrize("name, reason", [
    ("silent_bot.py", "init-failed: no bgtp reply in time"),
    ("crash_bot.py", "init-failed: crash"),
    ("illegal_bot.py", "illegal-move: Z9-Z10"),
])
@pytest.mark.slow
def test_a_broken_bot_is_rejected_with_the_reason(name, reason, make_bot):
    version = smoke_test_version(upload(make_bot("broken"), name).pk)
    assert version.status == "rejected"
    assert reason in version.reject_reason


def test_a_judged_version_is_left_alone(make_bot):
    version = upload(make_bot("alpha"), "crash_bot.py")
    pass_smoke_test(version)  # judged already: a run now would reject the crash bot
    assert smoke_test_version(version.pk).status == "ready"


def test_a_caller_may_vouch_for_its_bots_without_changing_the_settings(make_bot, settings):
    """``seed --trusted-sandbox`` smoke-tests the reference bots bare; the setting stays as it was."""
    settings.ARENA = {**settings.ARENA, "SANDBOX_TRUSTED": False}
    with pytest.warns(RuntimeWarning, match="TRUSTED MODE"):
        version = smoke_test_version(upload(make_bot("vouched")).pk, trusted=True)
    assert version.status == "ready"
    assert settings.ARENA["SANDBOX_TRUSTED"] is False
