"""A match's lease: claim once, heartbeat, finish exactly once with the current token."""

from __future__ import annotations

import uuid

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from ratings.models import Rating, RatingChange
from tests.support import lease_runs_out, ready_version, record
from tournaments.models import Game, Match
from tournaments.services import (
    Report,
    cancel_match,
    claim_match,
    create_match,
    fail_match,
    finish_match,
    heartbeat,
    requeue_expired_matches,
    requeue_match,
)

pytestmark = pytest.mark.django_db


def test_claim_is_taken_once(pair):
    match = create_match(*pair, games=2)
    token = claim_match(match.pk, "worker-1")
    assert token is not None
    assert claim_match(match.pk, "worker-2") is None
    match.refresh_from_db()
    assert (match.status, match.worker_id, match.lease_token, match.attempts) == ("running", "worker-1", token, 1)
    assert match.lease_expires_at > timezone.now()


def test_heartbeat_only_with_the_current_lease(pair):
    match = create_match(*pair)
    token = claim_match(match.pk, "w")
    assert heartbeat(match.pk, token)
    assert not heartbeat(match.pk, uuid.uuid4())
    requeue_match(match.pk, token, reason="test")
    assert not heartbeat(match.pk, token)


def test_finish_stores_games_score_and_ratings_once(pair):
    a, b = pair
    match = create_match(a, b, games=2)
    token = claim_match(match.pk, "w")
    # Game 1: A white wins. Game 2: A black, draw.
    assert finish_match(match.pk, token, [record("white"), record("none")])
    match.refresh_from_db()
    assert (match.status, match.score_a, match.score_b) == ("finished", 1.5, 0.5)
    games = list(Game.objects.filter(match=match).order_by("number"))
    assert [(g.white_id, g.black_id, g.winner) for g in games] == [(a.pk, b.pk, "white"), (b.pk, a.pk, "none")]
    assert RatingChange.objects.count() == 4
    # A duplicate report of the same lease changes nothing.
    duplicate = finish_match(match.pk, token, [record("black"), record("black")])
    assert not duplicate
    assert duplicate is Report.REFUSED
    assert Game.objects.count() == 2 and RatingChange.objects.count() == 4
    assert Rating.objects.get(bot=a.bot).games == 2


def test_stale_lease_cannot_report(pair):
    match = create_match(*pair, games=1)
    old = claim_match(match.pk, "w1")
    requeue_match(match.pk, old, reason="worker lost")
    new = claim_match(match.pk, "w2")
    assert not finish_match(match.pk, old, [record("white")])
    assert Game.objects.count() == 0 and Rating.objects.count() == 0
    assert finish_match(match.pk, new, [record("white")])
    match.refresh_from_db()
    assert match.attempts == 2 and match.worker_id == "w2"


def test_finish_checks_the_records_and_changes_nothing(pair):
    match = create_match(*pair, games=2)
    token = claim_match(match.pk, "w")
    with pytest.raises(ValidationError, match="needs 2 game records"):
        finish_match(match.pk, token, [record("white")])
    with pytest.raises(ValidationError, match="winner"):
        finish_match(match.pk, token, [record("white"), {"winner": "red", "reason": "x"}])
    # A word that is no termination of protocol §6 never reaches the games' reason column.
    with pytest.raises(ValidationError, match="unknown reason 'timed-out'"):
        finish_match(match.pk, token, [record("white"), record("black", "timed-out")])
    match.refresh_from_db()
    assert match.status == "running" and Game.objects.count() == 0


def test_void_game_requeues_and_scores_nothing(pair):
    match = create_match(*pair, games=2)
    token = claim_match(match.pk, "w")
    void = finish_match(match.pk, token, [record("none", "void", 0), record("white")])
    assert not void
    assert void is Report.REQUEUED
    match.refresh_from_db()
    assert match.status == "queued" and match.lease_token is None and "void" in match.failure_reason
    assert Game.objects.count() == 0 and RatingChange.objects.count() == 0


def test_requeue_gives_up_after_max_attempts(pair, settings):
    settings.ARENA = {**settings.ARENA, "MATCH_MAX_ATTEMPTS": 2}
    match = create_match(*pair)
    for _ in range(2):
        token = claim_match(match.pk, "w")
        assert requeue_match(match.pk, token, reason="sandbox down")
    match.refresh_from_db()
    assert match.status == "failed" and "sandbox down" in match.failure_reason


def test_expired_leases_are_requeued(pair):
    live = create_match(*pair)
    dead = create_match(*pair)
    claim_match(live.pk, "alive")
    claim_match(dead.pk, "dead")
    lease_runs_out(dead.pk)
    assert requeue_expired_matches() == [dead.pk]
    assert Match.objects.get(pk=dead.pk).status == "queued"
    assert Match.objects.get(pk=live.pk).status == "running"


def test_fail_and_cancel(pair):
    queued = create_match(*pair)
    assert cancel_match(queued.pk)
    assert not cancel_match(queued.pk)
    running = create_match(*pair)
    token = claim_match(running.pk, "w")
    assert not cancel_match(running.pk)
    assert not fail_match(running.pk, "bad", lease_token=uuid.uuid4())
    assert fail_match(running.pk, "version file missing", lease_token=token)
    running.refresh_from_db()
    assert running.status == "failed" and not finish_match(running.pk, token, [record("white")] * 2)


def test_create_match_refuses_bad_input(pair, make_bot):
    a, b = pair
    with pytest.raises(ValidationError, match="cannot play itself"):
        create_match(a, a)
    with pytest.raises(ValidationError, match="time control"):
        create_match(a, b, time_control="5 minutes")
    with pytest.raises(ValidationError, match="games_per_match"):
        create_match(a, b, games=0)
    shatra = ready_version(make_bot("gamma", game="shatra"))
    with pytest.raises(ValidationError, match="plays shatra"):
        create_match(a, shatra)
    assert Match.objects.count() == 0


def test_two_versions_of_one_bot_play_unrated(pair):
    a, _ = pair
    a2 = ready_version(a.bot)
    match = create_match(a, a2, games=1)
    assert not match.rated
    token = claim_match(match.pk, "w")
    assert finish_match(match.pk, token, [record("white")])
    assert RatingChange.objects.count() == 0
