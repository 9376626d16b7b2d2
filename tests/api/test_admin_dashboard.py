"""The admin as the operator's dashboard: pages render with bounded queries; actions go through services."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from tests.support import finished_match, make_bot, ready_version, record, report
from tournaments.models import BotVersion, Match
from tournaments.services import cancel_match, claim_match, create_match, fail_match


@pytest.fixture
def admin_client_logged(client, admin_user):
    client.force_login(admin_user)
    return client


def _busy_arena(player, other_player):
    a = ready_version(make_bot(player, "alpha"))
    b = ready_version(make_bot(other_player, "beta"))
    finished_match(a, b)  # by worker-1
    create_match(a, b)  # queued
    assert claim_match(create_match(b, a).pk, "box-7:123")  # running
    assert fail_match(create_match(a, b).pk, "sandbox missing")
    return a, b


@pytest.mark.slow
def test_dashboard_renders_for_an_admin(admin_client_logged, player, other_player):
    _busy_arena(player, other_player)
    response = admin_client_logged.get("/admin/dashboard/")
    assert response.status_code == 200
    page = response.content.decode()
    context = response.context
    assert context["counts"]["queued"] == 1 and context["counts"]["running"] == 1
    assert context["counts"]["failed"] == 1 and context["counts"]["finished"] == 1
    assert {w["worker_id"]: w["running"] for w in context["workers"]} == {"box-7:123": 1, "worker-1": 0}
    assert [(r["failure_reason"], r["count"]) for r in context["match_failures"]] == [("sandbox missing", 1)]
    assert sum(row["count"] for row in context["games_per_hour"]) == 2
    assert len(context["games_per_hour"]) <= 2  # the idle hours are one line
    assert "box-7:123" in page and "sandbox missing" in page


def test_games_per_hour_folds_idle_hours_into_one_line(player, other_player):
    from datetime import UTC, datetime

    from ops.dashboard import games_per_hour

    now = datetime(2026, 3, 1, 12, 30, tzinfo=UTC)
    assert [row["label"] for row in games_per_hour(now)] == ["no games 2026-02-28 13:00–13:00"]  # a whole idle day
    _busy_arena(player, other_player)  # two games, stored now
    rows = games_per_hour()
    assert [row["count"] for row in rows] == [0, 2] and rows[0]["label"].startswith("no games ")
    assert rows[0]["until"] == rows[1]["hour"] and rows[1]["until"] - rows[0]["hour"] == timedelta(hours=24)


def test_dashboard_says_which_workers_keep_their_bots_apart(admin_client_logged, player, other_player):
    from tournaments.services.matches import note_worker

    _busy_arena(player, other_player)
    note_worker("box-7:123", "", True)
    note_worker("compose-1", "no per-bot cgroup control of memory, pids, cpu, freezer (none)", False)
    response = admin_client_logged.get("/admin/dashboard/")
    rows = {w["worker_id"]: w for w in response.context["workers"]}
    assert rows["box-7:123"]["plays_rated"] and rows["box-7:123"]["running"] == 1
    assert rows["compose-1"]["plays_rated"] is False and rows["compose-1"]["running"] == 0  # idle, but seen
    assert rows["worker-1"]["plays_rated"] is None  # beat on a match, never asked for work since
    page = response.content.decode()
    assert "no: no per-bot cgroup control of memory, pids, cpu, freezer (none)</strong> (unrated matches only)" in page


def test_dashboard_counts_bot_failures_by_reason(admin_client_logged, player, other_player):

    a, b = _busy_arena(player, other_player)
    report(create_match(a, b, games=1), [record("black", "timeout")])  # A, white, ran out of time
    context = admin_client_logged.get("/admin/dashboard/").context
    assert [(r["reason"], r["count"]) for r in context["game_failures"]] == [("timeout", 1)]


def test_dashboard_is_forbidden_to_others(client, player):
    assert client.get("/admin/dashboard/").status_code == 302  # to the login page
    client.force_login(player)
    response = client.get("/admin/dashboard/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_admin_index_links_the_dashboard(admin_client_logged):
    assert "/admin/dashboard/" in admin_client_logged.get("/admin/").content.decode()


CHANGELISTS = ["tournaments/bot", "tournaments/botversion", "tournaments/match", "tournaments/game",
               "tournaments/tournament", "tournaments/tournamententrant", "ratings/rating", "ratings/ratingchange"]


@pytest.mark.parametrize("page", CHANGELISTS)
@pytest.mark.slow
def test_changelists_render_without_n_plus_one(page, admin_client_logged, player, other_player,
                                               django_assert_max_num_queries):
    from tournaments.services import add_entrant, create_tournament
    from tournaments.services.ratings import recompute_ratings

    tournament = create_tournament(player, name="Cup", game="tafl9")
    versions = [ready_version(make_bot(player if i % 2 else other_player, f"bot{i}")) for i in range(8)]
    for i, version in enumerate(versions):
        finished_match(version, versions[(i + 1) % 8])
        add_entrant(tournament, version)
    recompute_ratings(history=True)
    with django_assert_max_num_queries(12):
        response = admin_client_logged.get(f"/admin/{page}/")
    assert response.status_code == 200
    assert admin_client_logged.get(f"/admin/{page}/?q=bot1").status_code == 200


def test_requeue_action(admin_client_logged, player, other_player):
    _busy_arena(player, other_player)
    failed = Match.objects.get(status="failed")
    running = Match.objects.get(status="running")
    response = admin_client_logged.post("/admin/tournaments/match/", {
        "action": "requeue_matches", "_selected_action": [failed.pk, running.pk]}, follow=True)
    assert response.status_code == 200
    failed.refresh_from_db()
    running.refresh_from_db()
    assert (failed.status, failed.attempts) == ("queued", 0)
    assert running.status == "queued" and running.lease_token is None


def test_requeue_refuses_a_finished_match(admin_client_logged, player, other_player):
    _busy_arena(player, other_player)
    finished = Match.objects.get(status="finished")
    response = admin_client_logged.post("/admin/tournaments/match/", {
        "action": "requeue_matches", "_selected_action": [finished.pk]}, follow=True)
    assert "only running, failed or cancelled" in response.content.decode()
    finished.refresh_from_db()
    assert finished.status == "finished"


def test_disable_action_cancels_queued_matches(admin_client_logged, player, other_player):
    a, _ = _busy_arena(player, other_player)
    admin_client_logged.post("/admin/tournaments/botversion/", {
        "action": "disable_versions", "_selected_action": [a.pk]}, follow=True)
    assert BotVersion.objects.get(pk=a.pk).is_disabled
    assert not Match.objects.filter(status="queued").exists()
    admin_client_logged.post("/admin/tournaments/botversion/", {
        "action": "enable_versions", "_selected_action": [a.pk]}, follow=True)
    assert not BotVersion.objects.get(pk=a.pk).is_disabled


def test_dashboard_shows_the_queue_oldest_first_with_ages_and_warns_when_work_waits_too_long(
        admin_client_logged, player, other_player, settings):
    settings.ARENA = {**settings.ARENA, "QUEUE_WARNING_SECONDS": 600}
    a, b = _busy_arena(player, other_player)
    now = timezone.now()
    old_ladder = create_match(a, b, time_control="move:1000", priority=Match.Priority.LADDER)
    Match.objects.filter(pk=old_ladder.pk).update(created_at=now - timedelta(minutes=40))  # state: time passes
    for _ in range(25):  # newer work than the oldest: a list of the newest would hide it
        create_match(a, b, time_control="move:1000")
    context = admin_client_logged.get("/admin/dashboard/").context
    assert context["queued"][0].pk == old_ladder.pk
    queue = {row["label"]: row for row in context["queue"]}
    assert [row["label"] for row in context["queue"]] == [
        "smoke test of a new version", "tournament or requested match", "ranked ladder"]
    assert queue["ranked ladder"]["count"] == 1 and queue["tournament or requested match"]["count"] == 26
    assert timedelta(minutes=39) < queue["ranked ladder"]["waited"] < timedelta(minutes=41)
    assert queue["tournament or requested match"]["waited"] < timedelta(minutes=1)
    assert queue["smoke test of a new version"]["count"] == 0
    assert "ranked ladder has waited 40 min, longer than 10 min" in context["queue_warning"]
    page = admin_client_logged.get("/admin/dashboard/").content.decode()
    assert 'id="queue-warning"' in page and "ranked ladder" in page
    cancel_match(old_ladder.pk)
    assert admin_client_logged.get("/admin/dashboard/").context["queue_warning"] == ""


def test_admin_retires_pins_and_deactivates_through_the_services(admin_client_logged, player, other_player):
    from tournaments.models import Bot

    a, b = _busy_arena(player, other_player)
    newer = ready_version(a.bot)
    admin_client_logged.post("/admin/tournaments/bot/", {"action": "retire_bots", "_selected_action": [a.bot_id]})
    assert Bot.objects.get(pk=a.bot_id).is_retired
    assert not Match.objects.filter(status="queued").exists()  # its queued ladder match was cancelled
    admin_client_logged.post("/admin/tournaments/bot/", {"action": "bring_back_bots", "_selected_action": [a.bot_id]})
    assert not Bot.objects.get(pk=a.bot_id).is_retired
    admin_client_logged.post("/admin/tournaments/botversion/", {"action": "pin_versions", "_selected_action": [a.pk]})
    assert Bot.objects.get(pk=a.bot_id).pinned_version_id == a.pk
    admin_client_logged.post("/admin/tournaments/botversion/", {
        "action": "deactivate_versions", "_selected_action": [a.pk]})
    assert not BotVersion.objects.get(pk=a.pk).is_active
    assert Bot.objects.get(pk=a.bot_id).pinned_version_id is None  # a deactivated version stops being pinned
    refused = admin_client_logged.post("/admin/tournaments/botversion/", {
        "action": "pin_versions", "_selected_action": [a.pk]}, follow=True)
    assert "deactivated by its owner" in refused.content.decode()
    assert Bot.objects.get(pk=a.bot_id).pinned_version_id is None
    assert newer.is_active


def test_admin_deletes_only_a_bot_without_rated_games(admin_client_logged, player, other_player):
    from tournaments.models import Bot

    a, b = _busy_arena(player, other_player)  # a and b played a rated match
    fresh = make_bot(player, "fresh")
    ready_version(fresh)
    admin_client_logged.post("/admin/tournaments/bot/", {
        "action": "delete_selected", "_selected_action": [fresh.pk], "post": "yes"}, follow=True)
    assert not Bot.objects.filter(pk=fresh.pk).exists()
    page = admin_client_logged.get(f"/admin/tournaments/bot/{a.bot_id}/delete/")
    assert page.status_code == 200 and "protected" in page.content.decode().lower()  # Django's own refusal
    assert Bot.objects.filter(pk=a.bot_id).exists()


def test_the_admin_refuses_a_look_alike_user_name_beside_the_field(admin_client_logged, player):
    """Adding or renaming a user in the admin: a name too like another's is a form error, not an error page."""
    from django.contrib.auth import get_user_model

    users = list(get_user_model().objects.values_list("pk", "username"))
    added = admin_client_logged.post("/admin/auth/user/add/", {
        "username": "\u0430da", "password1": "a-long-pass-42", "password2": "a-long-pass-42",
        "usable_password": "true"})
    assert added.status_code == 200 and "too like" in added.content.decode()
    assert list(get_user_model().objects.values_list("pk", "username")) == users
    renamed = admin_client_logged.post(f"/admin/auth/user/{player.pk}/change/", {
        "username": "Ada", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00"})  # her own name, recased
    assert renamed.status_code == 302, renamed.content.decode()[:2000]
    other = get_user_model().objects.create_user("grace-two")
    refused = admin_client_logged.post(f"/admin/auth/user/{other.pk}/change/", {
        "username": "ada.", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00"})
    assert refused.status_code == 200 and "too like" in refused.content.decode()


@pytest.mark.parametrize("page", ["tournaments/match", "tournaments/game", "ratings/ratingchange"])
def test_a_large_tables_unfiltered_list_is_counted_from_the_estimate(page, admin_client_logged, player,
                                                                     other_player, monkeypatch):
    """On PostgreSQL (tests/api runs there in CI): the list of all matches, games or rating changes takes its count
    from the planner's estimate once the table is large (here: any size), never from COUNT(*) over every row; a
    filtered list is counted exactly. Elsewhere both are exact."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from ops.admin.paging import LargeTablePaginator

    _busy_arena(player, other_player)
    monkeypatch.setattr(LargeTablePaginator, "EXACT_BELOW", 0)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ANALYZE tournaments_match, tournaments_game, ratings_ratingchange")  # the estimates
    with CaptureQueriesContext(connection) as unfiltered:
        assert admin_client_logged.get(f"/admin/{page}/").status_code == 200
    with CaptureQueriesContext(connection) as searched:
        assert admin_client_logged.get(f"/admin/{page}/?q=alpha").status_code == 200
    counts = [sum("COUNT(*)" in query["sql"] for query in queries) for queries in (unfiltered, searched)]
    assert counts == ([0, 1] if connection.vendor == "postgresql" else [1, 1])
