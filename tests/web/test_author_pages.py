"""What a bot author does through the API, done from the pages: see and replace the API token, challenge a bot
from its page, download a tournament's games. Through Django's test client, against the real database."""

from __future__ import annotations

import json

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.support import finished_match, throttle_rates
from tournaments.models import Match
from tournaments.services import api_token, create_tournament, set_version_disabled

pytestmark = pytest.mark.django_db


def client_for(user=None, **kwargs) -> Client:
    client = Client(**kwargs)
    if user is not None:
        client.force_login(user)
    return client


def text(response) -> str:
    return response.content.decode()


def me_status(token: str) -> int:
    return Client().get("/api/players/me/", HTTP_AUTHORIZATION=f"Token {token}").status_code


# --- the API token on the account page ---------------------------------------------------------------

def test_only_the_player_sees_their_token_on_their_page(player, other_player):
    token = api_token(player)
    own = client_for(player).get("/players/ada/")
    assert own.status_code == 200 and token in text(own)
    assert "no-store" in own["Cache-Control"]  # the page holds a secret: no cache keeps it
    assert token not in text(client_for(other_player).get("/players/ada/"))
    assert token not in text(Client().get("/players/ada/"))


def test_replacing_the_token_stops_the_old_one_at_once(player):
    old = api_token(player)
    assert me_status(old) == 200
    client = client_for(player)
    response = client.post("/players/ada/", {"action": "rotate-token"})
    assert response.status_code == 302
    new = api_token(player)
    assert new != old
    assert me_status(old) == 401 and me_status(new) == 200
    page = text(client.get("/players/ada/"))
    assert new in page and old not in page and "the old one no longer works" in page


def test_the_token_form_needs_its_csrf_token_and_its_owner(player, other_player):
    old = api_token(player)
    strict = client_for(player, enforce_csrf_checks=True)
    assert strict.post("/players/ada/", {"action": "rotate-token"}).status_code == 403
    assert client_for(other_player).post("/players/ada/", {"action": "rotate-token"}).status_code == 404
    assert Client().post("/players/ada/", {"action": "rotate-token"}).status_code == 404
    assert api_token(player) == old


def test_replacing_the_token_counts_in_the_apis_token_throttle(player, settings):
    throttle_rates(settings, token="1/hour")
    client = client_for(player)
    assert client.post("/players/ada/", {"action": "rotate-token"}).status_code == 302
    kept = api_token(player)
    refused = client.post("/players/ada/", {"action": "rotate-token"})
    assert refused.status_code == 429 and "too many" in text(refused)
    assert api_token(player) == kept and kept in text(refused)


# --- a challenge from a bot's page --------------------------------------------------------------------

def test_a_visitor_challenges_a_bot_with_one_of_their_own(league, player):
    beta, alpha = league["beta"], league["alpha"]
    client = client_for(player)
    page = text(client.get(f"/bots/{beta.bot_id}/"))
    assert 'value="challenge"' in page and f'value="{alpha.pk}"' in page
    assert f'value="{beta.pk}"' not in page  # not the challenged bot's own versions
    response = client.post(f"/bots/{beta.bot_id}/", {"action": "challenge", "version": alpha.pk,
                                                     "games_per_match": 4, "time_control": "move:200"})
    assert response.status_code == 302
    match = Match.objects.get(tournament__isnull=True, status=Match.Status.QUEUED)
    assert (match.version_a, match.version_b, match.rated, match.games_per_match, match.time_control) == \
        (alpha, beta, False, 4, "move:200")
    assert "Challenge queued" in text(client.get(f"/bots/{beta.bot_id}/"))


