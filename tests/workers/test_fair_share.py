"""Fair shares of the workers: the claim divides worker time, not queue positions. The ranked ladder keeps
its guaranteed share; among owners, the one who used the workers least lately goes next, however long
another owner's queue is; priority and age decide only inside one account. Real claims on the database
(SQLite here, PostgreSQL by the first test), with the time used lately played through the services."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.postgresql import rerun_on_postgresql
from tests.support import make_bot, played_lately, ready_version
from tournaments.models import Match
from tournaments.services import (
    claim_match,
    claim_next_match,
    create_match,
    create_player,
    create_tournament,
    fail_match,
)
from tournaments.services.worker_time import claim_accounts, expected_match_seconds, recent_use

LADDER, REQUESTED = Match.Priority.LADDER, Match.Priority.REQUESTED


@pytest.mark.skipif(connection.vendor == "postgresql", reason="already on PostgreSQL: the tests run here")
@pytest.mark.slow
def test_this_module_on_postgresql():
    rerun_on_postgresql(__file__, "the fair-share claim tests", "arena_fairshare")


@pytest.fixture
def arena(db):
    """A hog, a light owner and a third, with a bot each (their challenges are charged to them), and two
    public bots of others for the ladder."""
    owners = {name: create_player(name, None) for name in ("hog", "light", "third", "ladder1", "ladder2")}
    return {name: ready_version(make_bot(owner, f"{name}-bot")) for name, owner in owners.items()}


def challenges(arena, owner: str, count: int = 1) -> list[int]:
    return [create_match(arena[owner], arena["ladder1"], time_control="move:100", games=2, rated=False).pk
            for _ in range(count)]


def ladder(arena, count: int = 1) -> list[int]:
    return [create_match(arena["ladder1"], arena["ladder2"], time_control="move:100", games=2,
                         priority=LADDER).pk for _ in range(count)]


def claims(count: int | None = None, worker: str = "w:1") -> list[int]:
    taken = []
    while (count is None or len(taken) < count) and (claimed := claim_next_match(worker)) is not None:
        taken.append(claimed[0])
    return taken


def test_a_light_owners_later_challenge_goes_before_a_hogs_long_queue(arena):
    played_lately(challenges(arena, "hog", 3), seconds=600)  # the hog has had the workers lately
    hog = challenges(arena, "hog", 40)
    light = challenges(arena, "light")  # queued last
    assert claims(1) == light
    assert claims(2) == hog[:2]  # then the hog's own, oldest first


def test_owners_take_turns_by_the_time_they_used(arena):
    played_lately(challenges(arena, "hog", 1), seconds=900)
    played_lately(challenges(arena, "third", 1), seconds=300)
    hog, third, light = challenges(arena, "hog", 3), challenges(arena, "third", 3), challenges(arena, "light", 3)
    # The light owner used nothing, the third 300 s, the hog 900 s: least used first. Running matches count
    # from their start, a moment each, so each owner keeps its place until its matches run out.
    assert claims(3) == light
    assert claims(3) == third
    assert claims() == hog


def test_the_ladder_gets_its_share_before_owners_who_have_more(arena, settings):
    settings.ARENA = {**settings.ARENA, "LADDER_SHARE": 0.5}
    played_lately(challenges(arena, "hog", 1), seconds=900)
    played_lately(ladder(arena), seconds=300)  # a quarter of the time used: below its half
    hog = challenges(arena, "hog", 5)
    ladder_queued = ladder(arena, 2)  # newer than the hog's
    assert claims(1) == ladder_queued[:1]
    assert claim_accounts()[0] is None  # 300 s of 1200 s, still below its half: the ladder again
    played_lately(ladder(arena), seconds=700)  # now 1000 s of 1900 s: past its half
    assert claims(1) == hog[:1]


def test_the_ladder_waits_when_over_its_share_but_never_when_nobody_else_has_work(arena, settings):
    settings.ARENA = {**settings.ARENA, "LADDER_SHARE": 0.25}
    played_lately(ladder(arena), seconds=600)
    played_lately(challenges(arena, "hog", 1), seconds=600)  # the ladder has had half, more than its quarter
    ladder_queued = ladder(arena, 2)
    hog = challenges(arena, "hog", 2)
    assert claims() == hog + ladder_queued


def test_a_tournament_is_charged_to_its_organiser_the_ladder_to_nobody(arena):
    organiser = arena["third"].bot.owner
    tournament = create_tournament(organiser, name="Samhain cup", game="tafl9", time_control="move:100")
    (in_tournament,) = [create_match(arena["hog"], arena["light"], time_control="move:100", games=2,
                                     tournament=tournament).pk]
    match = Match.objects.get(pk=in_tournament)
    assert match.charged_to == organiser
    assert match.cost_seconds == expected_match_seconds("tafl9", "move:100", 2) > 0
    assert Match.objects.get(pk=ladder(arena)[0]).charged_to is None
    assert Match.objects.get(pk=challenges(arena, "light")[0]).charged_to == arena["light"].bot.owner


def test_time_used_is_measured_from_starts_and_finishes_in_the_window(arena, settings):
    settings.ARENA = {**settings.ARENA, "FAIR_SHARE_WINDOW_SECONDS": 3600}
    played_lately(challenges(arena, "hog", 2), seconds=100)
    played_lately(challenges(arena, "hog", 1), seconds=5000, ago=4000)  # finished before the window: not counted
    used = recent_use()
    assert used[arena["hog"].bot.owner_id] == pytest.approx(200, abs=1)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL only: run by test_this_module_on_postgresql")
@pytest.mark.django_db(transaction=True)
def test_concurrent_claims_take_each_match_once_across_accounts(arena):
    queued = set(challenges(arena, "hog", 15) + challenges(arena, "light", 15) + ladder(arena, 10))
    taken: list[int] = []

    def worker(number: int) -> None:
        try:
            taken.extend(claims(worker=f"w:{number}"))
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(number,)) for number in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(taken) == sorted(queued)


def test_a_light_owner_goes_before_the_ladder_at_its_share(arena, settings):
    settings.ARENA = {**settings.ARENA, "LADDER_SHARE": 0.5}
    played_lately(ladder(arena), seconds=600)
    played_lately(challenges(arena, "hog", 1), seconds=600)  # the ladder has exactly its half
    played_lately(challenges(arena, "light", 1), seconds=30)  # the light owner has used little
    ladder_queued, hog, light = ladder(arena, 1), challenges(arena, "hog", 1), challenges(arena, "light", 1)
    assert claims() == light + ladder_queued + hog


def test_the_claims_one_query_counts_the_time_recent_use_counts(arena):
    """The claim reads the queue and the window's use in one grouped query: the same seconds per account as
    ``recent_use`` (ended in the window, running so far; ended before the window or queued: nothing)."""
    from tournaments.services.worker_time import _queued_and_used

    now = timezone.now()
    played_lately(challenges(arena, "hog", 2), seconds=300)
    played_lately(challenges(arena, "light"), seconds=500, ago=2 * 3600)  # before the window
    (failed,) = challenges(arena, "third")
    fail_match(failed, "a version vanished", claim_match(failed, "w:1"))  # given up on after 40 s
    Match.objects.filter(pk=failed).update(  # state: time passes
        started_at=now - timedelta(seconds=40), finished_at=now)
    (running,) = challenges(arena, "third")
    claim_match(running, "w:1")  # a worker has been playing it for 25 s
    Match.objects.filter(pk=running).update(started_at=now - timedelta(seconds=25))  # state: time passes
    queued = challenges(arena, "light") + ladder(arena)
    oldest, used = _queued_and_used(now)
    assert oldest == {arena["light"].bot.owner_id: Match.objects.get(pk=queued[0]).created_at,
                      None: Match.objects.get(pk=queued[1]).created_at}
    expected = recent_use(now)
    assert {account: round(seconds, 3) for account, seconds in used.items() if seconds} == {
        account: round(seconds, 3) for account, seconds in expected.items() if seconds}
    assert round(used[arena["third"].bot.owner_id]) == 65 and round(used[arena["hog"].bot.owner_id]) == 600


def settled_sums(queries) -> int:
    """The queries that summed the window's settled part (the only ones bounded by ``finished_at <``)."""
    return sum('"finished_at" <' in query["sql"] for query in queries)


