"""A worker asked to stop (``runner.stopping``, set by its stop signal) stops the game it plays at the runner's next
wait: the match goes back to the queue, the attempt not counted, the bots' folders removed; a smoke test is given
back for the next worker at once. In process, through the worker's own calls (the signal's way there is
tests/workers/test_clean_stop.py)."""

from __future__ import annotations

import os
import tempfile
import threading
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from runner import stopping
from tests.support import BOTS, pass_smoke_test, upload
from tournaments.models import Game
from tournaments.services import create_match, upload_version
from workers import playing

pytestmark = pytest.mark.django_db

SLOW_BOT = (BOTS / "random_bot.py").read_text().replace(
    'print("move", random.choice(legal), flush=True)',
    '__import__("time").sleep(0.3)\n        print("move", random.choice(legal), flush=True)')


@pytest.fixture(autouse=True)
def _not_stopping(monkeypatch):
    """The stop request is the process's: none before a test, none left after it."""
    stopping.requested.clear()
    monkeypatch.setattr("workers.dispatching.send_match", lambda match_id: sent.append(("match", match_id)))
    monkeypatch.setattr("workers.dispatching.send_smoke_test", lambda: sent.append(("smoke", None)))
    sent.clear()
    yield
    stopping.requested.clear()


sent: list[tuple[str, int | None]] = []  # the wake-ups the worker sent, kept here: Celery stays out


def our_bot_folders() -> list[Path]:
    """This process's bot folders (``runner.sandbox.owned_tempdir``); other processes may be playing too."""
    return list((Path(tempfile.gettempdir()) / "tabula-bots").glob(f"{os.getpid()}-*"))


def slow_version(bot):
    assert "sleep(0.3)" in SLOW_BOT
    version = upload_version(bot, SimpleUploadedFile(f"{bot.name}.py", SLOW_BOT.encode()))
    return pass_smoke_test(version)


def test_a_stop_mid_game_requeues_the_match_uncounted_and_removes_the_bot_folders(
        make_bot, other_player, django_capture_on_commit_callbacks):
    one, two = slow_version(make_bot("one")), slow_version(make_bot("two", owner=other_player))
    match = create_match(one, two, games=4, time_control="move:2000")
    seen = []

    def stop_once_playing():  # what the stop signal's handler does, once both bots are at work
        deadline = time.monotonic() + 60
        while len(our_bot_folders()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1)
        seen.append(len(our_bot_folders()))
        stopping.requested.set()

    sent.clear()  # the match's first wake-up, sent when it was queued
    threading.Thread(target=stop_once_playing, daemon=True).start()
    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):  # the requeue's wake-up is its event's, after commit
        assert playing.play_next("stopping-worker") == playing.REQUEUED
    assert time.monotonic() - started < 20  # four games of ~40 plies at 0.3 s would take minutes
    match.refresh_from_db()
    assert seen == [2]
    assert (match.status, match.attempts, match.worker_id) == ("queued", 0, "")
    assert "worker stopped" in match.failure_reason
    assert Game.objects.count() == 0 and our_bot_folders() == []
    assert sent == [("match", match.pk)]  # a wake-up for another worker, now


def test_a_stopping_worker_gives_a_smoke_test_back(make_bot):
    version = upload(make_bot("judged-later"))
    stopping.requested.set()
    assert playing.smoke_next("stopping-worker") == "pending"
    version.refresh_from_db()
    assert (version.status, version.smoke_started_at) == ("pending", None)  # the next worker may take it now
    assert sent == [("smoke", None)] and our_bot_folders() == []


def test_a_match_claimed_after_the_stop_goes_straight_back(make_bot, other_player):
    one, two = slow_version(make_bot("one")), slow_version(make_bot("two", owner=other_player))
    match = create_match(one, two, games=1, time_control="move:2000")
    stopping.requested.set()
    assert playing.play_next("stopping-worker") == playing.REQUEUED
    match.refresh_from_db()
    assert (match.status, match.attempts) == ("queued", 0) and our_bot_folders() == []
