"""Fixtures for the REST API tests: players with tokens and their clients (bots, versions, matches: tests.support)."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

# Moved to tests.support; still importable from here while other branches' tests name this module.
from tests.support import GENEROUS, RANDOM_BOT, finished_match, make_bot, ready_version, throttle_rates  # noqa: F401


@pytest.fixture(autouse=True)
def _no_throttling_leftovers(settings):
    """Throttle counters live in the cache: start every test from zero, with generous rates."""
    throttle_rates(settings, **GENEROUS)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast, tests only
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def admin_user(db):
    from tournaments.services import create_player

    return create_player(username="root", password="operator-pass-1", is_superuser=True)


def client_for(user=None) -> APIClient:
    """An API client authenticated with the user's token (anonymous when ``user`` is None)."""
    from tournaments.services import api_token

    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {api_token(user)}")
    return client


@pytest.fixture
def anon():
    return client_for(None)


@pytest.fixture
def ada(player):
    return client_for(player)


@pytest.fixture
def grace(other_player):
    return client_for(other_player)


@pytest.fixture
def root(admin_user):
    return client_for(admin_user)


def bot_upload(name: str = "bot.py", content: bytes = RANDOM_BOT) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content, content_type="application/octet-stream")


@pytest.fixture
def versions(player, other_player):
    """Ada's public bot and Grace's public bot, one ready tafl9 version each."""
    return ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta"))
