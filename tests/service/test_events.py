"""Issue 19, items 1 and 2: each change others see is a domain event once it commits (``tournaments.events``),
and its reactions (``api.reactions``) wake a worker and forget exactly the kept pages that show it. Every test
reads a page, sees it kept, changes the thing, and reads it again at once: never after a cache expired."""

from __future__ import annotations

import pytest
from celery.signals import before_task_publish
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from rest_framework.test import APIClient

from api import reactions
from tests.support import finished_match, ready_version, upload
from tournaments import events
from tournaments.models import BotVersion, Match
from tournaments.services import (
    add_entrant,
    api_token,
    cancel_match,
    cancel_tournament,
    create_match,
    create_tournament,
    smoke_test_version,
    start_tournament,
)
from tournaments.services.ratings import fit_ratings
from workers.models import Dispatch

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def wakeups():
    """The wake-ups (``workers.play_next``) published to the settings' real broker."""
    published = []

    def seen(sender=None, **_):
        if sender == "workers.play_next":
            published.append(sender)

    before_task_publish.connect(seen, weak=False)
    yield published
    before_task_publish.disconnect(seen)


def kept(client, url: str, django_assert_num_queries) -> str:
    """Read ``url`` twice: the second answer is the kept page (no query), so a later read that differs was
    rebuilt because something forgot it, not because it expired."""
    first = client.get(url)
    assert first.status_code == 200, url
    with django_assert_num_queries(0):
        again = client.get(url)
    assert again.content == first.content
    return again.content.decode()


def test_a_finished_match_shows_at_once_on_bot_pages_lists_and_leaderboard(rivals, django_assert_num_queries,
                                                                          django_capture_on_commit_callbacks):
    ann, bob = rivals("ann", "bob")
    visitor, anon = Client(), APIClient()
    api_bot, page_bot = f"/api/bots/{ann.bot_id}/", f"/bots/{ann.bot_id}/"
    assert '"rating":null' in kept(anon, api_bot, django_assert_num_queries)
    assert "bob" not in kept(visitor, page_bot, django_assert_num_queries)  # no game against bob yet
    assert '"count":0' in kept(anon, "/api/leaderboard/tafl9/", django_assert_num_queries)
    assert '"results":[]' in kept(anon, "/api/matches/", django_assert_num_queries)
    with django_capture_on_commit_callbacks(execute=True):
        match = finished_match(ann, bob, ["white", "black"])
    assert anon.get(api_bot).json()["rating"]["games"] == 2
    assert "bob" in visitor.get(page_bot).content.decode()
    assert {row["bot_name"] for row in anon.get("/api/leaderboard/tafl9/").json()["results"]} == {"ann", "bob"}
    assert [(row["id"], row["status"]) for row in anon.get("/api/matches/").json()["results"]] == [
        (match.pk, "finished")]


def test_a_started_tournament_shows_at_once_on_the_home_page_and_the_lists(rivals, player, django_assert_num_queries,
                                                                          django_capture_on_commit_callbacks):
    ann, bob, cid = rivals("ann", "bob", "cid")
    cup = create_tournament(player, name="Samhain Cup", game="tafl9", games_per_pairing=2, double_round=False)
    for version in (ann, bob, cid):
        add_entrant(cup, version)
    visitor, anon = Client(), APIClient()
    assert "Samhain Cup</a> <span class=\"muted\">tafl9 · draft" in kept(visitor, "/", django_assert_num_queries)
    assert '"results":[]' in kept(anon, "/api/matches/", django_assert_num_queries)
    with django_capture_on_commit_callbacks(execute=True):
        start_tournament(cup)
    assert "Samhain Cup</a> <span class=\"muted\">tafl9 · running" in visitor.get("/").content.decode()
    assert len(anon.get("/api/matches/").json()["results"]) == 3
    assert "running" in visitor.get(f"/tournaments/{cup.pk}/").content.decode()  # built at each read


def test_a_rejected_version_shows_at_once_on_its_bot_pages(make_bot, django_assert_num_queries,
                                                          django_capture_on_commit_callbacks):
    bot = make_bot("crashy")
    version = upload(bot, "crash_bot.py")
    visitor, anon = Client(), APIClient()
    assert 'data-status="pending"' in kept(visitor, f"/bots/{bot.pk}/", django_assert_num_queries)
    kept(anon, f"/api/bots/{bot.pk}/", django_assert_num_queries)
    with django_capture_on_commit_callbacks(execute=True):
        assert smoke_test_version(version.pk).status == BotVersion.Status.REJECTED  # a bulk update: no signal
    assert 'data-status="rejected"' in visitor.get(f"/bots/{bot.pk}/").content.decode()
    assert [row["status"] for row in anon.get(f"/api/bots/{bot.pk}/").json()["versions"]] == ["rejected"]


