"""Uploads and writes are throttled per user and scope; reads are not."""

from __future__ import annotations

from tournaments.models import Bot, BotVersion

from .conftest import bot_upload, make_bot, throttle_rates


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
