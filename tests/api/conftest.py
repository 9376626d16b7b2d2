"""Fixtures for the REST API tests: players with tokens, ready versions, finished matches with games."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

RANDOM_BOT = (Path(__file__).resolve().parents[1] / "bots" / "random_bot.py").read_bytes()  # shared test bot


# Every scope of api.throttles, far above what a test does (a throttle's own tests set theirs lower).
GENEROUS = {"uploads": "1000/hour", "writes": "10000/hour", "registration": "1000/hour", "login": "1000/hour",
            "token": "1000/hour", "tournaments": "1000/hour", "challenges": "1000/hour", "sprt": "1000/hour",
            "live": "10000/hour", "exports": "10000/hour"}


def throttle_rates(settings, **rates: str) -> None:
    """Throttle rates for one test, over the current ones (the THROTTLE_* settings)."""
    current = settings.REST_FRAMEWORK
    settings.REST_FRAMEWORK = {**current, "DEFAULT_THROTTLE_RATES": {**current["DEFAULT_THROTTLE_RATES"], **rates}}


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


def make_bot(owner, name: str, game: str = "tafl9", is_public: bool = True, open_to_tournaments: bool = True):
    """A bot whose owner agrees to others' tournaments unless asked otherwise (the consent tests do)."""
    from tournaments.services import create_bot

    return create_bot(owner, game, name, is_public=is_public, open_to_tournaments=open_to_tournaments)


def ready_version(bot):
    """A stored version marked ready directly (the smoke test is the workers' business, not the API's)."""
    from tournaments.models import BotVersion
    from tournaments.services import upload_version

    version = upload_version(bot, bot_upload())
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    version.refresh_from_db()
    return version


def finished_match(version_a, version_b, *, games: int = 2, rated: bool = True):
    """A finished match with real, replayable tafl9 records (two plies each)."""
    from django.utils import timezone

    from engines import get_game
    from engines.record import record_of_play
    from tournaments.models import Game, Match

    match = Match.objects.create(game="tafl9", version_a=version_a, version_b=version_b, rated=rated,
                                 time_control="move:1000", games_per_match=games, ruleset="tafl9",
                                 status=Match.Status.FINISHED, score_a=1, score_b=1, finished_at=timezone.now(),
                                 worker_id="worker-1", heartbeat_at=timezone.now())
    initial = get_game("tafl9").initial()
    first = initial.legal_moves()[0]
    second = initial.play(first).legal_moves()[0]
    for number in range(1, games + 1):
        white, black = (version_a, version_b) if number % 2 else (version_b, version_a)
        record = record_of_play(initial, [first, second], white=str(white), black=str(black))
        record.update(winner="white" if number % 2 else "black", reason="resign")
        Game.objects.create(match=match, number=number, white=white, black=black, record=record,
                            winner=record["winner"], reason="resign", plies=2, duration=1.5)
    return match


@pytest.fixture
def versions(player, other_player):
    """Ada's public bot and Grace's public bot, one ready tafl9 version each."""
    return ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta"))
