"""Who pays: infrastructure failures requeue the match unscored; only the current lease may report."""

from __future__ import annotations

import uuid

import pytest
from billiard.exceptions import SoftTimeLimitExceeded

from play import claimed
from play.lease import LeaseLost
from tests.support import lease_runs_out, make_bot, ready_version
from tournaments.models import Game, Match
from tournaments.referee import InfrastructureError
from tournaments.services import matches as match_services
from workers import playing

pytestmark = pytest.mark.django_db

RECORD = {"winner": "white", "reason": "resign", "plies": 3}


@pytest.fixture
def match(player, other_player):
    versions = [ready_version(make_bot(owner, f"payer{number}")) for number, owner in enumerate((player, other_player))]
    return match_services.create_match(*versions, time_control="move:100", games=2)


@pytest.fixture
def sent(monkeypatch):
    calls = []
    monkeypatch.setattr("workers.dispatching.send_match", calls.append)
    return calls


@pytest.mark.parametrize("failure", [InfrastructureError("sandbox unavailable: no bwrap"),
                                     SoftTimeLimitExceeded(), RuntimeError("runner bug")])
@pytest.mark.slow
def test_infrastructure_failures_requeue_unscored_and_resend(match, sent, monkeypatch, failure,
                                                            django_capture_on_commit_callbacks):
    def broken(plan, beat):
        raise failure

    monkeypatch.setattr(claimed, "play_games", broken)
    with django_capture_on_commit_callbacks(execute=True):  # the wake-up follows the requeue's commit
        assert playing.play_next("w:1") == playing.REQUEUED
    match.refresh_from_db()
    assert (match.status, match.attempts, match.lease_token) == ("queued", 1, None)
    assert match.failure_reason
    assert Game.objects.count() == 0
    assert sent == [match.pk]


def test_bot_failures_in_the_records_are_scored(match, sent, monkeypatch):
    records = [{"winner": "black", "reason": "timeout", "plies": 7}, {"winner": "white", "reason": "crash"}]
    monkeypatch.setattr(claimed, "play_games", lambda plan, beat: records)
    assert playing.play_next("w:1") == playing.FINISHED
    match.refresh_from_db()
    assert match.status == "finished" and (match.score_a, match.score_b) == (0.0, 2.0)
    assert list(Game.objects.values_list("reason", flat=True)) == ["timeout", "crash"]


def test_a_lost_lease_reports_nothing(match, sent, monkeypatch):
    def lose(plan, beat):  # the scavenger requeued it while this worker was playing
        lease_runs_out(plan.match_id)
        assert match_services.requeue_expired_matches() == [plan.match_id]
        raise LeaseLost("gone")

    monkeypatch.setattr(claimed, "play_games", lose)
    assert playing.play_next("w:1") == playing.LEASE_LOST
    assert Game.objects.count() == 0


def test_a_second_delivery_and_an_unknown_id_do_nothing(match, sent, monkeypatch, caplog):
    caplog.set_level("INFO", logger="workers.playing")
    monkeypatch.setattr(claimed, "play_games", lambda plan, beat: [RECORD, RECORD])
    assert playing.play_hinted(match.pk, "w:1") == playing.FINISHED
    assert playing.play_hinted(match.pk, "w:2") == playing.NOT_QUEUED
    assert f"match {match.pk} is finished, not queued" in caplog.text
    assert playing.play_next("w:2") == playing.NOTHING
    assert "nothing queued: a surplus wake-up, nothing done" in caplog.text
    assert playing.play_hinted(10**9, "w:2") == playing.UNKNOWN
    assert "match 1000000000: unknown match id" in caplog.text
    assert Game.objects.count() == 2
    assert Match.objects.get(pk=match.pk).attempts == 1


def test_a_report_with_a_stale_token_changes_nothing(match, sent):
    token = match_services.claim_match(match.pk, "w:1")
    assert claimed.report(match.pk, uuid.uuid4(), [RECORD, RECORD]) == playing.REFUSED
    assert Game.objects.count() == 0
    assert claimed.report(match.pk, token, [RECORD, RECORD]) == playing.FINISHED
    assert claimed.report(match.pk, token, [RECORD, RECORD]) == playing.REFUSED  # a duplicate report
    assert Game.objects.count() == 2


def test_a_void_game_requeues_the_match_unscored(match, sent, django_capture_on_commit_callbacks):
    token = match_services.claim_match(match.pk, "w:1")
    void = {"winner": "none", "reason": "void"}
    with django_capture_on_commit_callbacks(execute=True):
        assert claimed.report(match.pk, token, [void, RECORD]) == playing.REQUEUED
    assert Match.objects.get(pk=match.pk).status == "queued"
    assert Game.objects.count() == 0 and sent == [match.pk]


@pytest.fixture
def three_matches(match):
    """``match`` and two more of the same pairing, all queued."""
    more = [match_services.create_match(match.version_a, match.version_b, time_control="move:100", games=2)
            for _ in range(2)]
    return [match, *more]


def test_a_worker_that_finds_work_claims_the_next_without_going_back_to_the_broker(three_matches, sent,
                                                                                  monkeypatch):
    from workers.tasks import play_next

    monkeypatch.setattr(claimed, "play_games", lambda plan, beat: [RECORD, RECORD])
    play_next.apply()  # one wake-up (no time limits here: it may claim for CLAIM_AGAIN_SECONDS)
    assert set(Match.objects.values_list("status", "attempts", "worker_id")) == {("finished", 1, play_next_worker())}
    assert playing.play_next("w:2") == playing.NOTHING  # the other wake-ups find nothing


def play_next_worker() -> str:
    import os
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


def test_claiming_again_is_bounded_by_the_wakeups_time_limits_and_stops_after_a_requeue(three_matches, sent,
                                                                                      monkeypatch, settings):
    from play.limits import claim_again_seconds, match_time_limits_cap, wakeup_time_limits

    settings.ARENA = {**settings.ARENA, "CLAIM_AGAIN_SECONDS": 300}
    assert claim_again_seconds(wakeup_time_limits().hard, wakeup_time_limits().soft) == 300
    assert claim_again_seconds(None, None) == 300
    cap = match_time_limits_cap()  # a wake-up sent by an older version: room for one match only
    assert claim_again_seconds(cap.hard, cap.soft) == 0
    monkeypatch.setattr(claimed, "play_games", lambda plan, beat: [RECORD, RECORD])
    assert playing.play_while_work("w:1", 0) == playing.FINISHED
    assert Match.objects.filter(status="queued").count() == 2

    def broken(plan, beat):
        raise InfrastructureError("sandbox unavailable")

    monkeypatch.setattr(claimed, "play_games", broken)  # a broken worker goes back to the broker
    assert playing.play_while_work("w:1", 300) == playing.REQUEUED
    assert sorted(Match.objects.values_list("status", "attempts")) == [("finished", 1), ("queued", 0),
                                                                     ("queued", 1)]
