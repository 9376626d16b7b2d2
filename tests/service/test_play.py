"""Matches played for real through the sandbox: bot failures are scored, void and infrastructure
failures are requeued and never scored."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ratings.models import RatingChange
from tournaments.models import BotVersion, Game, Match
from tournaments.referee import InfrastructureError
from tournaments.services import create_match, play_match_now, upload_version

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


# the shared random bot, but at quit it writes 256 MiB without a newline, ignoring SIGTERM
QUIT_FLOOD_BOT = (ROOT / "tests" / "bots" / "random_bot.py").read_text().replace(
    '    elif words[0] == "quit":\n        break',
    '    elif words[0] == "quit":\n'
    '        import signal\n'
    '        signal.signal(signal.SIGTERM, signal.SIG_IGN)\n'
    '        for _ in range(256):\n'
    '            sys.stdout.write("x" * (1 << 20))\n'
    '            sys.stdout.flush()\n'
    '        break')


def test_a_bot_writing_after_quit_is_scored_and_never_held_in_memory(make_bot, pair, other_player):
    assert "SIG_IGN" in QUIT_FLOOD_BOT
    flood = upload_version(make_bot("flood", owner=other_player),  # rated against ada's bot: another owner
                           SimpleUploadedFile("flood.py", QUIT_FLOOD_BOT.encode()))
    BotVersion.objects.filter(pk=flood.pk).update(status=BotVersion.Status.READY)
    flood.refresh_from_db()
    other = create_match(*pair)  # queued: must stay as it is
    tracemalloc.start()
    try:
        match = play_match_now(create_match(flood, pair[0], games=2, time_control="move:2000").pk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert match.status == "finished" and match.score_a + match.score_b == 2.0, match.failure_reason
    assert peak < 16 << 20, f"the worker held {peak >> 20} MiB at its peak"
    assert Game.objects.filter(match=match).count() == 2 and RatingChange.objects.count() == 4
    assert Match.objects.get(pk=other.pk).status == "queued"
    assert set(BotVersion.objects.values_list("status", flat=True)) == {"ready"}


def test_sandbox_failure_is_requeued_not_scored(pair, monkeypatch):
    from runner import sandbox

    def broken(trusted=False, builds=None):
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
