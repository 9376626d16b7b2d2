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
from tests.playing import play
from tests.support import pass_smoke_test, ready_version
from tournaments.models import BotVersion, Game, Match
from tournaments.services import create_match, upload_version
from workers import playing

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_a_crashing_bot_loses_and_the_loss_is_rated(make_bot, other_player):
    good = ready_version(make_bot("good"))
    bad = ready_version(make_bot("bad", owner=other_player), "illegal_bot.py")  # rated: two owners
    match = play(create_match(good, bad, games=2, time_control="move:2000").pk)
    assert (match.status, match.score_a, match.score_b) == ("finished", 2.0, 0.0)
    assert set(Game.objects.values_list("reason", flat=True)) == {"illegal-move"}
    assert RatingChange.objects.count() == 4


def test_both_bots_failing_before_move_one_is_void_and_requeued(make_bot, sent, django_capture_on_commit_callbacks):
    one = ready_version(make_bot("one"), "crash_bot.py")
    two = ready_version(make_bot("two"), "crash_bot.py")
    queued = create_match(one, two, games=1)
    with django_capture_on_commit_callbacks(execute=True):  # the wake-up follows the requeue's commit
        match = play(queued.pk)
    assert match.status == "queued" and "void" in match.failure_reason
    assert sent == [match.pk]  # back in the queue, with a wake-up of its own
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


@pytest.mark.slow
def test_a_bot_writing_after_quit_is_scored_and_never_held_in_memory(make_bot, pair, other_player):
    assert "SIG_IGN" in QUIT_FLOOD_BOT
    flood = upload_version(make_bot("flood", owner=other_player),  # rated against ada's bot: another owner
                           SimpleUploadedFile("flood.py", QUIT_FLOOD_BOT.encode()))
    flood = pass_smoke_test(flood)
    flooded = create_match(flood, pair[0], games=2, time_control="move:2000")
    other = create_match(*pair)  # queued after it: a worker plays one match, this one stays as it is
    tracemalloc.start()
    try:
        match = play(flooded.pk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert match.status == "finished" and match.score_a + match.score_b == 2.0, match.failure_reason
    assert peak < 16 << 20, f"the worker held {peak >> 20} MiB at its peak"
    assert Game.objects.filter(match=match).count() == 2 and RatingChange.objects.count() == 4
    assert Match.objects.get(pk=other.pk).status == "queued"
    assert set(BotVersion.objects.values_list("status", flat=True)) == {"ready"}


def test_sandbox_failure_is_requeued_not_scored(pair, monkeypatch, sent, django_capture_on_commit_callbacks):
    from runner import sandbox

    def broken(trusted=False, builds=None):
        raise sandbox.SandboxError("bubblewrap: cannot create namespace")

    monkeypatch.setattr(sandbox, "open_sandbox", broken)
    match = create_match(*pair)
    with django_capture_on_commit_callbacks(execute=True):
        assert playing.play_next("test-worker") == playing.REQUEUED  # the worker's, not the bots' failure
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("queued", 1)
    assert "sandbox unavailable" in match.failure_reason
    assert "cannot create namespace" in match.failure_reason
    assert sent == [match.pk]
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


def test_a_game_keeps_its_wall_clock_duration_and_each_sides_thinking(make_bot, other_player, anon_client):
    """``duration`` is the time the game took; the bots' thinking is kept per side beside it, never in its
    place (it used to be their sum, documented as wall-clock time)."""
    good = ready_version(make_bot("good"))
    bad = ready_version(make_bot("bad", owner=other_player), "illegal_bot.py")
    match = play(create_match(good, bad, games=1, time_control="move:2000").pk)
    game = Game.objects.get(match=match)
    times = game.record["times"]
    assert game.white_thinking == pytest.approx(sum(times[0::2]) / 1000, abs=0.01)
    assert game.black_thinking == pytest.approx(sum(times[1::2]) / 1000, abs=0.01)
    assert game.duration == game.record["duration"]
    assert game.duration > game.white_thinking + game.black_thinking  # two bots started and stopped
    body = anon_client.get(f"/api/games/{game.pk}/").json()
    assert (body["duration"], body["white_thinking"], body["black_thinking"]) == (
        game.duration, game.white_thinking, game.black_thinking)
    assert body["record"]["thinking"] == {"white": game.white_thinking, "black": game.black_thinking}
    listed = anon_client.get("/api/games/").json()["results"][0]
    assert (listed["duration"], listed["white_thinking"]) == (game.duration, game.white_thinking)


def test_a_record_without_times_leaves_them_unknown_rather_than_made_up(pair):
    from tests.support import record
    from tournaments.services import claim_match, finish_match

    match = create_match(*pair, games=2)
    token = claim_match(match.pk, "w")
    odd = {**record("white"), "duration": "long", "thinking": {"white": -1, "black": True}}
    assert finish_match(match.pk, token, [{**record("white"), "times": [100, 200]}, odd])
    assert list(Game.objects.order_by("number").values_list("duration", "white_thinking", "black_thinking")) == [
        (None, None, None), (None, None, None)]


@pytest.fixture
def sent(monkeypatch):
    """The wake-ups a worker sends for a match it put back in the queue: kept here, Celery stays out."""
    calls = []
    monkeypatch.setattr("workers.dispatching.send_match", calls.append)
    return calls


@pytest.fixture
def anon_client():
    from rest_framework.test import APIClient

    return APIClient()
