"""Which work a free worker takes is the database's decision: a pending smoke test, then the matches of
the account whose turn it is (tests/workers/test_fair_share.py), by priority and age. Bad messages (an
argument where none is taken, a forged priority, a match that is not queued) change nothing and say why.
On SQLite here; on PostgreSQL by the first test."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from play import claimed
from play.lease import deadline
from play.limits import TimeLimits
from tests.postgresql import rerun_on_postgresql
from tests.support import make_bot, played_lately, ready_version, upload
from tournaments.models import BotVersion, Match, Worker
from tournaments.services import cancel_match, claim_next_match, claim_smoke_test, create_match, requeue_match
from tournaments.services.uploads import SMOKE_LEASE_SECONDS
from workers import playing, tasks

LADDER, REQUESTED = Match.Priority.LADDER, Match.Priority.REQUESTED


@pytest.mark.skipif(connection.vendor == "postgresql", reason="already on PostgreSQL: the tests run here")
@pytest.mark.slow
def test_this_module_on_postgresql():
    rerun_on_postgresql(__file__, "the claim tests", "arena_queue")


@pytest.fixture
def versions(db, player, other_player):
    return [ready_version(make_bot(owner, f"queued{number}")) for number, owner in enumerate((player, other_player))]


def queue(versions, priority, count=1) -> list[int]:
    return [create_match(*versions, time_control="move:100", games=2, priority=priority).pk for _ in range(count)]


def claims(worker="w:1") -> list[int]:
    taken = []
    while (claimed := claim_next_match(worker)) is not None:
        taken.append(claimed[0])
    return taken


def ladder_had_the_workers(versions, seconds=600) -> None:
    """A ladder match played lately: the ladder is over its share until others have used as much."""
    played_lately(queue(versions, LADDER), seconds, ago=1)


def test_each_account_goes_oldest_first_and_the_ladder_over_its_share_waits(versions):
    ladder_had_the_workers(versions)
    ladder = queue(versions, LADDER, 3)
    requested = queue(versions, REQUESTED, 2)  # newer, but a player's, who used no worker time lately
    more_ladder = queue(versions, LADDER, 1)
    assert claims() == requested + ladder + more_ladder
    assert set(Match.objects.exclude(status="finished").values_list("status", flat=True)) == {"running"}


def test_a_worker_that_cannot_keep_its_bots_apart_takes_unrated_matches_only(versions):
    rated = queue(versions, LADDER, 2)  # two owners' bots on the ladder: rated
    challenge = create_match(*versions, time_control="move:100", games=2, rated=False).pk
    assert claim_next_match("w:bare", rated=False)[0] == challenge
    assert claim_next_match("w:bare", rated=False) is None
    assert claims() == rated


def test_which_workers_play_rated_matches(db, settings):
    bare = "no per-bot cgroup control of cpu, freezer (v1 memory, v1 pids)"
    settings.ARENA = {**settings.ARENA, "SANDBOX_TRUSTED": False, "RATED_NEEDS_ISOLATION": True}
    assert playing.plays_rated("") and not playing.plays_rated(bare)
    settings.ARENA = {**settings.ARENA, "RATED_NEEDS_ISOLATION": False}
    assert playing.plays_rated(bare)
    settings.ARENA = {**settings.ARENA, "RATED_NEEDS_ISOLATION": True, "SANDBOX_TRUSTED": True}
    assert playing.plays_rated(bare)  # the operator vouches for every bot
    settings.ARENA = {**settings.ARENA, "SANDBOX_TRUSTED": True}
    assert playing.play_next("w:9") == playing.NOTHING
    worker = Worker.objects.get(pk="w:9")  # noted as it asked for work
    assert worker.plays_rated and worker.isolation_problem.startswith("trusted mode")


def test_a_worker_that_cannot_keep_its_bots_apart_leaves_a_rated_match_queued(versions, settings, monkeypatch):
    """The task's own call: play_next asks the sandbox, notes the worker, and claims unrated work only."""
    settings.ARENA = {**settings.ARENA, "SANDBOX_TRUSTED": False, "RATED_NEEDS_ISOLATION": True}
    # This host can isolate; a host that cannot is another machine, so its probe's answer stands in for it.
    monkeypatch.setattr(playing, "isolation_problem", lambda: "no per-bot cgroup control of cpu")
    (rated,) = queue(versions, LADDER)
    assert playing.play_next("w:bare") == playing.NOTHING
    match = Match.objects.get(pk=rated)
    assert (match.status, match.attempts) == ("queued", 0)
    assert Worker.objects.get(pk="w:bare").plays_rated is False


def test_a_requeued_match_keeps_its_place(versions):
    first, second = queue(versions, REQUESTED, 2)
    match_id, token = claim_next_match("w:1")
    assert match_id == first
    assert requeue_match(first, token, reason="sandbox hiccup")
    assert claims() == [first, second]


