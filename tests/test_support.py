"""tests.support builds only states the services produce: its ready version is what a passing smoke test leaves,
its finished match what a worker's report leaves (games, score, rating changes)."""

from __future__ import annotations

import shutil

import pytest

from ratings.models import Rating, RatingChange
from tests.support import finished_match, make_bot, pass_smoke_test, ready_version, upload
from tournaments.models import BotVersion, Match
from tournaments.services import smoke_test_version

pytestmark = pytest.mark.django_db

UNLIKE = {"id", "bot", "number", "file", "original", "uploaded_at", "checked_at"}  # the row's own, or a time


def judged(version: BotVersion) -> dict:
    return {field.name: getattr(version, field.name) for field in BotVersion._meta.concrete_fields
            if field.name not in UNLIKE}


def test_a_ready_version_is_what_a_passing_smoke_test_leaves(player, django_capture_on_commit_callbacks):
    smoked = upload(make_bot(player, "smoked"))
    with django_capture_on_commit_callbacks() as smoke_events:
        smoked = smoke_test_version(smoked.pk, trusted=shutil.which("bwrap") is None)
    pending = upload(make_bot(player, "helped"))
    with django_capture_on_commit_callbacks() as helper_events:
        helped = pass_smoke_test(pending)
    assert smoked.status == BotVersion.Status.READY, smoked.reject_reason
    assert judged(helped) == judged(smoked)
    assert helped.checked_at is not None and smoked.checked_at is not None
    assert len(helper_events) == len(smoke_events) == 1  # the pages are told (events.VersionJudged)


def test_a_finished_match_is_scored_and_rated_as_a_reported_one(player, other_player):
    a, b = ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta"))
    match = finished_match(a, b, ["white", "white", "none"])  # A won game 1 (white), lost game 2 (black)
    assert (match.status, match.score_a, match.score_b) == (Match.Status.FINISHED, 1.5, 1.5)
    assert match.games.count() == 3 and RatingChange.objects.filter(played__match=match).count() == 6
    assert Rating.objects.get(bot=a.bot).games == 3
    replayable = finished_match(b, a, seed=7)
    assert all(game.record["actions"] for game in replayable.games.all())  # the referee's random play
