"""GET /api/tournaments/{id}/games.jsonl: a tournament's games as one download, JSON Lines of public records."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.support import finished_match, make_bot, ready_version
from tournaments.services import create_tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def cup(player, other_player):
    """A tournament with a game of two public bots, and one of Grace's private bot whose records hold stderr."""
    alpha = ready_version(make_bot(player, "alpha"))
    beta = ready_version(make_bot(other_player, "beta"))
    secret = ready_version(make_bot(other_player, "secret", is_public=False))
    tournament = create_tournament(player, name="Cup", game="tafl9")
    public = finished_match(alpha, beta, seed=7, rated=False, tournament=tournament)
    private = finished_match(secret, alpha, seed=8, rated=False, tournament=tournament,
                             also={"stderr": {"white": "SECRET-STDERR", "black": ""}, "log": ["> SECRET-LOG"]})
    return {"tournament": tournament, "public": public, "private": private}


def lines_of(response) -> list[dict]:
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"].startswith("application/jsonl")
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


def test_the_games_a_reader_may_see_as_the_site_gives_them(cup, other_player):
    url = f"/api/tournaments/{cup['tournament'].pk}/games.jsonl"
    anonymous = lines_of(Client().get(url))
    assert [game["match"] for game in anonymous] == [cup["public"].pk] * 2  # the private bot's games left out
    assert anonymous == lines_of(Client().get(f"/tournaments/{cup['tournament'].pk}/games.jsonl"))
    assert anonymous[1] == Client().get(f"/api/games/{anonymous[1]['id']}/").json()
    grace = Client()
    grace.force_login(other_player)  # the private bot's owner: its games, but the public record only
    body = b"".join(grace.get(url).streaming_content).decode()
    assert {json.loads(line)["match"] for line in body.splitlines()} == {cup["public"].pk, cup["private"].pk}
    assert "SECRET" not in body


def test_unknown_parameters_missing_tournaments_and_writes_are_refused(cup):
    url = f"/api/tournaments/{cup['tournament'].pk}/games.jsonl"
    refused = Client().get(url + "?round=1")
    assert refused.status_code == 400 and "unknown query parameter" in refused.json()["round"][0]
    assert Client().get("/api/tournaments/999999/games.jsonl").status_code == 404
    assert Client().post(url).status_code == 401
    assert Client().get("/api/tournaments/999999/games.jsonl", HTTP_ACCEPT="application/jsonl").json()["detail"]


def test_the_file_may_be_asked_for_by_its_media_type(cup):
    url = f"/api/tournaments/{cup['tournament'].pk}/games.jsonl"
    assert len(lines_of(Client().get(url, HTTP_ACCEPT="application/jsonl"))) == 2
