"""Matches played for real through the sandbox: bot failures are scored, void and infrastructure
failures are requeued and never scored."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ratings.models import RatingChange
from tournaments.models import Game
from tournaments.referee import InfrastructureError
from tournaments.services import create_match, play_match_now

from .conftest import ready_version

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_a_crashing_bot_loses_and_the_loss_is_rated(make_bot, other_player):
    good = ready_version(make_bot("good"))
    bad = ready_version(make_bot("bad", owner=other_player), "illegal_bot.py")  # rated: two owners
    match = play_match_now(create_match(good, bad, games=2, time_control="move:2000").pk)
    assert (match.status, match.score_a, match.score_b) == ("finished", 2.0, 0.0)
    assert set(Game.objects.values_list("reason", flat=True)) == {"illegal-move"}
    assert RatingChange.objects.count() == 4


def test_both_bots_failing_before_move_one_is_void_and_requeued(make_bot):
    one = ready_version(make_bot("one"), "crash_bot.py")
    two = ready_version(make_bot("two"), "crash_bot.py")
    match = play_match_now(create_match(one, two, games=1).pk)
    assert match.status == "queued" and "void" in match.failure_reason
    assert Game.objects.count() == 0 and RatingChange.objects.count() == 0


def test_sandbox_failure_is_requeued_not_scored(pair, monkeypatch):
    from engines import sandbox

    def broken(trusted=False):
        raise sandbox.SandboxError("bubblewrap: cannot create namespace")

    monkeypatch.setattr(sandbox, "open_sandbox", broken)
    match = create_match(*pair)
    with pytest.raises(InfrastructureError, match="cannot create namespace"):
        play_match_now(match.pk)
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("queued", 1)
    assert "sandbox unavailable" in match.failure_reason
    assert Game.objects.count() == 0


def run_settings(**env) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ALLOWED_HOSTS", "DEBUG")}
    environment.update(env)
    return subprocess.run([sys.executable, "-c", "import config.settings"], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=60)


def test_settings_refuse_production_without_secret_or_hosts():
    assert "SECRET_KEY must be set" in run_settings(DEBUG="0").stderr
    assert "ALLOWED_HOSTS" in run_settings(DEBUG="0", SECRET_KEY="s3cret").stderr
    assert run_settings(DEBUG="0", SECRET_KEY="s3cret", ALLOWED_HOSTS="arena.example").returncode == 0
    assert "DEBUG must be a boolean" in run_settings(DEBUG="maybe").stderr


def test_settings_defaults_need_no_server():
    code = ("import config.settings as s; print(s.DATABASES['default']['ENGINE']); print(s.CELERY_BROKER_URL); "
            "print(s.MEDIA_ROOT)")
    environment = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True,
                         timeout=60).stdout.split()
    assert out[0] == "django.db.backends.sqlite3" and out[1] == "filesystem://"
    assert out[2].endswith("var/media")
