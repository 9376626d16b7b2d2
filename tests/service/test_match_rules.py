"""The match rules every caller shares (``tournaments.services.match_rules``): one window for a worker to count as
alive, one way back to the queue, one way to cancel."""

from datetime import timedelta

from django.utils import timezone

from api.services import requeue_by_operator
from ops.dashboard import workers_seen
from tournaments.models import Match
from tournaments.services import cancel_match, claim_match, create_match, fail_match, requeue_match
from tournaments.services.match_rules import WORKER_ALIVE, alive_worker_ids
from tournaments.services.matches import note_worker
from workers import conf
from workers.ladder import ladder_room


def test_the_ladder_and_the_dashboard_count_the_same_workers_alive(pair):
    a, b = pair
    note_worker("asked", "", True)
    match = create_match(a, b)
    claim_match(match.pk, "beating")
    now = timezone.now()
    assert alive_worker_ids(now) == {"asked", "beating"}
    assert {row["worker_id"] for row in workers_seen(now)} == {"asked", "beating"}
    assert ladder_room(now) == 2 * conf.ladder_queued_per_worker()  # the match above is charged, not the ladder's
    later = now + WORKER_ALIVE + timedelta(seconds=1)
    assert alive_worker_ids(later) == set() and workers_seen(later) == []


def test_requeued_by_an_operator_or_a_lost_worker_through_one_rule(pair, settings):
    a, b = pair
    settings.ARENA = {**settings.ARENA, "MATCH_MAX_ATTEMPTS": 1}
    match = create_match(a, b)
    token = claim_match(match.pk, "w1")
    assert requeue_match(match.pk, token, reason="worker lost")  # its one attempt used: it fails
    match.refresh_from_db()
    assert (match.status, match.worker_id, match.lease_token) == (Match.Status.FAILED, "", None)
    requeue_by_operator(match)  # fresh attempts, no lease, no end
    match.refresh_from_db()
    assert (match.status, match.attempts, match.finished_at) == (Match.Status.QUEUED, 0, None)
    assert match.failure_reason.startswith("requeued by an operator")
    assert cancel_match(match.pk)
    requeue_by_operator(Match.objects.get(pk=match.pk))
    assert Match.objects.get(pk=match.pk).status == Match.Status.QUEUED
    assert fail_match(match.pk, "gone")