def test_a_refit_shows_at_once_on_the_leaderboard_and_the_bot_page(rivals, django_assert_num_queries,
                                                                  django_capture_on_commit_callbacks):
    ann, bob = rivals("ann", "bob")
    finished_match(ann, bob, ["white", "white", "black", "white"])  # its events are not delivered: only the refit's are
    anon = APIClient()
    assert '"fitted_elo":null' in kept(anon, "/api/leaderboard/tafl9/", django_assert_num_queries)
    assert '"fitted_elo":null' in kept(anon, f"/api/bots/{ann.bot_id}/", django_assert_num_queries)
    with django_capture_on_commit_callbacks(execute=True):
        fit_ratings(["tafl9"])
    assert all(row["fitted_elo"] is not None for row in anon.get("/api/leaderboard/tafl9/").json()["results"])
    assert anon.get(f"/api/bots/{ann.bot_id}/").json()["rating"]["fitted_elo"] is not None


def test_matches_of_every_kind_wake_a_worker_once_they_commit(rivals, player, wakeups,
                                                              django_capture_on_commit_callbacks):
    ann, bob, cid = rivals("ann", "bob", "cid")
    challenger = APIClient()
    challenger.credentials(HTTP_AUTHORIZATION=f"Token {api_token(ann.bot.owner)}")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:  # nothing before the commit
        answer = challenger.post("/api/matches/", {"version_a": ann.pk, "version_b": bob.pk}, format="json")
    assert answer.status_code == 201 and wakeups == [] and not Dispatch.objects.exists()
    for callback in callbacks:  # the commit
        callback()
    assert wakeups == ["workers.play_next"]
    assert list(Dispatch.objects.values_list("match_id", flat=True)) == [answer.json()["id"]]

    cup = create_tournament(player, name="Beltane Cup", game="tafl9", games_per_pairing=2, double_round=False)
    for version in (ann, bob, cid):
        add_entrant(cup, version)
    with django_capture_on_commit_callbacks(execute=True):
        start_tournament(cup)
    assert len(wakeups) == 4  # one per tournament match, at its start, not at beat's next dispatch
    assert Dispatch.objects.filter(match__tournament=cup).count() == 3


def test_an_sprt_wakes_a_worker_for_each_match_it_queues(make_bot, player, wakeups,
                                                         django_capture_on_commit_callbacks):
    bot = make_bot("twice")
    ready_version(bot)
    ready_version(bot, "first_bot.py")
    owner = APIClient()
    owner.credentials(HTTP_AUTHORIZATION=f"Token {api_token(player)}")
    with django_capture_on_commit_callbacks(execute=True):
        answer = owner.post(f"/api/bots/{bot.pk}/sprt/", {}, format="json")
    assert answer.status_code == 201, answer.content
    queued = Match.objects.filter(status=Match.Status.QUEUED)
    assert queued.count() >= 1 and len(wakeups) == queued.count()
    assert Dispatch.objects.filter(match__in=queued).count() == queued.count()


def test_a_rolled_back_change_emits_nothing(rivals, wakeups, django_capture_on_commit_callbacks):
    ann, bob = rivals("ann", "bob")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            create_match(ann, bob)
            raise RuntimeError("the request failed after queuing")
    assert callbacks == [] and wakeups == [] and not Match.objects.exists()


def test_a_failing_reaction_is_logged_and_the_others_still_run(rivals, caplog, django_capture_on_commit_callbacks):
    ann, bob = rivals("ann", "bob")
    seen = []

    def broken(event):
        raise OSError("the broker is down")

    events.subscribe(events.MatchCreated, broken)
    events.subscribe(events.MatchCreated, seen.append)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            match = create_match(ann, bob)
    finally:
        events._reactions[events.MatchCreated].remove(broken)
        events._reactions[events.MatchCreated].remove(seen.append)
    assert [event.match_id for event in seen] == [match.pk]
    assert "reaction broken failed" in caplog.text and Match.objects.get(pk=match.pk).status == "queued"


def test_every_event_has_a_reaction_and_an_unknown_one_is_refused():
    assert {kind for kind, _ in reactions.REACTIONS} == set(events.EVENTS)
    with pytest.raises(ValueError, match="unknown event"):
        events.emit(object())
    with pytest.raises(ValueError, match="unknown event"):
        events.subscribe(dict, print)


def test_a_new_draft_and_a_cancellation_show_at_once(rivals, player, django_assert_num_queries,
                                                     django_capture_on_commit_callbacks):
    ann, bob = rivals("ann", "bob")
    visitor, anon = Client(), APIClient()
    assert "Imbolc Cup" not in kept(visitor, "/", django_assert_num_queries)
    with django_capture_on_commit_callbacks(execute=True):
        cup = create_tournament(player, name="Imbolc Cup", game="tafl9", games_per_pairing=2)
    assert "Imbolc Cup" in visitor.get("/").content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        match = create_match(ann, bob)
    assert [row["status"] for row in kept(anon, "/api/matches/", django_assert_num_queries) and
            anon.get("/api/matches/").json()["results"]] == ["queued"]
    with django_capture_on_commit_callbacks(execute=True):
        assert cancel_match(match.pk)
    assert [row["status"] for row in anon.get("/api/matches/").json()["results"]] == ["cancelled"]
    kept(visitor, "/", django_assert_num_queries)
    with django_capture_on_commit_callbacks(execute=True):
        cancel_tournament(cup)
    assert "Imbolc Cup" not in visitor.get("/").content.decode()
