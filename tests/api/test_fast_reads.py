"""The hot reads built from rows and served from the cache answer exactly what the serializers would,
and the cache never outlives what it may: the leaderboard's TTL, a game's visibility, a bot's name."""

from __future__ import annotations

import json
import time

import pytest
from django.contrib.auth.models import AnonymousUser
from django.core.serializers.json import DjangoJSONEncoder
from rest_framework.test import APIRequestFactory

from api import public, serializers
from ratings.models import Rating
from tests.support import finished_match, make_bot, make_player, ready_version, refit, rejected_version, scored
from tournaments.models import Game, Match
from tournaments.services import update_bot

from .conftest import client_for


@pytest.fixture
def played(versions):
    a, b = versions
    for _ in range(3):
        finished_match(a, b, games=2)
        finished_match(b, a, games=2)
    return a, b


def same_bytes(body, expected) -> bool:
    """The JSON a client gets, keys in order, equals what the serializer's data would render to."""
    return json.dumps(body) == json.dumps(expected, cls=DjangoJSONEncoder)


def test_match_and_game_pages_equal_the_serializers(anon, played):
    matches = anon.get("/api/matches/?page_size=200").json()["results"]
    expected = serializers.MatchSerializer(Match.objects.order_by("-created_at", "-id"), many=True).data
    assert matches == [dict(row) for row in expected]
    assert same_bytes(matches, expected)
    games = anon.get("/api/games/?page_size=200").json()["results"]
    expected = serializers.GameBriefSerializer(Game.objects.order_by("-created_at", "-id"), many=True).data
    assert games == [dict(row) for row in expected]
    assert same_bytes(games, expected)
    assert len(matches) == 6 and len(games) == 12


def test_rows_write_times_as_the_serializers_do_in_another_time_zone(anon, played):
    from django.utils import timezone

    with timezone.override("America/St_Johns"):  # -03:30 / -02:30: a zone that is not whole hours off UTC
        matches = anon.get("/api/matches/").json()["results"]
        expected = serializers.MatchSerializer(Match.objects.order_by("-created_at", "-id"), many=True).data
    assert [m["created_at"] for m in matches] == [m["created_at"] for m in expected]
    assert not matches[0]["created_at"].endswith("Z")


def test_unknown_filter_values_are_still_refused(anon, played):
    response = anon.get("/api/matches/?game=chess")
    assert response.status_code == 400 and "game" in response.json()


def test_rating_history_page_equals_the_serializer(anon, played):
    from api import selectors
    from tournaments.services.ratings import recompute_ratings

    recompute_ratings(history=True)
    a, _ = played
    history = anon.get(f"/api/bots/{a.bot_id}/rating-history/").json()["results"]
    expected = serializers.RatingChangeSerializer(selectors.rating_history(a.bot), many=True).data
    assert history == [dict(row) for row in expected] and len(history) == 12
    assert same_bytes(history, expected)


def test_leaderboard_page_equals_the_serializer(anon, player, other_player, settings):
    from ratings import selectors as ratings_selectors
    from ratings.models import RatingFit

    settings.ARENA = {**settings.ARENA, "LEADERBOARD_RANKED_MARGIN": 150}
    b1, b2 = ready_version(make_bot(other_player, "b1")), ready_version(make_bot(player, "b2"))
    sparring = ready_version(make_bot(make_player("hedy"), "sparring", is_public=False))
    scored(b1, sparring, wins=12, draws=6, losses=12)  # b1's many games: ranked
    scored(b2, b1, wins=2, losses=1)  # b2's few: provisional
    refit()
    b0 = ready_version(make_bot(player, "b0"))
    scored(b0, b1, wins=1, draws=1)  # b0 came and played after the fit: rated live, not in the fit
    fit = RatingFit.objects.get(game="tafl9")
    board = list(ratings_selectors.leaderboard("tafl9"))
    for rating in board:
        for name, value in ratings_selectors.fitted_summary(ratings_selectors.board_fitted(rating), fit).items():
            setattr(rating, name, value)
    assert [rating.standing for rating in board] == ["ranked", "provisional", "unfitted"]  # each kind of row
    expected = serializers.LeaderboardEntrySerializer(board, many=True).data
    body = anon.get("/api/leaderboard/tafl9/").json()["results"]
    assert body == [dict(row) for row in expected] and len(body) == 3
    assert same_bytes(body, expected)


