"""Data for the page tests: players, bots with ready versions, and matches finished through the service with
records the referee played (random legal actions), so ratings, histories and results are the real thing."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

BOTS = Path(__file__).resolve().parents[1] / "bots"
KITS = Path(__file__).resolve().parents[2] / "seeds" / "bots"


@pytest.fixture(autouse=True)
def _site(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast, tests only
    settings.ARENA = {**settings.ARENA, "SANDBOX_TRUSTED": shutil.which("bwrap") is None,
                      "SMOKE_TEST_STARTUP_SECONDS": 5, "SMOKE_TEST_MOVE_SECONDS": 5}
    cache.clear()
    yield
    cache.clear()


def make_bot(owner, name: str, game: str = "tafl9", is_public: bool = True, description: str = ""):
    from tournaments.services import create_bot

    return create_bot(owner, game, name, description=description, is_public=is_public)


def ready_version(bot, name: str = "random_bot.py"):
    """A stored version set ready directly: for pages about matches, not about smoke tests."""
    from tournaments.models import BotVersion
    from tournaments.services import upload_version

    version = upload_version(bot, SimpleUploadedFile(name, (BOTS / name).read_bytes()))
    BotVersion.objects.filter(pk=version.pk).update(status=BotVersion.Status.READY)
    version.refresh_from_db()
    return version


def random_record(game_id: str, seed: int, plies: int = 12) -> dict:
    """A game the referee plays out with random legal actions (its outcome, or max-plies)."""
    from engines import get_game
    from engines.record import record_of_play

    rng = random.Random(seed)
    position = get_game(game_id).initial()
    initial, actions = position, []
    while len(actions) < plies and position.outcome() is None:
        action = rng.choice(position.legal_moves())
        actions.append(action)
        position = position.play(action)
    record = record_of_play(initial, actions, times=[rng.randrange(1, 400) for _ in actions])
    if record["winner"] == "none" and record["reason"] == "max-plies":
        record.update(winner=rng.choice(["white", "black"]), reason="resign")  # a decided game, as most are
    return record


def finish(version_a, version_b, *, games: int = 2, seed: int = 1, rated: bool = True, tournament=None):
    """A match queued, claimed and finished through the services, with random refereed records."""
    from tournaments.models import Match
    from tournaments.services import claim_match, create_match, finish_match

    match = create_match(version_a, version_b, rated=rated, games=games, tournament=tournament)
    token = claim_match(match.pk, "test-worker")
    assert finish_match(match.pk, token, [random_record(match.game, seed * 100 + n) for n in range(games)])
    return Match.objects.get(pk=match.pk)


@pytest.fixture
def league(player, other_player):
    """Ada's two public tafl9 bots and Grace's one, a private bot of Grace's, and rated matches between them."""
    alpha = ready_version(make_bot(player, "alpha", description="Plays fast."))
    beta = ready_version(make_bot(other_player, "beta"))
    gamma = ready_version(make_bot(player, "gamma"))
    secret = ready_version(make_bot(other_player, "secret", is_public=False))
    matches = [finish(alpha, beta, seed=1), finish(beta, gamma, seed=2), finish(alpha, gamma, seed=3),
               finish(secret, alpha, seed=4, rated=False)]
    return {"alpha": alpha, "beta": beta, "gamma": gamma, "secret": secret, "matches": matches}
