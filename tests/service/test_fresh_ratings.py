"""Issue 17, item 5: a finished rated match changes the fitted leaderboard within seconds. After its transaction
commits, a refit of its game id is sent to the housekeeping queue with a short countdown; matches finishing
meanwhile share it; an unrated match sends none. Beat's refit stays as the safety net."""

from __future__ import annotations

import pytest
from celery import current_app
from celery.signals import before_task_publish
from django.core.cache import cache

from ratings.models import RatingFit
from tests.support import finished_match, ready_version
from tournaments.services.ratings import refit_pending_key
from workers.tasks import refit_game

pytestmark = pytest.mark.django_db



@pytest.fixture
def sent():
    """The refits published to the broker (the real one of the settings), as (task, args, queue)."""
    cache.clear()
    published = []

    def seen(sender=None, body=None, routing_key=None, **_):
        if sender == "ratings.refit":
            published.append((sender, body[0], routing_key))

    before_task_publish.connect(seen, weak=False)
    yield published
    before_task_publish.disconnect(seen)
    cache.clear()


@pytest.fixture
def league(make_bot, rivals):
    return ready_version(make_bot("ann")), *rivals("bob", "cid", "dee")


def test_a_rated_finish_sends_one_refit_of_its_game_and_a_burst_shares_it(league, sent,
                                                                          django_capture_on_commit_callbacks):
    ann, bob, cid, dee = league
    with django_capture_on_commit_callbacks(execute=True):
        finished_match(ann, bob, ["white", "black"])
    assert sent == [("ratings.refit", ["tafl9"], "arena.control")]
    with django_capture_on_commit_callbacks(execute=True):
        finished_match(cid, dee, ["none"])  # finished while the first refit waits: it reads this one too
    assert len(sent) == 1
    cache.delete(refit_pending_key("tafl9"))  # that refit's countdown is over: the next finish needs its own
    with django_capture_on_commit_callbacks(execute=True):
        finished_match(bob, cid, ["white"])
    assert len(sent) == 2


def test_an_unrated_finish_sends_no_refit(league, sent, django_capture_on_commit_callbacks):
    ann, bob, _, _ = league
    with django_capture_on_commit_callbacks(execute=True):
        finished_match(ann, bob, ["white", "black"], rated=False)
    assert sent == []


def test_nothing_is_sent_before_the_commit(league, sent, django_capture_on_commit_callbacks):
    ann, bob, _, _ = league
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        finished_match(ann, bob, ["white"])
    assert sent == []  # the match stored first, the refit asked for after (the reaction to MatchFinished)
    for callback in callbacks:  # the commit
        callback()
    assert sent == [("ratings.refit", ["tafl9"], "arena.control")]


def test_the_refit_that_runs_includes_the_match(league, settings, django_capture_on_commit_callbacks):
    """Eager mode: the refit runs as it is sent, after the commit, and the stored fit has the match's games."""
    ann, bob, cid, _ = league
    cache.clear()
    current_app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True):
            finished_match(ann, bob, ["white", "black", "white"])
        assert RatingFit.objects.get(game="tafl9").games == 3
        cache.clear()
        with django_capture_on_commit_callbacks(execute=True):
            finished_match(bob, cid, ["none"])
        assert RatingFit.objects.get(game="tafl9").games == 4
    finally:
        current_app.conf.task_always_eager = False
        cache.clear()


@pytest.mark.parametrize("message", [((), {}), (("chess",), {}), ((7,), {}), (("tafl9", "extra"), {}),
                                     (("tafl9",), {"forged": 1})])
def test_a_malformed_refit_message_changes_nothing(message, caplog):
    args, kwargs = message
    assert refit_game(*args, **kwargs) == 0
    assert "rejected task message" in caplog.text and not RatingFit.objects.exists()