def test_a_claim_takes_a_new_lease_and_counts_the_attempt(versions):
    (match_id,) = queue(versions, LADDER)
    claimed_id, token = claim_next_match("box:7")
    match = Match.objects.get(pk=match_id)
    assert claimed_id == match_id and match.lease_token == token and match.worker_id == "box:7"
    assert match.attempts == 1 and match.started_at is not None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only: run by test_this_module_on_postgresql")
@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_take_each_match_once(versions):
    queued = set(queue(versions, REQUESTED, 40))
    taken: list[int] = []

    def worker(number: int) -> None:
        try:
            taken.extend(claims(f"w:{number}"))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(number,)) for number in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(taken) == sorted(queued)


def test_an_unknown_priority_is_refused_by_name(versions):
    with pytest.raises(ValidationError, match="priority"):
        create_match(*versions, priority=99)
    assert not Match.objects.exists()


def pending(bot_name, player) -> BotVersion:
    return upload(make_bot(player, bot_name))


def test_smoke_tests_are_taken_oldest_first_and_once_until_their_lease_runs_out(db, player):
    first, second = pending("fresh1", player), pending("fresh2", player)
    assert claim_smoke_test() == first.pk
    assert claim_smoke_test() == second.pk
    assert claim_smoke_test() is None  # both held by live workers
    later = timezone.now() + timedelta(seconds=SMOKE_LEASE_SECONDS + 1)
    assert claim_smoke_test(later) == first.pk  # its worker died: the next one takes it


def test_a_wake_up_takes_a_pending_smoke_test_before_any_match(versions, player, monkeypatch):
    queue(versions, REQUESTED, 2)
    fresh = pending("fresh", player)
    tested = []
    monkeypatch.setattr(playing.upload_services, "smoke_test_version",
                        lambda version_id: tested.append(version_id) or BotVersion(status="ready"))
    assert playing.play_next("w:1") == "ready"
    assert tested == [fresh.pk]
    assert not Match.objects.filter(status="running").exists()


@pytest.mark.parametrize(("args", "kwargs"), [((), {"priority": 99}), ((7,), {}), ((), {"match_id": 1})])
@pytest.mark.slow
def test_a_wake_up_with_arguments_is_refused_and_changes_nothing(versions, args, kwargs, caplog):
    queue(versions, LADDER)
    assert tasks.play_next(*args, **kwargs) is None
    assert tasks.smoke_next(*args, **kwargs) is None
    assert "rejected task message: play_next takes no arguments" in caplog.text
    assert "rejected task message: smoke_next takes no arguments" in caplog.text
    assert set(Match.objects.values_list("status", flat=True)) == {"queued"}


def test_a_message_for_a_match_not_queued_changes_nothing(versions, caplog):
    caplog.set_level("INFO", logger="workers.playing")
    first, second = queue(versions, REQUESTED, 2)
    cancel_match(first)
    assert tasks.run_match(first) == playing.NOT_QUEUED
    assert f"match {first} is cancelled, not queued: a duplicate or late delivery, nothing done" in caplog.text
    assert Match.objects.get(pk=second).status == "queued"


def test_a_message_naming_a_queued_match_does_not_jump_the_queue(versions, monkeypatch):
    ladder_had_the_workers(versions)
    older = queue(versions, REQUESTED)[0]
    ladder = queue(versions, LADDER)[0]
    played = []
    monkeypatch.setattr(claimed, "play_match", lambda match_id, token, worker: played.append(match_id) or "x")
    tasks.run_match(ladder)  # a forged or old message for the ladder match
    assert played == [older]


def test_a_smoke_test_message_for_a_judged_version_changes_nothing(versions, caplog):
    caplog.set_level("INFO", logger="workers.tasks")
    assert tasks.smoke_test(versions[0].pk) == "ready"
    assert f"smoke test: bot version {versions[0].pk} is already ready, nothing done" in caplog.text
    assert BotVersion.objects.get(pk=versions[0].pk).smoke_started_at is None


def test_a_match_over_its_own_time_limit_is_requeued_unscored(versions, monkeypatch):
    (match_id,) = queue(versions, REQUESTED)
    monkeypatch.setattr(claimed, "match_time_limits", lambda *args: TimeLimits(soft=1, hard=31))
    monkeypatch.setattr(claimed, "play_games", lambda plan, beat: time.sleep(10))
    monkeypatch.setattr("workers.dispatching.send_match", lambda match_id: True)
    started = time.monotonic()
    assert playing.play_next("w:1") == playing.REQUEUED
    assert time.monotonic() - started < 5
    match = Match.objects.get(pk=match_id)
    assert match.status == "queued" and "SoftTimeLimitExceeded" in match.failure_reason


def test_the_deadline_is_lifted_when_the_work_ends():
    with deadline(0.3):
        pass
    time.sleep(0.5)  # no alarm left behind
    with pytest.raises(SoftTimeLimitExceeded), deadline(0.2):
        time.sleep(2)