def test_the_window_is_summed_once_in_a_while_and_what_ended_since_counts_at_once(arena):
    """The settled part of the window (ended over ``SETTLING_SECONDS`` ago) is summed by one claim and reused by
    the next for a few seconds; the matches that end meanwhile count at once, with those of the settled part."""
    played_lately(challenges(arena, "hog", 2), seconds=300, ago=1800)  # settled: 600 s
    played_lately(challenges(arena, "third", 1), seconds=500, ago=1800)  # settled: 500 s
    hog, third = challenges(arena, "hog", 3), challenges(arena, "third", 3)
    with CaptureQueriesContext(connection) as first:
        assert claims(1) == third[:1]  # 500 s before 600 s
    played_lately(challenges(arena, "third"), seconds=200)  # just now: the third has used 700 s, the hog 600
    with CaptureQueriesContext(connection) as second:
        assert claims(1) == hog[:1]
    assert (settled_sums(first), settled_sums(second)) == (1, 0)


def test_a_settled_sum_is_taken_again_once_it_is_a_few_seconds_old(arena):
    from django.core.cache import cache

    from tournaments.services.worker_time import SETTLED_KEY, SETTLED_REUSE_SECONDS

    played_lately(challenges(arena, "hog", 1), seconds=300, ago=1800)
    challenges(arena, "hog"), challenges(arena, "light")
    claim_accounts()
    taken, window, used = cache.get(SETTLED_KEY)
    cache.set(SETTLED_KEY, (taken - timedelta(seconds=SETTLED_REUSE_SECONDS + 1), window, used))  # time passes
    with CaptureQueriesContext(connection) as later:
        claim_accounts()
    assert settled_sums(later) == 1


def test_without_its_cache_the_claim_sums_the_whole_window(arena, settings):
    """A cache that cannot be reached (Redis down, here a closed port on loopback) costs the claim its shortcut,
    never its order."""
    import socket

    with socket.socket() as probe:  # a free port, closed again: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",  # the cache is
                                   "LOCATION": f"redis://127.0.0.1:{port}/0"}}  # built anew from these
    played_lately(challenges(arena, "hog", 1), seconds=600, ago=1800)
    hog, light = challenges(arena, "hog", 2), challenges(arena, "light", 2)
    with CaptureQueriesContext(connection) as queries:
        assert claims(3) == light + hog[:1]
    assert settled_sums(queries) == 3


def test_with_the_cache_down_the_turns_are_the_same_and_the_miss_is_logged(arena, caplog):
    # The window's settled sum is kept in the cache a few seconds (a shortcut): without Redis, each claim sums it
    # afresh and the turns do not change.
    import socket

    from django.test import override_settings

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dead = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                        "LOCATION": f"redis://127.0.0.1:{port}/0"}}
    played_lately(challenges(arena, "hog", 1), seconds=900)
    hog, light = challenges(arena, "hog", 2), challenges(arena, "light", 2)
    with override_settings(CACHES=dead):
        assert claims() == light + hog
    assert "arena:fair-share:settled not read" in caplog.text
    assert "arena:fair-share:settled not kept" in caplog.text