def test_the_owner_challenges_another_bot_from_their_own_bots_page(league, player):
    alpha, beta = league["alpha"], league["beta"]
    client = client_for(player)
    url = f"/bots/{alpha.bot_id}/"
    with CaptureQueriesContext(connection) as captured:
        page = text(client.get(url))
    assert len(captured.captured_queries) <= 15  # the page's budget (tests/web/test_pages.py)
    assert 'value="challenge-from"' in page and 'list="opponent-bots"' in page
    assert f'<option value="{beta.bot_id}">beta (grace)</option>' in page  # the bots it has met, offered
    response = client.post(url, {"action": "challenge-from", "version": alpha.pk, "opponent": beta.bot_id,
                                 "games_per_match": 2, "time_control": "move:300"})
    assert response.status_code == 302
    match = Match.objects.get(tournament__isnull=True, status=Match.Status.QUEUED)
    assert (match.version_a, match.version_b, match.rated, match.games_per_match, match.time_control) == \
        (alpha, beta, False, 2, "move:300")
    assert "against beta v1" in text(client.get(url))


@pytest.mark.parametrize("opponent, message", [
    ("own", "this bot"), ("secret", "does not exist"), (999999, "does not exist"), ("x", "whole number"),
    (2**63, "less than or equal"),
])
def test_the_owners_challenge_names_a_bad_opponent(league, player, opponent, message):
    alpha = league["alpha"]
    opponent = {"own": alpha.bot_id, "secret": league["secret"].bot_id}.get(opponent, opponent)
    response = client_for(player).post(f"/bots/{alpha.bot_id}/", {"action": "challenge-from", "version": alpha.pk,
                                                                  "opponent": opponent})
    assert response.status_code == 400
    assert message in " ".join(response.context["own_challenge_form"].errors["opponent"])
    assert not Match.objects.filter(status=Match.Status.QUEUED).exists()


def test_only_the_owner_challenges_from_a_bots_page(league, other_player):
    alpha, beta = league["alpha"], league["beta"]
    client = client_for(other_player)
    assert 'value="challenge-from"' not in text(client.get(f"/bots/{alpha.bot_id}/"))
    response = client.post(f"/bots/{alpha.bot_id}/", {"action": "challenge-from", "version": alpha.pk,
                                                      "opponent": beta.bot_id})
    assert response.status_code == 404
    assert not Match.objects.filter(status=Match.Status.QUEUED).exists()


def test_anonymous_visitors_get_a_login_link_instead(league):
    beta = league["beta"]
    page = text(Client().get(f"/bots/{beta.bot_id}/"))
    assert 'value="challenge"' not in page and "/account/login/?next=" in page
    response = Client().post(f"/bots/{beta.bot_id}/", {"action": "challenge", "version": league["alpha"].pk})
    assert response.status_code == 302 and "/account/login/" in response["Location"]
    assert not Match.objects.filter(status=Match.Status.QUEUED).exists()


@pytest.mark.parametrize("data, field, message", [
    ({"time_control": "fast"}, "time_control", "time control"),
    ({"games_per_match": 999}, "games_per_match", "from 1 to"),
    ({"games_per_match": "two"}, "games_per_match", "whole number"),
])
def test_a_challenge_the_service_refuses_shows_beside_the_field(league, player, data, field, message):
    response = client_for(player).post(f"/bots/{league['beta'].bot_id}/",
                                       {"action": "challenge", "version": league["alpha"].pk, **data})
    assert response.status_code == 400
    assert message in " ".join(response.context["challenge_form"].errors[field])
    assert not Match.objects.filter(status=Match.Status.QUEUED).exists()


def test_the_services_refusal_of_a_version_shows_beside_the_version_field(league, player):
    set_version_disabled(league["alpha"], True)  # staff disabled it: still ready
    response = client_for(player).post(f"/bots/{league['beta'].bot_id}/",
                                       {"action": "challenge", "version": league["alpha"].pk})
    assert response.status_code == 400 and "disabled" in " ".join(response.context["challenge_form"].errors["version"])
    assert not Match.objects.filter(status=Match.Status.QUEUED).exists()