def test_bot_page_equals_the_serializer_for_owner_and_stranger(player, other_player, played):
    from api import selectors
    from tournaments.services.ratings import recompute_ratings

    recompute_ratings(history=True)
    a, _ = played
    reason = rejected_version(a.bot).reject_reason  # "init-failed: crash: exit code 3"
    for user in (player, other_player, None):
        request = APIRequestFactory().get("/")
        request.user = user if user is not None else AnonymousUser()
        bot = selectors.bot_detail_visible_to(request.user).get(pk=a.bot_id)
        expected = serializers.BotDetailSerializer(bot, context={"request": request}).data
        body = client_for(user).get(f"/api/bots/{a.bot_id}/").json()
        assert body == json.loads(json.dumps(expected, cls=DjangoJSONEncoder))
        assert same_bytes(body, expected)
        assert body["rating"] is not None
        reasons = [v["reject_reason"] for v in body["versions"]]
        assert (reason in reasons) == (user == a.bot.owner)


def test_leaderboard_rank_continues_across_pages(anon, db, settings):
    settings.ARENA = {**settings.ARENA, "LEADERBOARD_RANKED_MARGIN": 1000}  # every rated bot ranked
    versions = [ready_version(make_bot(make_player(f"p{i}"), f"b{i}")) for i in range(5)]
    for i, weaker in enumerate(versions):
        for stronger in versions[i + 1:]:  # the later bot wins 2-1: b4 the strongest, b0 the weakest
            scored(stronger, weaker, wins=2, losses=1)
    refit()
    elo = dict(Rating.objects.values_list("bot__name", "elo"))
    second = anon.get("/api/leaderboard/tafl9/?page=2&page_size=2").json()
    assert second["count"] == 5
    assert [(r["rank"], r["bot_name"], r["elo"]) for r in second["results"]] == [(3, "b2", elo["b2"]),
                                                                                   (4, "b1", elo["b1"])]


def test_cached_leaderboard_is_refreshed_after_the_ttl(anon, player, other_player, monkeypatch):
    monkeypatch.setattr(public, "LIVE_SECONDS", 1)  # whole seconds: what Redis expiry counts in
    climber, rival = ready_version(make_bot(player, "climber")), ready_version(make_bot(other_player, "rival"))
    scored(climber, rival, draws=1)
    first = anon.get("/api/leaderboard/tafl9/")
    shown = {row["bot_name"]: row["elo"] for row in first.json()["results"]}
    assert shown["climber"] == 1500.0 and first["Cache-Control"] == "public, max-age=1"
    # Its reactions do not run (the test's transaction never commits): as when the forget cannot reach the
    # cache, the kept page is not told, and only its TTL brings the new rating.
    scored(climber, rival, wins=1)
    risen = Rating.objects.get(bot=climber.bot).elo
    assert risen > 1500.0

    def climbers_elo():
        return {row["bot_name"]: row["elo"] for row in anon.get("/api/leaderboard/tafl9/").json()["results"]}[
            "climber"]

    assert climbers_elo() == 1500.0  # within the TTL
    time.sleep(1.2)
    assert climbers_elo() == risen


def test_leaderboard_cache_keeps_each_page_and_host_apart(anon, player, other_player):
    b0, b1, b2 = (ready_version(make_bot(owner, f"b{i}")) for i, owner in enumerate((player, other_player, player)))
    scored(b2, b1, wins=1)
    scored(b1, b0, wins=1)  # live Elo: b2 above b1 above b0
    first = anon.get("/api/leaderboard/tafl9/?page_size=1").json()
    second = anon.get("/api/leaderboard/tafl9/?page_size=1&page=2").json()
    assert first["results"][0]["bot_name"] == "b2" and second["results"][0]["bot_name"] == "b1"
    assert "testserver" in first["next"]
    other_host = anon.get("/api/leaderboard/tafl9/?page_size=1", HTTP_HOST="localhost").json()
    assert other_host["next"].startswith("http://localhost/")


def test_game_record_is_cached_with_etag_and_answers_304(anon, played):
    game = Game.objects.order_by("id").first()
    url = f"/api/games/{game.pk}/"
    first = anon.get(url)
    assert first["Cache-Control"].startswith("public")
    again = anon.get(url)
    assert again.json() == first.json() and again["ETag"] == first["ETag"]
    assert anon.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304


