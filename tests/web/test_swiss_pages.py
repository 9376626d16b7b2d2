"""A Swiss on the site: the form, the standings with their tie-breaks, the rounds with colours and game links,
late entries, and the TRF download of any tournament."""

from __future__ import annotations

import pytest
from django.test import Client

from tournaments.models import Match, Tournament
from tournaments.services import claim_match, finish_match

from .conftest import make_bot, ready_version

pytestmark = pytest.mark.django_db


def client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def settle(match):
    token = claim_match(match.pk, "w")
    records = [{"game": "tafl9", "winner": "white", "reason": "escape", "plies": 9, "actions": []}] * 2
    assert finish_match(match.pk, token, records)


def test_a_swiss_made_on_the_site_shows_rounds_colours_games_and_its_trf(player, other_player):
    client = client_for(player)
    response = client.post("/tournaments/new/", {"name": "Open", "game": "tafl9", "format": "swiss", "rounds": 2,
                                                 "bye_points": "0.5", "games_per_pairing": 2})
    assert response.status_code == 302
    tournament = Tournament.objects.get(name="Open")
    assert (tournament.format, tournament.rounds, tournament.bye_points) == ("swiss", 2, 0.5)
    versions = [ready_version(make_bot(player if i % 2 else other_player, f"bot{i}")) for i in range(4)]
    for version in versions[:3]:
        assert client.post(f"/tournaments/{tournament.pk}/", {"action": "add", "version": version.pk}).status_code \
            == 302
    assert client.post(f"/tournaments/{tournament.pk}/", {"action": "start"}).status_code == 302
    # A late entry into the running Swiss, paired from round 2.
    assert client.post(f"/tournaments/{tournament.pk}/", {"action": "add", "version": versions[3].pk}).status_code \
        == 302
    assert tournament.entrants.count() == 4
    for match in Match.objects.filter(tournament=tournament):
        settle(match)  # round 1; round 2 is paired as its last match finishes, and stays queued
    page = client_for().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "Swiss (FIDE Dutch system), 2 rounds" in page
    assert "then Buchholz cut-1, Buchholz, Sonneborn-Berger, wins, direct encounter." in page
    assert "Round 1" in page and "Round 2" in page and "Bye:" in page
    game = Match.objects.filter(tournament=tournament, round=1).first().games.first()
    assert f'href="/games/{game.pk}/"' in page
    assert f'href="/tournaments/{tournament.pk}/trf/"' in page
    trf = client_for().get(f"/tournaments/{tournament.pk}/trf/")
    assert trf.status_code == 200 and trf.content.decode().startswith("012 Open")


@pytest.mark.parametrize(("data", "field"), [
    ({"format": "swiss"}, "rounds"), ({"format": "swiss", "rounds": 2, "games_per_pairing": 3}, "games_per_pairing"),
])
def test_bad_swiss_settings_are_refused_beside_the_field(player, data, field):
    response = client_for(player).post("/tournaments/new/", {"name": "Open", "game": "tafl9",
                                                             "games_per_pairing": 2, **data})
    assert response.status_code == 400 and field in response.context["form"].errors
    assert not Tournament.objects.exists()
