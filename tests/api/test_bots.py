"""Bots and versions: create, edit, upload, visibility, the rejection reason shown to its owner only."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

from tests.support import BOTS, RANDOM_BOT, make_bot, smoke_tested
from tournaments.models import Bot, BotVersion

from .conftest import bot_upload


def test_create_bot(ada, player):
    response = ada.post("/api/bots/", {"name": "ragnar", "game": "tafl9", "description": "first"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["name"], body["game"], body["owner"], body["is_public"]) == ("ragnar", "tafl9", "ada", True)
    assert Bot.objects.get(pk=body["id"]).owner == player


def test_create_bot_rejects_unknown_game_and_changes_nothing(ada, db):
    response = ada.post("/api/bots/", {"name": "x", "game": "chess"}, format="json")
    assert response.status_code == 400
    assert "game" in response.json()
    assert not Bot.objects.exists()


def test_create_bot_rejects_a_duplicate_name(ada, player):
    make_bot(player, "ragnar")
    response = ada.post("/api/bots/", {"name": "ragnar", "game": "tafl9"}, format="json")
    assert response.status_code == 400
    assert "name" in response.json()
    assert Bot.objects.count() == 1


def test_anonymous_cannot_create(anon, db):
    assert anon.post("/api/bots/", {"name": "x", "game": "tafl9"}, format="json").status_code == 401
    assert not Bot.objects.exists()


def test_private_bots_are_hidden_from_others(ada, grace, anon, player):
    secret = make_bot(player, "secret", is_public=False)
    make_bot(player, "open")
    assert {b["name"] for b in ada.get("/api/bots/").json()["results"]} == {"secret", "open"}
    assert {b["name"] for b in grace.get("/api/bots/").json()["results"]} == {"open"}
    assert {b["name"] for b in anon.get("/api/bots/").json()["results"]} == {"open"}
    assert grace.get(f"/api/bots/{secret.pk}/").status_code == 404
    assert ada.get(f"/api/bots/{secret.pk}/").status_code == 200


def test_filter_and_order_bots(anon, player, other_player):
    make_bot(player, "b-tafl")
    make_bot(player, "a-shatra", game="shatra")
    make_bot(other_player, "c-tafl")
    names = [b["name"] for b in anon.get("/api/bots/?game=tafl9&ordering=-name").json()["results"]]
    assert names == ["c-tafl", "b-tafl"]
    mine = anon.get(f"/api/bots/?owner={player.pk}").json()["results"]
    assert {b["name"] for b in mine} == {"b-tafl", "a-shatra"}
    assert anon.get("/api/bots/?game=go").status_code == 400


def test_owner_edits_others_cannot(ada, grace, player):
    bot = make_bot(player, "ragnar")
    assert ada.patch(f"/api/bots/{bot.pk}/", {"description": "new"}, format="json").status_code == 200
    assert grace.patch(f"/api/bots/{bot.pk}/", {"description": "hacked"}, format="json").status_code == 403
    bot.refresh_from_db()
    assert bot.description == "new"


def test_edit_rejects_a_clashing_name(ada, player):
    make_bot(player, "one")
    two = make_bot(player, "two")
    response = ada.patch(f"/api/bots/{two.pk}/", {"name": "one"}, format="json")
    assert response.status_code == 400 and "name" in response.json()
    two.refresh_from_db()
    assert two.name == "two"


def test_upload_a_python_version(ada, player):
    bot = make_bot(player, "ragnar")
    response = ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["number"], body["kind"], body["status"]) == (1, "py", "pending")
    assert len(body["sha256"]) == 64
    assert BotVersion.objects.get(pk=body["id"]).size == len(RANDOM_BOT)


def _zip_bot() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.toml", 'run = "python3 main.py"\n')
        archive.writestr("main.py", RANDOM_BOT)
    return buffer.getvalue()


def _tar_bot() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in (("bot.json", b'{"run": "python3 main.py"}'), ("main.py", RANDOM_BOT)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def test_upload_archives(ada, player):
    bot = make_bot(player, "ragnar")
    zipped = ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload("bot.zip", _zip_bot())},
                      format="multipart")
    assert zipped.status_code == 201, zipped.content
    tarred = ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload("bot.tar.gz", _tar_bot())},
                      format="multipart")
    assert tarred.status_code == 201, tarred.content
    assert [(v["number"], v["kind"]) for v in ada.get(f"/api/bots/{bot.pk}/versions/").json()] == [
        (2, "tar.gz"), (1, "zip")]


@pytest.mark.parametrize(("uploaded", "kept"), [
    ("ragnar-2.zip", "ragnar-2.zip"), ("My Bot (v2).ZIP", "My_Bot__v2.zip"), ("ragnar.tar.gz", "ragnar.tar.gz"),
    ("../../etc/x.tgz", "x.tgz"), ("\u0430\u0000 .zip", "bot.zip"), ("a" * 300 + ".zip", "a" * 100 + ".zip")])
def test_an_uploaded_archive_keeps_its_name_as_a_label(ada, player, uploaded, kept):
    """The owner finds their own file name again (not bot.zip); what a stranger may not put in a name goes."""
    bot = make_bot(player, "ragnar")
    content = _tar_bot() if uploaded.endswith(("gz",)) else _zip_bot()
    response = ada.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload(uploaded, content)}, format="multipart")
    assert response.status_code == 201, response.content
    assert BotVersion.objects.get(bot=bot).filename == kept


def test_an_archive_whose_manifest_names_other_games_is_refused(ada, player):
    def declaring(games: str) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("bot.toml", f'run = "python3 main.py"\ngames = {games}\n')
            archive.writestr("main.py", RANDOM_BOT)
        return buffer.getvalue()

    bot = make_bot(player, "ragnar", game="fidchell-1")
    url = f"/api/bots/{bot.pk}/versions/"
    refused = ada.post(url, {"file": bot_upload("tafl.zip", declaring('["tafl9"]'))}, format="multipart")
    assert refused.status_code == 400 and "manifest says it plays tafl9; this is a fidchell-1 bot" in str(
        refused.json()["file"])
    assert not BotVersion.objects.filter(bot=bot).exists()
    taken = ada.post(url, {"file": bot_upload("f.zip", declaring('["fidchell-1", "fidchell-2"]'))}, format="multipart")
    assert taken.status_code == 201, taken.content


def test_upload_rejects_bad_files_and_stores_nothing(ada, player):
    bot = make_bot(player, "ragnar")
    cases = [
        {"file": bot_upload("bot.exe", b"MZ")},
        {"file": bot_upload("bot.py", b"def broken(:\n")},
        {"file": bot_upload("bot.zip", b"not a zip")},
        {},
    ]
    for data in cases:
        response = ada.post(f"/api/bots/{bot.pk}/versions/", data, format="multipart")
        assert response.status_code == 400, (data, response.content)
        assert "file" in response.json()
    assert not BotVersion.objects.exists()


def test_only_the_owner_uploads(grace, anon, root, player):
    bot = make_bot(player, "ragnar")
    assert grace.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart").status_code == 403
    assert anon.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart").status_code == 401
    assert not BotVersion.objects.exists()
    assert root.post(f"/api/bots/{bot.pk}/versions/", {"file": bot_upload()}, format="multipart").status_code == 201


def test_rejection_reason_is_shown_to_the_owner_only(ada, grace, root, anon, player):
    bot = make_bot(player, "ragnar")
    crash = bot_upload(content=(BOTS / "crash_bot.py").read_bytes())
    version_id = ada.post(f"/api/bots/{bot.pk}/versions/", {"file": crash}, format="multipart").json()["id"]
    reason = smoke_tested(version_id).reject_reason  # the crash bot: "init-failed: crash ..."
    assert reason.startswith("init-failed")
    assert ada.get(f"/api/versions/{version_id}/").json()["reject_reason"] == reason
    assert root.get(f"/api/versions/{version_id}/").json()["reject_reason"] == reason
    for other in (grace, anon):
        body = other.get(f"/api/versions/{version_id}/").json()
        assert body["status"] == "rejected" and body["reject_reason"] == ""


def test_versions_of_private_bots_are_hidden(grace, player):
    bot = make_bot(player, "secret", is_public=False)
    from tests.support import ready_version

    version = ready_version(bot)
    assert grace.get(f"/api/versions/{version.pk}/").status_code == 404
    assert grace.get(f"/api/bots/{bot.pk}/versions/").status_code == 404


def test_bot_page_shows_versions_and_rating(anon, player, other_player):
    from ratings.models import Rating
    from tests.support import finished_match, ready_version

    bot = make_bot(player, "ragnar")
    finished_match(ready_version(bot), ready_version(make_bot(other_player, "sigurd")), ["white", "none", "white"])
    rating = Rating.objects.get(bot=bot)
    assert (rating.games, rating.wins, rating.draws, rating.losses) == (3, 2, 1, 0) and rating.elo > 1500
    body = anon.get(f"/api/bots/{bot.pk}/").json()
    assert [v["number"] for v in body["versions"]] == [1]
    assert body["rating"]["elo"] == pytest.approx(rating.elo, abs=0.05)
