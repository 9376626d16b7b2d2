"""Match requests, cursor pages of matches and games, game records as JSON and as text."""

from __future__ import annotations

from engines import get_game
from engines.core import other
from tests.support import finished_match, make_bot, ready_version
from tournaments.models import Match
from tournaments.services import create_match, set_version_disabled

from .conftest import bot_upload


def test_request_a_casual_match(ada, versions):
    mine, theirs = versions
    response = ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["rated"], body["game"]) == ("queued", False, "tafl9")
    assert body["version_a"]["id"] == mine.pk and body["version_b"]["bot_name"] == "beta"


def test_request_a_casual_match_with_settings(ada, versions):
    # A challenge is never rated (issue 9): ranked play is the ladder's; see test_fair_play for the refusal.
    mine, theirs = versions
    response = ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk,
                                          "games_per_match": 4, "time_control": "clock:60000+500"}, format="json")
    assert response.status_code == 201, response.content
    match = Match.objects.get(pk=response.json()["id"])
    assert (match.rated, match.games_per_match, match.time_control) == (False, 4, "clock:60000+500")


def test_match_request_refusals_change_nothing(ada, player, other_player, versions):
    mine, theirs = versions
    private = ready_version(make_bot(other_player, "hidden", is_public=False))
    pending = ada.post(f"/api/bots/{mine.bot_id}/versions/", {"file": bot_upload()}, format="multipart").json()["id"]
    shatra = ready_version(make_bot(player, "khan", game="shatra"))
    cases = [
        ({"version_a": theirs.pk, "version_b": mine.pk}, "version_a"),  # not my version
        ({"version_a": mine.pk, "version_b": private.pk}, "version_b"),  # someone's private bot
        ({"version_a": mine.pk, "version_b": 999999}, "version_b"),
        ({"version_a": mine.pk, "version_b": mine.pk}, "version_b"),
        ({"version_a": pending, "version_b": theirs.pk}, "version_a"),  # not ready
        ({"version_a": shatra.pk, "version_b": theirs.pk}, "version_b"),  # another game
        ({"version_a": mine.pk, "version_b": theirs.pk, "time_control": "fast"}, "time_control"),
        ({"version_a": mine.pk, "version_b": theirs.pk, "games_per_match": 0}, "games_per_match"),
        ({"version_a": mine.pk}, "version_b"),
        ({"version_a": "x", "version_b": theirs.pk}, "version_a"),
    ]
    for data, field in cases:
        response = ada.post("/api/matches/", data, format="json")
        assert response.status_code == 400, (data, response.content)
        assert field in response.json(), (data, response.json())
    assert not Match.objects.exists()


def test_disabled_version_cannot_be_matched(ada, versions):
    mine, theirs = versions
    set_version_disabled(theirs, True)
    response = ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk}, format="json")
    assert response.status_code == 400 and "version_b" in response.json()


def test_matches_come_in_cursor_pages_newest_first(anon, versions):
    mine, theirs = versions
    ids = [finished_match(mine, theirs).pk for _ in range(5)]
    first = anon.get("/api/matches/?page_size=2").json()
    assert [m["id"] for m in first["results"]] == ids[::-1][:2]
    second = anon.get(first["next"]).json()
    assert [m["id"] for m in second["results"]] == ids[::-1][2:4]
    third = anon.get(second["next"]).json()
    assert [m["id"] for m in third["results"]] == ids[:1] and third["next"] is None


def test_match_filters(anon, player, versions):
    mine, theirs = versions
    other = ready_version(make_bot(player, "gamma"))
    played = finished_match(mine, theirs)
    finished_match(theirs, other)
    create_match(mine, other, time_control="move:1000")
    by_bot = anon.get(f"/api/matches/?bot={mine.bot_id}&status=finished").json()["results"]
    assert [m["id"] for m in by_bot] == [played.pk]
    assert len(anon.get("/api/matches/?status=queued").json()["results"]) == 1
    assert anon.get("/api/matches/?status=lost").status_code == 400


def test_matches_of_private_bots_are_hidden(grace, ada, player, other_player):
    secret = ready_version(make_bot(player, "secret", is_public=False))
    rival = ready_version(make_bot(other_player, "rival"))
    match = finished_match(secret, rival)
    assert grace.get("/api/matches/").json()["results"] == []
    assert grace.get(f"/api/matches/{match.pk}/").status_code == 404
    assert [m["id"] for m in ada.get("/api/matches/").json()["results"]] == [match.pk]


def test_match_detail_lists_its_games(anon, versions):
    match = finished_match(*versions, games=2)
    body = anon.get(f"/api/matches/{match.pk}/").json()
    assert [(g["number"], g["winner"]) for g in body["games"]] == [(1, "white"), (2, "black")]
    assert "record" not in body["games"][0]


def test_game_record_json(anon, versions):
    match = finished_match(*versions)
    played = match.games.get(number=1)
    body = anon.get(f"/api/games/{played.pk}/").json()
    assert body["record"]["game"] == "tafl9"
    assert body["record"]["actions"] == played.record["actions"]
    assert anon.get("/api/games/999999/").status_code == 404


def test_game_record_as_text(anon, versions):
    match = finished_match(*versions)
    played = match.games.get(number=1)
    response = anon.get(f"/api/games/{played.pk}/record.txt")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    first, second = played.record["actions"][:2]
    mover = get_game("tafl9").initial().turn  # tafl9's attackers (black) move first
    result = {"white": "1-0", "black": "0-1", "none": "1/2-1/2"}[played.winner]
    assert '[Variant "tafl9"]' in text and '[Game "1"]' in text and '[Event "Challenge"]' in text
    assert '[White "alpha v1"]' in text and '[Black "beta v1"]' in text
    assert f'[Result "{result}"]' in text and f'[Termination "{played.reason}"]' in text
    assert f"1. {mover} {first}\n2. {other(mover)} {second}\n" in text
    assert text.rstrip().endswith(result)


def test_games_cursor_pages_and_filters(anon, versions):
    mine, theirs = versions
    for _ in range(3):
        finished_match(mine, theirs)
    first = anon.get("/api/games/?page_size=4").json()
    assert len(first["results"]) == 4 and first["next"]
    assert len(anon.get(first["next"]).json()["results"]) == 2
    whites = anon.get("/api/games/?winner=white").json()["results"]
    assert len(whites) == 3 and all(g["winner"] == "white" for g in whites)
    assert "record" not in whites[0]