def test_a_challenge_keeps_the_apis_rules(league, player, other_player, settings):
    beta = league["beta"]
    client = client_for(player)
    # someone else's version is not offered, and cannot be forced in
    forced = client.post(f"/bots/{beta.bot_id}/", {"action": "challenge", "version": league["secret"].pk})
    assert forced.status_code == 400 and "version" in forced.context["challenge_form"].errors
    # the cap of queued challenges, as the API's
    settings.ARENA = {**settings.ARENA, "MAX_QUEUED_MATCHES_PER_PLAYER": 0}
    capped = client.post(f"/bots/{beta.bot_id}/", {"action": "challenge", "version": league["alpha"].pk})
    assert capped.status_code == 400 and "the most allowed" in text(capped)
    settings.ARENA = {**settings.ARENA, "MAX_QUEUED_MATCHES_PER_PLAYER": 5}
    # the API's challenge throttle: one lock for the page and the API (counted from zero: the two above counted)
    cache.clear()
    throttle_rates(settings, challenges="1/hour")
    assert client.post(f"/bots/{beta.bot_id}/", {"action": "challenge",
                                                 "version": league["alpha"].pk}).status_code == 302
    refused = client.post(f"/bots/{beta.bot_id}/", {"action": "challenge", "version": league["alpha"].pk})
    assert refused.status_code == 429 and "too many" in text(refused)
    api = Client().post("/api/matches/", {"version_a": league["alpha"].pk, "version_b": beta.pk},
                        content_type="application/json", HTTP_AUTHORIZATION=f"Token {api_token(player)}")
    assert api.status_code == 429
    assert Match.objects.filter(status=Match.Status.QUEUED).count() == 1


# --- a tournament's games as one download -------------------------------------------------------------

@pytest.fixture
def cup(league, player, other_player):
    """A tournament with a game of public bots and one of Grace's private bot; every record has stderr and a log."""
    tournament = create_tournament(player, name="Cup", game="tafl9")
    secrets = {"stderr": {"white": "SECRET-STDERR", "black": "SECRET-STDERR"}, "log": ["> SECRET-LOG"]}
    public = finished_match(league["alpha"], league["beta"], seed=7, rated=False, tournament=tournament, also=secrets)
    private = finished_match(league["secret"], league["gamma"], seed=8, rated=False, tournament=tournament,
                             also=secrets)
    return {"tournament": tournament, "public": public, "private": private}


def lines_of(response) -> list[dict]:
    assert response.streaming and response["Content-Type"].startswith("application/jsonl")
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]


def test_the_download_is_the_public_records_a_visitor_may_see(cup, other_player):
    tournament = cup["tournament"]
    url = f"/tournaments/{tournament.pk}/games.jsonl"
    assert url in text(Client().get(f"/tournaments/{tournament.pk}/"))
    anonymous = lines_of(Client().get(url))
    assert {game["match"] for game in anonymous} == {cup["public"].pk}  # the private bot's games left out
    assert len(anonymous) == 2
    # each line is what /api/games/{id}/ gives an anonymous reader
    assert anonymous[0] == Client().get(f"/api/games/{anonymous[0]['id']}/").json()
    # the private bot's owner gets its games too, but never a bot's stderr or log, not even their own
    owner = client_for(other_player).get(url)
    body = b"".join(owner.streaming_content).decode()
    assert {json.loads(line)["match"] for line in body.splitlines()} == {cup["public"].pk, cup["private"].pk}
    assert "SECRET" not in body
    assert Client().get("/tournaments/999999/games.jsonl").status_code == 404


def test_the_owner_is_not_offered_a_challenge_of_their_own_bot(league, player):
    page = text(client_for(player).get(f"/bots/{league['alpha'].bot_id}/"))
    assert 'value="challenge"' not in page


def test_the_download_costs_the_same_queries_however_many_games(cup, league):
    url = f"/tournaments/{cup['tournament'].pk}/games.jsonl"

    def queries() -> tuple[int, int]:
        with CaptureQueriesContext(connection) as captured:
            lines = b"".join(Client().get(url).streaming_content).count(b"\n")
        return lines, len(captured.captured_queries)

    few = queries()
    for seed in range(3):
        finished_match(league["alpha"], league["beta"], seed=30 + seed, rated=False, tournament=cup["tournament"])
    many = queries()
    assert (few[0], many[0]) == (2, 8) and few[1] == many[1]  # no query per game: no N+1
