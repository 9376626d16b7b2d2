"""Exports: a tournament's records as a zip of record.txt, the dataset export of public games (filters, privacy,
throttle)."""

from __future__ import annotations

import io
import json
import zipfile

from tournaments.models import Game
from tournaments.services import create_tournament

from .conftest import finished_match, make_bot, ready_version, throttle_rates


def _tournament_match(player, a, b):
    tournament = create_tournament(player, name="Cup", game="tafl9", time_control="move:1000")
    return tournament, finished_match(a, b, tournament=tournament, round_number=1)


def _lines(response) -> list[dict]:
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


def test_a_tournaments_records_come_as_one_zip(anon, player, other_player):
    a, b = ready_version(make_bot(player, "ann")), ready_version(make_bot(other_player, "bob"))
    tournament, match = _tournament_match(player, a, b)
    response = anon.get(f"/api/tournaments/{tournament.pk}/records.zip")
    assert response.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    games = list(Game.objects.filter(match=match).order_by("number"))
    assert archive.namelist() == [f"{game.pk}/record.txt" for game in games]
    text = archive.read(f"{games[0].pk}/record.txt").decode()
    assert '[White "ann v1"]' in text and text.rstrip().endswith("1-0")
    assert anon.get("/api/tournaments/999999/records.zip").status_code == 404


def test_dataset_export_filters_public_games_and_strips_bot_texts(anon, player, other_player):
    a, b = ready_version(make_bot(player, "ann")), ready_version(make_bot(other_player, "bob"))
    hidden = ready_version(make_bot(other_player, "hid", is_public=False))
    tournament = create_tournament(player, name="Cup", game="tafl9", time_control="move:1000")
    match = finished_match(a, b, tournament=tournament, round_number=1,
                           also={"stderr": {"white": "secret"}, "log": ["secret"]})
    finished_match(a, hidden)  # a private bot's games are never exported
    other = finished_match(b, a)
    body = _lines(anon.get("/api/games/export.jsonl"))
    assert [line["match"] for line in body] == [match.pk, match.pk, other.pk, other.pk]
    assert {line["schema"] for line in body} == {"arena-games/1"}
    assert "secret" not in json.dumps(body)
    picked = _lines(anon.get(f"/api/games/export.jsonl?tournament={tournament.pk}&game=tafl9&ruleset={match.ruleset}"))
    assert [(line["match"], line["tournament"]) for line in picked] == [(match.pk, tournament.pk)] * 2
    assert _lines(anon.get(f"/api/games/export.jsonl?bot={b.bot_id}&ruleset=other")) == []
    for query, field in (("game=chess", "game"), ("tournament=x", "tournament"), ("colour=white", "colour"),
                         ("created_after=yesterday", "created_after")):
        refused = anon.get(f"/api/games/export.jsonl?{query}")
        assert refused.status_code == 400 and field in refused.json(), (query, refused.content)


def test_exports_share_one_throttle(anon, player, other_player, settings):
    a, b = ready_version(make_bot(player, "ann")), ready_version(make_bot(other_player, "bob"))
    tournament, _ = _tournament_match(player, a, b)
    throttle_rates(settings, exports="2/hour")
    assert anon.get("/api/games/export.jsonl").status_code == 200
    assert anon.get(f"/api/tournaments/{tournament.pk}/records.zip").status_code == 200
    refused = anon.get("/api/games/export.jsonl")
    assert refused.status_code == 429 and "exports" in str(refused.json()["detail"])
    assert anon.get(f"/tournaments/{tournament.pk}/records.zip").status_code == 429