def test_cached_record_follows_a_bot_rename(anon, played, django_capture_on_commit_callbacks):
    game = Game.objects.select_related("white__bot").order_by("id").first()
    url = f"/api/games/{game.pk}/"
    before = anon.get(url)
    with django_capture_on_commit_callbacks(execute=True):
        update_bot(game.white.bot, name="renamed")
    after = anon.get(url)
    assert after.json()["white"]["bot_name"] == "renamed"
    assert after["ETag"] != before["ETag"]
    assert anon.get(url, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 200


def test_cached_record_of_a_bot_made_private_is_not_served_to_others(player, other_player, played,
                                                                     django_capture_on_commit_callbacks):
    game = Game.objects.select_related("white__bot").order_by("id").first()
    url = f"/api/games/{game.pk}/"
    stranger = client_for(None)
    assert stranger.get(url).status_code == 200  # now cached
    with django_capture_on_commit_callbacks(execute=True):
        update_bot(game.white.bot, is_public=False)
    assert stranger.get(url).status_code == 404
    owner = client_for(game.white.bot.owner)
    assert owner.get(url).status_code == 200


def test_private_game_record_is_never_cached(player, other_player):
    mine = ready_version(make_bot(player, "secret", is_public=False))
    theirs = ready_version(make_bot(other_player, "open"))
    finished_match(mine, theirs, games=1)
    game = Game.objects.get()
    response = client_for(player).get(f"/api/games/{game.pk}/")
    assert response.status_code == 200 and response["Cache-Control"] == "private, no-cache"
    assert public._lookup(f"record:{game.pk}")[1] is None
    assert client_for(other_player).get(f"/api/games/{game.pk}/").status_code == 404
    assert client_for(None).get(f"/api/games/{game.pk}/").status_code == 404


# --- the public page cache (api.public) ----------------------------------------------------------


def _public_urls(played) -> list[str]:
    a, _ = played
    game = Game.objects.order_by("id").first()
    return ["/api/leaderboard/tafl9/", f"/api/bots/{a.bot_id}/", "/api/matches/", f"/api/matches/?bot={a.bot_id}",
            "/api/games/", f"/api/games/{game.pk}/", f"/api/bots/{a.bot_id}/rating-history/"]


def test_a_kept_page_is_answered_without_a_query_and_byte_for_byte(anon, played, django_assert_num_queries):
    from tournaments.services.ratings import recompute_ratings

    recompute_ratings(history=True)
    for url in _public_urls(played):
        first = anon.get(url)
        assert first.status_code == 200, url
        with django_assert_num_queries(0):
            again = anon.get(url)
        assert again.content == first.content and again["Content-Type"] == first["Content-Type"], url


def test_anonymous_lists_lag_at_most_the_ttl_and_players_see_them_fresh(anon, player, played, monkeypatch):
    monkeypatch.setattr(public, "LIVE_SECONDS", 1)
    a, b = played
    before = len(anon.get("/api/matches/?page_size=100").json()["results"])
    finished_match(a, b, games=1)
    assert len(anon.get("/api/matches/?page_size=100").json()["results"]) == before  # kept
    assert len(client_for(player).get("/api/matches/?page_size=100").json()["results"]) == before + 1
    time.sleep(1.2)
    assert len(anon.get("/api/matches/?page_size=100").json()["results"]) == before + 1


def test_the_owner_and_staff_never_get_the_outsiders_bot_page(player, other_player, admin_user, played):

    a, _ = played
    reason = rejected_version(a.bot).reject_reason  # "init-failed: crash: exit code 3"
    url = f"/api/bots/{a.bot_id}/"
    for outsider in (None, other_player):  # the first keeps the page, the second is served it
        assert reason not in client_for(outsider).get(url).content.decode()
    for insider in (player, admin_user):
        assert reason in client_for(insider).get(url).content.decode()


@pytest.mark.parametrize("via", ["api", "model"])
def test_a_bot_made_private_leaves_every_public_page_at_once(via, anon, player, played,
                                                             django_capture_on_commit_callbacks):
    from tournaments.services.ratings import recompute_ratings

    recompute_ratings(history=True)
    a, _ = played
    bot = a.bot
    urls = _public_urls(played)
    assert all(anon.get(url).status_code == 200 for url in urls)  # all kept now
    with django_capture_on_commit_callbacks(execute=True):
        if via == "api":
            assert client_for(player).patch(f"/api/bots/{bot.pk}/", {"is_public": False},
                                            format="json").status_code == 200
        else:
            bot.is_public = False
            bot.save()  # state: admin (the admin's path)
    assert anon.get(f"/api/bots/{bot.pk}/").status_code == 404
    assert anon.get(f"/api/bots/{bot.pk}/rating-history/").status_code == 404
    assert anon.get(urls[5]).status_code == 404  # a game record with it
    assert bot.pk not in [row["bot"] for row in anon.get("/api/leaderboard/tafl9/").json()["results"]]
    assert anon.get("/api/matches/").json()["results"] == [] and anon.get("/api/games/").json()["results"] == []
    assert client_for(player).get(f"/api/bots/{bot.pk}/").status_code == 200


def test_the_browsable_api_and_indented_json_are_rendered_each_time(anon, played):
    url = _public_urls(played)[1]
    html = anon.get(url, HTTP_ACCEPT="text/html")
    assert html.status_code == 200 and html["Content-Type"].startswith("text/html")
    indented = anon.get(url, HTTP_ACCEPT="application/json; indent=2")
    assert indented.content.startswith(b"{\n  ")
    plain = anon.get(url)
    assert plain["Content-Type"] == "application/json" and plain.content.startswith(b'{"id":')
    assert anon.get(url, HTTP_ACCEPT="application/json; indent=2").content == indented.content


def test_errors_are_not_kept(anon, played, player):
    from tournaments.models import Bot

    assert anon.get("/api/bots/999999/").status_code == 404
    a, _ = played
    assert anon.get("/api/matches/?game=chess").status_code == 400
    assert anon.get("/api/matches/?game=chess").status_code == 400
    assert anon.get(f"/api/bots/{a.bot_id}/").status_code == 200
    hidden = make_bot(player, "hidden", is_public=False)
    url = f"/api/bots/{hidden.pk}/"
    assert anon.get(url).status_code == 404
    Bot.objects.filter(pk=hidden.pk).update(is_public=True)  # state: unsignalled (no new generation either)
    assert anon.get(url).status_code == 200  # so the 404 was not kept


@pytest.fixture
def redis_cache(settings):
    """The cache a deployment runs (CACHE_URL): the machine's Redis on loopback, keys under a prefix of their own."""
    import os
    import uuid

    import redis

    url = "redis://127.0.0.1:6379/13"
    server = redis.Redis.from_url(url)
    try:
        server.ping()
    except redis.exceptions.ConnectionError as error:
        if os.environ.get("CI"):
            pytest.fail(f"CI must test the cache on Redis: {error}")
        pytest.skip(f"no Redis on 127.0.0.1:6379: {error}")
    prefix = f"arena-test-{uuid.uuid4().hex}"
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url,
                                   "KEY_PREFIX": prefix}}
    yield
    for key in server.scan_iter(f"{prefix}:*"):
        server.delete(key)


