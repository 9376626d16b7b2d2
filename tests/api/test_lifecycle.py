"""A bot's whole life in its owner's hands (staff too): retire it and bring it back, pin the version that plays,
deactivate a version, delete a bot that never played a rated game, download one's own upload. Every refusal is
a 4xx naming the problem and changes nothing."""

from __future__ import annotations

import pytest
from django.core.files.storage import default_storage

from ratings.models import Rating
from tests.support import finished_match, make_bot, ready_version
from tournaments.models import Bot, BotVersion, Game, Match
from tournaments.services import create_match, create_tournament, upload_version
from workers.ladder import fill_ladder, ladder_pool

from .conftest import bot_upload, client_for


def pool_versions(game: str = "tafl9") -> set[int]:
    return {entrant.version_id for entrant in ladder_pool(game)}


def state(*rows) -> list[dict]:
    """Every column of the rows, to show that a refused request changed nothing."""
    return [type(row).objects.filter(pk=row.pk).values().get() for row in rows]


# --- retire -----------------------------------------------------------------------------------------


def test_a_retired_bot_leaves_the_ladder_and_the_leaderboard_and_comes_back(ada, anon, versions,
                                                                           django_capture_on_commit_callbacks):
    mine, theirs = versions
    finished_match(mine, theirs, ["white", "black"])  # rated games, both won by mine: they stay
    rating = Rating.objects.get(bot=mine.bot, game="tafl9").elo
    queued = create_match(mine, theirs, games=2)  # a ladder match waiting for a worker
    board = "/api/leaderboard/tafl9/"
    assert [row["bot"] for row in anon.get(board).json()["results"]] == [mine.bot_id, theirs.bot_id]  # kept
    assert anon.get(f"/api/bots/{mine.bot_id}/").json()["is_retired"] is False  # kept

    with django_capture_on_commit_callbacks(execute=True):
        response = ada.patch(f"/api/bots/{mine.bot_id}/", {"is_retired": True}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["is_retired"] is True
    # the kept public pages are renewed at once
    assert [row["bot"] for row in anon.get(board).json()["results"]] == [theirs.bot_id]
    page = anon.get(f"/api/bots/{mine.bot_id}/").json()
    assert page["is_retired"] is True and page["rating"]["elo"] == rating > 1500  # its rating stays
    assert pool_versions() == {theirs.pk}
    assert fill_ladder("tafl9") == []
    queued.refresh_from_db()
    assert queued.status == Match.Status.CANCELLED and "retired" in queued.failure_reason
    assert Game.objects.filter(white=mine).count() == 1  # its games stay
    # nobody may pair it any more
    challenge = client_for(theirs.bot.owner).post(
        "/api/matches/", {"version_a": theirs.pk, "version_b": mine.pk}, format="json")
    assert challenge.status_code == 400 and "retired" in str(challenge.json()["version_b"])

    with django_capture_on_commit_callbacks(execute=True):
        assert ada.patch(f"/api/bots/{mine.bot_id}/", {"is_retired": False}, format="json").status_code == 200
    assert [row["bot"] for row in anon.get(board).json()["results"]] == [mine.bot_id, theirs.bot_id]
    assert pool_versions() == {mine.pk, theirs.pk}


def test_a_retired_bot_still_plays_what_a_tournament_scheduled(ada, player, versions):
    from tournaments.services import add_entrant, start_tournament

    mine, theirs = versions
    tournament = create_tournament(player, name="cup", game="tafl9", games_per_pairing=2, double_round=False)
    add_entrant(tournament, mine)
    add_entrant(tournament, theirs)
    start_tournament(tournament)
    assert ada.patch(f"/api/bots/{mine.bot_id}/", {"is_retired": True}, format="json").status_code == 200
    assert list(tournament.matches.values_list("status", flat=True)) == [Match.Status.QUEUED]


def test_only_the_owner_or_staff_retire_a_bot(grace, anon, root, versions):
    mine, _ = versions
    before = state(mine.bot)
    assert grace.patch(f"/api/bots/{mine.bot_id}/", {"is_retired": True}, format="json").status_code == 403
    assert anon.patch(f"/api/bots/{mine.bot_id}/", {"is_retired": True}, format="json").status_code == 401
    assert state(mine.bot) == before
    assert root.patch(f"/api/bots/{mine.bot_id}/", {"is_retired": True}, format="json").status_code == 200
    assert Bot.objects.get(pk=mine.bot_id).is_retired


@pytest.mark.parametrize("body, field", [
    ({"is_retired": "perhaps"}, "is_retired"),
    ({"is_retierd": True}, "is_retierd"),  # a misspelt field is refused, not ignored
    ({"is_retired": True, "pinned_version": "one"}, "pinned_version"),
    ({"pinned_version": 0}, "pinned_version"),
    ({"pinned_version": 2**63}, "pinned_version"),
    ({"name": "ok-name", "pinned_version": 999999}, "pinned_version"),
])
def test_malformed_bot_changes_are_refused_and_change_nothing(ada, versions, body, field):
    mine, _ = versions
    before = state(mine.bot)
    response = ada.patch(f"/api/bots/{mine.bot_id}/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert state(mine.bot) == before


# --- pin --------------------------------------------------------------------------------------------


def test_the_pinned_version_plays_on_the_ladder_and_null_means_the_newest(ada, anon, versions,
                                                                          django_capture_on_commit_callbacks):
    first, theirs = versions
    second = ready_version(first.bot)
    assert pool_versions() == {second.pk, theirs.pk}  # the newest ready one
    queued = create_match(second, theirs, games=2)
    assert anon.get(f"/api/bots/{first.bot_id}/").json()["pinned_version"] is None  # kept
    with django_capture_on_commit_callbacks(execute=True):
        response = ada.patch(f"/api/bots/{first.bot_id}/", {"pinned_version": first.pk}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["pinned_version"] == first.pk
    assert anon.get(f"/api/bots/{first.bot_id}/").json()["pinned_version"] == first.pk  # renewed
    assert pool_versions() == {first.pk, theirs.pk}
    queued.refresh_from_db()
    assert queued.status == Match.Status.CANCELLED  # the unpinned version's queued ladder match
    assert ada.patch(f"/api/bots/{first.bot_id}/", {"pinned_version": None}, format="json").json()[
        "pinned_version"] is None
    assert pool_versions() == {second.pk, theirs.pk}


def test_only_a_playable_version_of_the_bot_itself_can_be_pinned(ada, player, versions):
    mine, theirs = versions
    pending = upload_version(mine.bot, bot_upload())
    other_bot = ready_version(make_bot(player, "other"))
    before = state(mine.bot)
    for version_id, words in ((theirs.pk, "no version"), (other_bot.pk, "no version"), (pending.pk, "pending")):
        response = ada.patch(f"/api/bots/{mine.bot_id}/", {"pinned_version": version_id}, format="json")
        assert response.status_code == 400
        assert words in str(response.json()["pinned_version"])
        assert state(mine.bot) == before


def test_a_refused_pin_undoes_the_other_changes_of_the_request(ada, versions):
    mine, theirs = versions
    before = state(mine.bot)
    response = ada.patch(f"/api/bots/{mine.bot_id}/", {"name": "renamed", "is_retired": True,
                                                       "pinned_version": theirs.pk}, format="json")
    assert response.status_code == 400
    assert state(mine.bot) == before


# --- deactivate a version ---------------------------------------------------------------------------


def test_a_deactivated_version_is_not_paired_and_stops_being_pinned(ada, anon, versions,
                                                                    django_capture_on_commit_callbacks):
    first, theirs = versions
    second = ready_version(first.bot)
    ada.patch(f"/api/bots/{first.bot_id}/", {"pinned_version": second.pk}, format="json")
    queued = create_match(second, theirs, games=2)
    assert anon.get(f"/api/bots/{first.bot_id}/").json()["versions"][0]["is_active"] is True  # kept
    with django_capture_on_commit_callbacks(execute=True):
        response = ada.patch(f"/api/versions/{second.pk}/", {"is_active": False}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["is_active"] is False
    page = anon.get(f"/api/bots/{first.bot_id}/").json()  # renewed at once
    assert page["versions"][0]["is_active"] is False and page["pinned_version"] is None
    assert pool_versions() == {first.pk, theirs.pk}  # the bot falls back to its newest active version
    queued.refresh_from_db()
    assert queued.status == Match.Status.CANCELLED
    challenge = client_for(theirs.bot.owner).post(
        "/api/matches/", {"version_a": theirs.pk, "version_b": second.pk}, format="json")
    assert challenge.status_code == 400 and "deactivated" in str(challenge.json()["version_b"])
    assert ada.patch(f"/api/versions/{second.pk}/", {"is_active": True}, format="json").status_code == 200
    assert pool_versions() == {second.pk, theirs.pk}


def test_a_patch_of_a_version_without_its_switch_changes_nothing(ada, versions):
    mine, _ = versions
    before = state(mine)
    response = ada.patch(f"/api/versions/{mine.pk}/", {}, format="json")  # the schema lets is_active be left out
    assert response.status_code == 200, response.content
    assert response.json()["is_active"] is True
    assert state(mine) == before
    assert ada.patch(f"/api/versions/{mine.pk}/", {"is_actve": False}, format="json").status_code == 400


def test_only_the_owner_or_staff_deactivate_a_version(grace, anon, root, player, versions):
    mine, _ = versions
    secret = ready_version(make_bot(player, "secret", is_public=False))
    before = state(mine, secret)
    assert grace.patch(f"/api/versions/{mine.pk}/", {"is_active": False}, format="json").status_code == 403
    assert grace.patch(f"/api/versions/{secret.pk}/", {"is_active": False}, format="json").status_code == 404
    assert anon.patch(f"/api/versions/{mine.pk}/", {"is_active": False}, format="json").status_code == 401
    assert grace.put(f"/api/versions/{mine.pk}/", {"is_active": False}, format="json").status_code == 405
    assert state(mine, secret) == before
    assert root.patch(f"/api/versions/{secret.pk}/", {"is_active": False}, format="json").status_code == 200


@pytest.mark.parametrize("body, field", [  # (an empty body changes nothing, as for a bot: above)
    ({"is_active": "sometimes"}, "is_active"),
    ({"is_active": None}, "is_active"),
    ({"is_active": False, "is_disabled": False}, "is_disabled"),  # the operator's switch is not the owner's
    ({"is_active": False, "status": "ready"}, "status"),
])
def test_malformed_version_changes_are_refused_and_change_nothing(ada, versions, body, field):
    mine, _ = versions
    before = state(mine)
    response = ada.patch(f"/api/versions/{mine.pk}/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert state(mine) == before


# --- delete -----------------------------------------------------------------------------------------


def test_a_bot_that_never_played_a_rated_game_is_deleted_with_its_files_and_unrated_matches(
        ada, anon, versions, django_capture_on_commit_callbacks):
    mine, theirs = versions
    finished_match(mine, theirs, games=2, rated=False)  # a challenge
    queued = create_match(theirs, mine, games=2)  # a ladder match never played
    stored = [name for name in (mine.file.name, mine.original.name) if name]
    assert len(stored) == 1 and default_storage.exists(stored[0])  # the upload, stored once
    assert anon.get(f"/api/bots/{mine.bot_id}/").status_code == 200  # kept
    with django_capture_on_commit_callbacks(execute=True):
        response = ada.delete(f"/api/bots/{mine.bot_id}/")
    assert response.status_code == 204, response.content
    assert not Bot.objects.filter(pk=mine.bot_id).exists()
    assert not BotVersion.objects.filter(pk=mine.pk).exists()
    assert not Match.objects.filter(pk=queued.pk).exists() and not Game.objects.exists()
    assert not any(default_storage.exists(name) for name in stored)
    assert anon.get(f"/api/bots/{mine.bot_id}/").status_code == 404  # the kept page is forgotten
    assert Bot.objects.filter(pk=theirs.bot_id).exists()


def test_a_bot_with_rated_games_is_kept_and_the_answer_says_retire_it(ada, versions):
    mine, theirs = versions
    finished_match(mine, theirs, games=2, rated=True)
    before = state(mine.bot, mine)
    response = ada.delete(f"/api/bots/{mine.bot_id}/")
    assert response.status_code == 400
    assert "rated games" in str(response.json()) and "retire" in str(response.json())
    assert state(mine.bot, mine) == before and Game.objects.count() == 2
    assert default_storage.exists(mine.original.name)


def test_a_bot_entered_in_a_tournament_is_kept(ada, player, versions):
    from tournaments.services import add_entrant

    mine, _ = versions
    tournament = create_tournament(player, name="cup", game="tafl9")
    add_entrant(tournament, mine)
    response = ada.delete(f"/api/bots/{mine.bot_id}/")
    assert response.status_code == 400 and "cup" in str(response.json())
    assert Bot.objects.filter(pk=mine.bot_id).exists()


def test_only_the_owner_or_staff_delete_a_bot(grace, anon, root, player, versions):
    mine, _ = versions
    secret = make_bot(player, "secret", is_public=False)
    assert grace.delete(f"/api/bots/{mine.bot_id}/").status_code == 403
    assert grace.delete(f"/api/bots/{secret.pk}/").status_code == 404
    assert anon.delete(f"/api/bots/{mine.bot_id}/").status_code == 401
    assert Bot.objects.filter(pk__in=[mine.bot_id, secret.pk]).count() == 2
    assert root.delete(f"/api/bots/{secret.pk}/").status_code == 204


# --- download ---------------------------------------------------------------------------------------


def test_the_owner_downloads_exactly_what_they_uploaded(ada, root, player):
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.toml", 'run = "python3 main.py"\n')
        archive.writestr("main.py", "print('hello')\n")
    bot = make_bot(player, "zipped")
    version = upload_version(bot, bot_upload("mine.zip", buffer.getvalue()))
    for client in (ada, root):
        response = client.get(f"/api/versions/{version.pk}/download/")
        assert response.status_code == 200
        assert b"".join(response.streaming_content) == buffer.getvalue()
        assert response["Content-Type"] == "application/octet-stream"
        assert response["Content-Disposition"] == 'attachment; filename="mine.zip"'  # its owner's name


def test_nobody_else_downloads_a_bot(grace, anon, player, versions):
    mine, _ = versions
    secret = ready_version(make_bot(player, "secret", is_public=False))
    assert grace.get(f"/api/versions/{mine.pk}/download/").status_code == 403
    assert anon.get(f"/api/versions/{mine.pk}/download/").status_code == 403
    assert grace.get(f"/api/versions/{secret.pk}/download/").status_code == 404
    assert grace.get("/api/versions/99999999/download/").status_code == 404


def test_a_version_stored_before_originals_were_kept_says_there_is_nothing_to_download(ada, versions):
    mine, _ = versions
    default_storage.delete(mine.original.name)
    BotVersion.objects.filter(pk=mine.pk).update(original="")  # state: damaged (as every version uploaded before)
    response = ada.get(f"/api/versions/{mine.pk}/download/")
    assert response.status_code == 404
    assert "uploaded before" in str(response.json()["detail"])


def test_the_worker_runs_only_the_original_that_was_checked(versions, settings):
    """The one stored copy is the upload: the worker reads it only while its checksum is the upload's."""
    from runner.bots import BadBot
    from tournaments.referee import bot_directory

    mine, _ = versions
    with mine.original.open("wb") as original:  # changed in storage since it was checked
        original.write(b"raise SystemExit('a changed original was run')\n")
    with pytest.raises(BadBot, match="does not match its checksum"):
        bot_directory(mine)
    cache = settings.ARENA["BOT_CACHE_DIR"]
    assert not cache.exists() or not any(cache.iterdir())


def test_a_download_asked_for_as_a_file_is_answered(ada, grace, versions):
    mine, _ = versions
    url = f"/api/versions/{mine.pk}/download/"
    response = ada.get(url, HTTP_ACCEPT="application/octet-stream")
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == mine.original.open("rb").read()
    refused = grace.get(url, HTTP_ACCEPT="application/octet-stream")
    assert refused.status_code == 403 and b"owner" in refused.content


def test_the_kept_bot_page_shows_a_deactivation_at_once(ada, anon, versions, django_capture_on_commit_callbacks):
    """Only the version row changes (it was not pinned): that alone renews the kept public pages."""
    mine, _ = versions
    url = f"/api/bots/{mine.bot_id}/"
    assert anon.get(url).json()["versions"][0]["is_active"] is True  # kept for LIVE_SECONDS
    with django_capture_on_commit_callbacks(execute=True):
        assert ada.patch(f"/api/versions/{mine.pk}/", {"is_active": False}, format="json").status_code == 200
    assert anon.get(url).json()["versions"][0]["is_active"] is False
