"""Swiss tournaments through the API: create, refusals by field, the rounds and standings, the TRF download."""

from __future__ import annotations

import pytest

from tournaments.models import Match, SwissRound, Tournament
from tournaments.services import claim_match, finish_match
from tournaments.swiss import trf

from .conftest import make_bot, ready_version

pytestmark = pytest.mark.django_db


def _create(client, **extra):
    data = {"name": "Autumn Swiss", "game": "tafl9", "games_per_pairing": 2, "format": "swiss", "rounds": 2, **extra}
    return client.post("/api/tournaments/", data, format="json")


def _enter(client, tournament_id, owners, count):
    versions = [ready_version(make_bot(owners[i % len(owners)], f"bot{i}", is_public=i != 0)) for i in range(count)]
    for version in versions:
        response = client.post(f"/api/tournaments/{tournament_id}/entrants/", {"version": version.pk}, format="json")
        assert response.status_code == 201, response.content
    return versions


def _settle(match):
    token = claim_match(match.pk, "w")
    records = [{"game": "tafl9", "winner": "white", "reason": "escape", "plies": 9, "actions": []}] * 2
    assert finish_match(match.pk, token, records)


def test_create_a_swiss(ada):
    response = _create(ada, bye_points=0.5, late_entry_points=0.5)
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["format"], body["rounds"], body["bye_points"], body["late_entry_points"]) == ("swiss", 2, 0.5, 0.5)


@pytest.mark.parametrize(("data", "field"), [
    ({"rounds": None}, "rounds"), ({"rounds": 0}, "rounds"), ({"games_per_pairing": 3}, "games_per_pairing"),
    ({"bye_points": 2}, "bye_points"), ({"format": "ladder"}, "format"),
    ({"late_entry_points": 0.3}, "late_entry_points"), ({"late_entry_points": "x"}, "late_entry_points"),
])
def test_bad_swiss_settings_are_a_400_naming_the_field(ada, data, field):
    response = _create(ada, **data)
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert not Tournament.objects.exists()


def test_too_few_entrants_for_the_rounds_is_a_400_naming_rounds(ada, player, other_player):
    tournament_id = _create(ada, rounds=3).json()["id"]
    _enter(ada, tournament_id, [player, other_player], 3)
    response = ada.post(f"/api/tournaments/{tournament_id}/start/")
    assert response.status_code == 400 and "rounds" in response.json()
    assert Tournament.objects.get(pk=tournament_id).status == "draft" and not Match.objects.exists()


def test_rounds_standings_and_trf_of_a_running_swiss(ada, anon, player, other_player):
    tournament_id = _create(ada).json()["id"]
    versions = _enter(ada, tournament_id, [player, other_player], 5)
    assert ada.post(f"/api/tournaments/{tournament_id}/start/").status_code == 200
    assert ada.get(f"/api/tournaments/{tournament_id}/").json()["games_total"] == 2 * 2 * 2  # 2 rounds of 2 pairs
    for match in Match.objects.filter(tournament_id=tournament_id):
        _settle(match)
    body = anon.get(f"/api/tournaments/{tournament_id}/swiss/").json()
    assert [r["number"] for r in body["rounds"]] == [1, 2] and body["rounds"][0]["bye_seed"] == 5
    assert len(body["standings"]) == 5
    assert [t["name"] for t in body["standings"][0]["tiebreaks"]][:2] == ["Buchholz cut-1", "Buchholz"]
    assert all(len(line["rounds"]) == 2 for line in body["standings"])
    response = anon.get(f"/api/tournaments/{tournament_id}/trf/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/plain")
    text = response.content.decode()
    report = trf.read(text)
    assert report.rounds == 2 and len(report.players) == 5
    assert "private bot" in text and f"bot0 v{versions[0].number}" not in text  # bot0 is private and not anon's
    assert f"bot0 v{versions[0].number}" in ada.get(f"/api/tournaments/{tournament_id}/trf/").content.decode()


def test_a_round_robin_has_a_trf_and_no_swiss_table(ada, anon, player, other_player):
    tournament_id = ada.post("/api/tournaments/", {"name": "RR", "game": "tafl9"}, format="json").json()["id"]
    _enter(ada, tournament_id, [player, other_player], 3)
    ada.post(f"/api/tournaments/{tournament_id}/start/")
    report = trf.read(anon.get(f"/api/tournaments/{tournament_id}/trf/").content.decode())
    assert report.rounds == 6 and len(report.players) == 3  # three entrants, double round: 2 x 3 rounds
    assert anon.get(f"/api/tournaments/{tournament_id}/swiss/").status_code == 404
    assert anon.get("/api/tournaments/999999/trf/").status_code == 404


def test_late_entry_and_withdrawal_of_a_running_swiss(ada, player, other_player):
    tournament_id = _create(ada).json()["id"]
    versions = _enter(ada, tournament_id, [player, other_player], 3)
    assert ada.post(f"/api/tournaments/{tournament_id}/start/").status_code == 200
    late = ready_version(make_bot(other_player, "late"))
    response = ada.post(f"/api/tournaments/{tournament_id}/entrants/", {"version": late.pk}, format="json")
    assert response.status_code == 201 and len(response.json()["entrants"]) == 4
    url = f"/api/tournaments/{tournament_id}/entrants/{versions[1].pk}/"
    assert ada.delete(url).status_code == 200
    again = ada.delete(url)
    assert again.status_code == 400 and "already withdrawn" in again.json()["version"][0]
    for match in Match.objects.filter(tournament_id=tournament_id):
        _settle(match)
    second = Match.objects.filter(tournament_id=tournament_id, round=2)
    paired = {v for m in second for v in (m.version_a_id, m.version_b_id)}
    bye = SwissRound.objects.get(tournament_id=tournament_id, number=2).bye
    assert late.pk in paired | {bye.version_id} and versions[1].pk not in paired | {bye.version_id}
