"""The match rules every caller shares (``tournaments.services.match_rules``): one window for a worker to count as
alive, one way back to the queue, one way to cancel."""

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from api.services import requeue_by_operator
from ops.dashboard import workers_seen
from tests.support import record, report
from tournaments.models import Match
from tournaments.services import cancel_match, claim_match, create_match, fail_match, requeue_match
from tournaments.services.match_rules import WORKER_ALIVE, alive_worker_ids, beating_workers
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


def test_a_worker_between_two_matches_is_alive_by_the_match_it_just_finished(pair):
    """A worker claiming match after match notes itself only at its wake-up: the match it finished a moment ago
    keeps it alive; one it finished before the window does not."""
    a, b = pair
    report(create_match(a, b), [record("white"), record("black")], worker="busy")
    now = timezone.now()
    assert alive_worker_ids(now) == {"busy"} and [row["worker_id"] for row in workers_seen(now)] == ["busy"]
    later = now + WORKER_ALIVE + timedelta(seconds=1)
    assert alive_worker_ids(later) == set()


def test_the_workers_alive_are_read_without_walking_the_whole_match_table(pair):
    """On PostgreSQL (tests/service runs there in CI): the ladder reads the workers alive at every fill, the dashboard
    at every view; the matches they beat on are found by indexes, not by a scan of every match ever played."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's plan")
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a test's few rows would be read whole anyway
    plan = beating_workers().values_list("worker_id", flat=True).order_by().distinct().explain()
    # The heap is reached through the status and finished-at indexes (a condition on them), never walked whole
    assert "Index Cond" in plan and "finished_at >=" in plan and "Seq Scan" not in plan, plan