def test_pages_are_kept_and_forgotten_in_redis(redis_cache, anon, played, django_assert_num_queries,
                                               django_capture_on_commit_callbacks):
    from django.core.cache import cache

    assert type(cache._cache).__name__ == "RedisCacheClient"
    a, _ = played
    url = f"/api/bots/{a.bot_id}/"
    assert anon.get(url).json()["name"] == "alpha"
    with django_assert_num_queries(0):
        assert anon.get(url).json()["name"] == "alpha"
    with django_capture_on_commit_callbacks(execute=True):
        update_bot(a.bot, name="renamed")
    assert anon.get(url).json()["name"] == "renamed"


def test_pages_are_built_as_asked_for_when_the_cache_is_down(anon, played, caplog):
    import socket

    from django.test import override_settings

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dead = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                        "LOCATION": f"redis://127.0.0.1:{port}/0"}}
    a, _ = played
    with override_settings(CACHES=dead):
        for url in _public_urls(played):
            assert anon.get(url).status_code == 200, url
        assert anon.get(f"/api/bots/{a.bot_id}/").json()["name"] == "alpha"
    assert "the cache does not answer" in caplog.text


def test_the_deploy_check_asks_for_a_shared_cache(settings):
    from tournaments.checks import shared_cache

    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    assert [w.id for w in shared_cache(None)] == ["arena.W001"]
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:6379/13"}}
    assert shared_cache(None) == []
