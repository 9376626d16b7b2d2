"""Budgets in worker time: every request (challenge, tournament start, SPRT, upload) is charged its expected
worker time; past the owner's budget of queued worker time it is a 400 under ``budget`` naming the budget,
the request's cost and what is queued, and nothing is queued. The owner sees their queued and recent use."""

from __future__ import annotations

import pytest
from django.test import Client

from ratings.models import VersionTest
from tests.support import make_bot, ready_version
from tournaments.models import BotVersion, Match, Tournament
from tournaments.services.worker_time import expected_match_seconds, expected_smoke_seconds

from .conftest import bot_upload

CHALLENGE = {"time_control": "move:100", "games_per_match": 2}


@pytest.fixture
def budget(settings):
    """Two challenges of move:100 and two games fit; a third does not."""
    cost = expected_match_seconds("tafl9", "move:100", 2)
    settings.ARENA = {**settings.ARENA, "OWNER_QUEUED_SECONDS": int(2.5 * cost)}
    return cost


def test_a_challenge_past_the_budget_is_refused_naming_it_and_queues_nothing(ada, versions, budget):
    mine, theirs = versions
    body = {"version_a": mine.pk, "version_b": theirs.pk, **CHALLENGE}
    assert [ada.post("/api/matches/", body, format="json").status_code for _ in range(2)] == [201, 201]
    refused = ada.post("/api/matches/", body, format="json")
    assert refused.status_code == 400
    (message,) = refused.json()["budget"]
    assert f"{budget:,.0f} worker-seconds" in message  # the request's cost
    assert f"{2 * budget:,.0f} worker-seconds" in message  # what is queued
    assert f"{int(2.5 * budget):,.0f} worker-seconds" in message  # the budget
    assert Match.objects.count() == 2


def test_staff_have_no_budget(root, admin_user, versions, budget):
    theirs = versions[1]
    mine = ready_version(make_bot(admin_user, "staffbot"))
    body = {"version_a": mine.pk, "version_b": theirs.pk, **CHALLENGE}
    assert [root.post("/api/matches/", body, format="json").status_code for _ in range(3)] == [201] * 3


def test_a_tournament_start_past_the_budget_is_refused_and_stays_a_draft(ada, player, other_player, budget):
    tournament_id = ada.post("/api/tournaments/", {"name": "Lughnasa", "game": "tafl9", "time_control": "move:100",
                                                   "games_per_pairing": 2}, format="json").json()["id"]
    for number in range(3):  # 6 matches: past a budget of 2.5
        owner = (player, other_player)[number % 2]
        entrant = ready_version(make_bot(owner, f"cup{number}"))
        assert ada.post(f"/api/tournaments/{tournament_id}/entrants/", {"version": entrant.pk},
                        format="json").status_code == 201
    refused = ada.post(f"/api/tournaments/{tournament_id}/start/")
    assert refused.status_code == 400
    assert "this tournament's 6 matches would queue" in refused.json()["budget"][0]
    assert Tournament.objects.get(pk=tournament_id).status == "draft"
    assert not Match.objects.exists()


def test_a_resume_past_the_budget_is_refused_and_leaves_the_tournament_cancelled(ada, player, other_player, budget,
                                                                                 settings):
    tournament_id = ada.post("/api/tournaments/", {"name": "Samhain", "game": "tafl9", "time_control": "move:100",
                                                   "games_per_pairing": 2}, format="json").json()["id"]
    for number in range(2):  # one pairing, both rounds: 2 matches, within the budget of 2.5
        entrant = ready_version(make_bot((player, other_player)[number], f"fest{number}"))
        ada.post(f"/api/tournaments/{tournament_id}/entrants/", {"version": entrant.pk}, format="json")
    assert ada.post(f"/api/tournaments/{tournament_id}/start/").status_code == 200
    assert ada.post(f"/api/tournaments/{tournament_id}/cancel/").status_code == 200
    settings.ARENA = {**settings.ARENA, "OWNER_QUEUED_SECONDS": int(1.5 * budget)}  # now one match fits
    refused = ada.post(f"/api/tournaments/{tournament_id}/resume/")
    assert refused.status_code == 400
    assert "resuming this tournament's 2 matches would queue" in refused.json()["budget"][0]
    assert Tournament.objects.get(pk=tournament_id).status == "cancelled"
    assert set(Match.objects.values_list("status", flat=True)) == {"cancelled"}


def test_an_sprt_past_the_budget_is_refused_and_starts_nothing(ada, player, settings):
    bot = make_bot(player, "sprinter")
    ready_version(bot), ready_version(bot)
    settings.ARENA = {**settings.ARENA, "OWNER_QUEUED_SECONDS": 100}  # below four default matches
    refused = ada.post(f"/api/bots/{bot.pk}/sprt/", {}, format="json")
    assert refused.status_code == 400
    assert "this SPRT's open matches would queue" in refused.json()["budget"][0]
    assert not VersionTest.objects.exists() and not Match.objects.exists()


def test_an_upload_past_the_budget_is_refused_and_stores_nothing(ada, player, settings):
    bot = make_bot(player, "builder")
    settings.ARENA = {**settings.ARENA, "OWNER_QUEUED_SECONDS": int(1.5 * expected_smoke_seconds())}
    assert ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart").status_code == 201
    refused = ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert refused.status_code == 400
    assert "this upload's smoke test would queue" in refused.json()["budget"][0]
    assert BotVersion.objects.filter(bot=bot).count() == 1


def test_the_owner_sees_their_queued_and_recent_worker_time(ada, player, versions, budget):
    mine, theirs = versions
    ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk, **CHALLENGE}, format="json")
    used = ada.get("/api/players/me/").json()["worker_time"]
    assert used["queued_seconds"] == pytest.approx(budget, abs=0.1)
    assert used["recent_seconds"] == 0 and used["budget_seconds"] == int(2.5 * budget)
    site = Client()
    site.force_login(player)
    assert b"Your worker time" in site.get(f"/players/{player.username}/").content
    assert b"Your worker time" not in Client().get(f"/players/{player.username}/").content  # the owner's only
