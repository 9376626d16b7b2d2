"""The dispatcher and the scavenger on the database, with the broker replaced by a list of sent messages."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from play.limits import wakeup_time_limits
from tests.support import lease_runs_out, make_bot, ready_version
from tournaments.services import matches as match_services
from workers import dispatching
from workers.models import Dispatch

pytestmark = pytest.mark.django_db


@pytest.fixture
def versions(player, other_player):
    return [ready_version(make_bot(owner, f"sent{number}")) for number, owner in enumerate((player, other_player))]


@pytest.fixture
def sent(monkeypatch):
    """The soft limit of every wake-up sent; the broker queue reads as empty."""
    from workers.tasks import play_next

    messages = []
    monkeypatch.setattr(play_next, "apply_async", lambda soft_time_limit, time_limit: messages.append(soft_time_limit))
    monkeypatch.setattr(dispatching, "broker_queue_depth", lambda: 0)
    return messages


def test_queued_matches_are_sent_once_and_resent_only_when_their_message_is_lost(versions, sent, monkeypatch):
    first = match_services.create_match(*versions, time_control="move:100", games=2)
    second = match_services.create_match(*versions, time_control="move:1000", games=2)
    assert dispatching.dispatch_queued() == [first.pk, second.pk]
    assert len(sent) == 2 and set(Dispatch.objects.values_list("match_id", flat=True)) == {first.pk, second.pk}
    # A wake-up may serve any match: it carries the longest limits, and the worker keeps each match to its own.
    assert sent == [wakeup_time_limits().soft] * 2
    assert dispatching.dispatch_queued() == []  # within the grace period: nothing again
    later = timezone.now() + timedelta(hours=1)
    monkeypatch.setattr(dispatching, "broker_queue_depth", lambda: 3)
    assert dispatching.dispatch_queued(later) == []  # messages still waiting: they may be these
    monkeypatch.setattr(dispatching, "broker_queue_depth", lambda: 0)
    match_services.claim_match(first.pk, "w:1")
    assert dispatching.dispatch_queued(later) == [second.pk]  # lost; the running one is left alone
    assert Dispatch.objects.get(match_id=second.pk).sends == 2
    assert dispatching.send_match(first.pk) is False and len(sent) == 3


def test_the_scavenger_requeues_and_resends_expired_leases(versions, sent, settings,
                                                           django_capture_on_commit_callbacks):
    settings.ARENA = {**settings.ARENA, "MATCH_MAX_ATTEMPTS": 2}
    match = match_services.create_match(*versions, time_control="move:100", games=2)
    for attempt in (1, 2):
        assert match_services.claim_match(match.pk, f"w:{attempt}") is not None
        lease_runs_out(match.pk)
        with django_capture_on_commit_callbacks(execute=True):  # the re-send follows the requeue's commit
            assert dispatching.scavenge() == [match.pk]
    match.refresh_from_db()
    assert match.status == "failed" and "gave up after 2 attempts" in match.failure_reason
    assert len(sent) == 1  # re-sent after the first expiry only: a failed match is not sent
