"""Uploads and writes are throttled per user and scope; reads are not."""

from __future__ import annotations

from tests.support import make_bot, throttle_rates
from tournaments.models import Bot, BotVersion

from .conftest import bot_upload


def test_uploads_are_throttled_and_the_refused_one_stores_nothing(ada, player, settings):
    throttle_rates(settings, uploads="2/hour", writes="100/hour")
    bot = make_bot(player, "ragnar")
    codes = [ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart").status_code
             for _ in range(3)]
    assert codes == [201, 201, 429]
    assert BotVersion.objects.count() == 2
    # Reads of the same endpoint stay free.
    assert all(ada.get(f"/api/bots/{bot.pk}/versions/").status_code == 200 for _ in range(5))


def test_writes_are_throttled_per_user(ada, grace, db, settings):
    throttle_rates(settings, uploads="100/hour", writes="2/hour")
    codes = [ada.post("/api/bots/", {"name": f"b{i}", "game": "tafl9"}, format="json").status_code for i in range(3)]
    assert codes == [201, 201, 429]
    assert "detail" in ada.post("/api/bots/", {"name": "x", "game": "tafl9"}, format="json").json()
    assert grace.post("/api/bots/", {"name": "g", "game": "tafl9"}, format="json").status_code == 201
    assert Bot.objects.count() == 3


def test_writes_go_on_uncounted_when_the_cache_is_down(ada, db, settings, caplog):
    import socket

    from django.test import override_settings

    throttle_rates(settings, uploads="1/hour", writes="1/hour")
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dead = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                        "LOCATION": f"redis://127.0.0.1:{port}/0"}}
    with override_settings(CACHES=dead):
        codes = [ada.post("/api/bots/", {"name": f"b{i}", "game": "tafl9"}, format="json").status_code
                 for i in range(2)]
    assert codes == [201, 201] and Bot.objects.count() == 2
    assert "the cache does not answer" in caplog.text


# --- every door has the same lock: the site's forms count in the API's throttles --------------------------

def site_for(user=None):
    from django.test import Client

    browser = Client()
    if user is not None:
        browser.force_login(user)
    return browser


def test_uploads_through_the_site_and_the_api_share_one_count(ada, player, settings):
    throttle_rates(settings, uploads="2/hour")
    bot = make_bot(player, "ragnar")
    site = site_for(player)
    assert ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart").status_code == 201
    assert site.post(f"/bots/{bot.pk}/", {"file": bot_upload()}).status_code == 302
    refused = site.post(f"/bots/{bot.pk}/", {"file": bot_upload()})
    assert refused.status_code == 429
    # Beside the form, the limit and the use.
    assert "too many uploads requests: the limit is 2 per hour and this account has made 2" in \
        refused.content.decode()
    answer = ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert answer.status_code == 429 and "the limit is 2 per hour" in str(answer.json())
    assert answer.headers["Retry-After"]
    assert BotVersion.objects.count() == 2  # the refused ones stored nothing


def test_registration_through_the_site_is_throttled_per_address(anon, db, settings):
    from django.contrib.auth import get_user_model

    throttle_rates(settings, registration="3/hour")
    codes = [site_for().post("/account/register/", {"username": f"lin{i}", "password": "a-long-pass-42"}).status_code
             for i in range(2)]
    codes.append(anon.post("/api/auth/register/", {"username": "lin2", "password": "a-long-pass-42"}).status_code)
    refused = site_for().post("/account/register/", {"username": "lin3", "password": "a-long-pass-42"})
    assert codes == [302, 302, 201] and refused.status_code == 429
    assert "the limit is 3 per hour and this address has made 3" in refused.content.decode()
    assert anon.post("/api/auth/register/", {"username": "lin4", "password": "a-long-pass-42"}).status_code == 429
    assert sorted(get_user_model().objects.values_list("username", flat=True)) == ["lin0", "lin1", "lin2"]
    # Another address is counted apart.
    assert site_for().post("/account/register/", {"username": "lin5", "password": "a-long-pass-42"},
                           REMOTE_ADDR="198.51.100.9").status_code == 302


def test_tournament_creation_through_the_site_and_the_api_share_one_count(ada, player, settings):
    from tournaments.models import Tournament

    throttle_rates(settings, tournaments="1/hour")
    form = {"name": "Yule cup", "game": "tafl9", "games_per_pairing": 2, "time_control": ""}
    assert site_for(player).post("/tournaments/new/", form).status_code == 302
    assert site_for(player).post("/tournaments/new/", form).status_code == 429
    assert ada.post("/api/tournaments/", {"name": "Yule cup 2", "game": "tafl9"}, format="json").status_code == 429
    assert Tournament.objects.count() == 1


def test_site_logins_are_throttled_per_address(player, settings):
    throttle_rates(settings, login="2/hour")
    codes = [site_for().post("/account/login/", {"username": "nobody", "password": "x"}).status_code
             for _ in range(3)]
    assert codes == [200, 200, 429]
    # Throttled before the password is looked at: even the right one waits, and the refusal says why.
    refused = site_for().post("/account/login/", {"username": "ada", "password": "lovelace-1815"})
    assert refused.status_code == 429 and "the limit is 2 per hour" in refused.content.decode()
