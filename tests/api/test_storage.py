"""Each player's storage quota (issue 18): refused past it with the quota, the upload's size and the current
use named, in the API and beside the site's form, nothing kept; the player sees their use, nobody else does."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.support import RANDOM_BOT, make_bot
from tournaments.models import BotVersion

from .conftest import bot_upload, client_for

pytestmark = pytest.mark.django_db

QUOTA = len(RANDOM_BOT) + 10  # room for one version of the test bot, not two


def stored_files(settings) -> list:
    root = settings.MEDIA_ROOT
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


@pytest.fixture
def quota(settings):
    settings.ARENA = {**settings.ARENA, "PLAYER_STORAGE_BYTES": QUOTA}


def test_an_upload_past_the_quota_is_a_400_naming_it_and_keeps_nothing(ada, player, settings, quota):
    first = ada.post(f"/api/bots/{make_bot(player, 'alpha').pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert first.status_code == 201, first.content
    bot = make_bot(player, "beta")
    refused = ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert refused.status_code == 400
    message = refused.json()["file"][0]
    assert f"storage quota of {QUOTA} bytes" in message
    assert f"your versions take {len(RANDOM_BOT)} bytes" in message and f"upload is {len(RANDOM_BOT)} bytes" in message
    assert BotVersion.objects.count() == 1 and len(stored_files(settings)) == 1

    me = ada.get("/api/players/me/").json()
    assert (me["storage_used"], me["storage_quota"]) == (len(RANDOM_BOT), QUOTA)


def test_the_site_refuses_beside_the_form(player, settings, quota):
    alpha, bot = make_bot(player, "alpha"), make_bot(player, "beta")
    client = Client()
    client.force_login(player)
    assert client.post(f"/bots/{alpha.pk}/", {"file": bot_upload()}).status_code == 302
    page = client.post(f"/bots/{bot.pk}/", {"file": bot_upload()})
    assert page.status_code == 400
    assert f"storage quota of {QUOTA} bytes" in page.content.decode()
    assert BotVersion.objects.count() == 1 and len(stored_files(settings)) == 1


def test_only_the_player_sees_their_storage_use(player, other_player, quota):
    client_for(player).post(f"/api/bots/{make_bot(player, 'alpha').pk}/versions/", {"file": bot_upload()},
                            format="multipart")
    own, other = Client(), Client()
    own.force_login(player)
    other.force_login(other_player)
    assert f"({len(RANDOM_BOT)} bytes) of your quota" in own.get("/players/ada/").content.decode()
    assert 'id="storage"' not in other.get("/players/ada/").content.decode()
    assert 'id="storage"' not in Client().get("/players/ada/").content.decode()
    assert "storage_used" not in client_for(other_player).get(f"/api/players/{player.pk}/").json()
