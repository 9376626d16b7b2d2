"""Fixtures shared by the Django test suites (service, api, workers)."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path):
    """Uploaded bot files (and live games) go to a fresh directory per test, never into var/."""
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.ARENA = {**settings.ARENA, "BOT_CACHE_DIR": tmp_path / "bots", "LIVE_DIR": tmp_path / "live"}


@pytest.fixture(autouse=True)
def _fast_password_hashes(settings):
    """As the API's and the site's suites do: a real (PBKDF2) hash costs 0.6 s of CPU, a player each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _fresh_fair_share():
    """The claim's settled sums are kept for a few seconds in the (per-process) cache: never from another test's
    database."""
    from django.core.cache import cache

    from tournaments.services.worker_time import SETTLED_KEY

    cache.delete(SETTLED_KEY)


@pytest.fixture
def player(db):
    from tournaments.services import create_player

    return create_player(username="ada", password="lovelace-1815")


@pytest.fixture
def other_player(db):
    from tournaments.services import create_player

    return create_player(username="grace", password="hopper-1906")
