"""A Swiss on the site: the form, the standings with their tie-breaks, the rounds with colours and game links,
late entries, and the TRF download of any tournament."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from tournaments.models import Match, Tournament
from tournaments.services import claim_match, finish_match

from .conftest import make_bot, ready_version, throttle_rates

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


def running_swiss(organiser, other):
    client = client_for(organiser)
    client.post("/tournaments/new/", {"name": "Open", "game": "tafl9", "format": "swiss", "rounds": 2,
                                      "games_per_pairing": 2})
    tournament = Tournament.objects.get(name="Open")
    versions = [ready_version(make_bot(organiser if i % 2 else other, f"bot{i}")) for i in range(4)]
    for version in versions:
        client.post(f"/tournaments/{tournament.pk}/", {"action": "add", "version": version.pk})
    assert client.post(f"/tournaments/{tournament.pk}/", {"action": "start"}).status_code == 302
    return client, tournament, versions


def test_the_organiser_withdraws_an_entrant_from_the_swiss_page(player, other_player):
    client, tournament, versions = running_swiss(player, other_player)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert page.count('value="withdraw"') == 4
    assert 'value="withdraw"' not in client_for(other_player).get(f"/tournaments/{tournament.pk}/").content.decode()
    response = client.post(f"/tournaments/{tournament.pk}/", {"action": "withdraw", "version": versions[0].pk})
    assert response.status_code == 302
    assert tournament.entrants.get(version=versions[0]).swiss_withdrawal.after_round == 1
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert "withdrew after round 1" in page and page.count('value="withdraw"') == 3
    for match in Match.objects.filter(tournament=tournament):
        settle(match)
    paired = {v for m in Match.objects.filter(tournament=tournament, round=2) for v in (m.version_a_id,
                                                                                          m.version_b_id)}
    assert versions[0].pk not in paired


@pytest.mark.parametrize(("version", "status"), [("x", 400), ("0", 400), ("999999", 400), ("again", 400)])
def test_a_bad_withdrawal_is_a_400_naming_the_version(player, other_player, version, status):
    client, tournament, versions = running_swiss(player, other_player)
    if version == "again":
        client.post(f"/tournaments/{tournament.pk}/", {"action": "withdraw", "version": versions[1].pk})
        version = versions[1].pk
    response = client.post(f"/tournaments/{tournament.pk}/", {"action": "withdraw", "version": version})
    assert response.status_code == status
    assert "version" in response.context["form"].errors
    assert tournament.entrants.filter(swiss_withdrawal__isnull=False).count() == (version == versions[1].pk)


def test_a_stranger_cannot_withdraw(player, other_player):
    _, tournament, versions = running_swiss(player, other_player)
    response = client_for(other_player).post(f"/tournaments/{tournament.pk}/",
                                             {"action": "withdraw", "version": versions[0].pk})
    assert response.status_code == 404
    assert not tournament.entrants.filter(swiss_withdrawal__isnull=False).exists()


def test_withdrawals_count_in_the_apis_writes_throttle(player, other_player, settings):
    client, tournament, versions = running_swiss(player, other_player)
    throttle_rates(settings, writes="1/hour")
    cache.clear()
    assert client.post(f"/tournaments/{tournament.pk}/", {"action": "withdraw",
                                                          "version": versions[0].pk}).status_code == 302
    response = client.post(f"/tournaments/{tournament.pk}/", {"action": "withdraw", "version": versions[1].pk})
    assert response.status_code == 429
    assert not tournament.entrants.filter(version=versions[1], swiss_withdrawal__isnull=False).exists()
    api = APIClient()
    api.force_authenticate(player)  # the API's DELETE counts in the same scope
    assert api.delete(f"/api/tournaments/{tournament.pk}/entrants/{versions[1].pk}/").status_code == 429
