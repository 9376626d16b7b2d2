"""Gauntlets and knockouts through the API: their settings, refusals naming the field, the table and bracket."""

from __future__ import annotations

from tournaments.models import Match, Tournament
from tournaments.services import claim_match, finish_match

from .conftest import make_bot, ready_version


def _create(client, **extra):
    return client.post("/api/tournaments/", {"name": "Cup", "game": "tafl9", "games_per_pairing": 2, **extra},
                       format="json")


def _enter(client, tournament_id, versions):
    for version in versions:
        response = client.post(f"/api/tournaments/{tournament_id}/entrants/", {"version": version.pk}, format="json")
        assert response.status_code == 201, response.content


def _settle(match, winners):
    token = claim_match(match.pk, "w")
    records = [{"game": "tafl9", "winner": w, "reason": {"white": "escape", "black": "king-captured"}[w],
                "plies": 5, "actions": []} for w in winners]
    assert finish_match(match.pk, token, records)


def test_gauntlet_needs_an_entered_champion_and_shows_its_table(ada, player, other_player):
    versions = [ready_version(make_bot(other_player if i % 2 else player, f"g{i}")) for i in range(3)]
    refused = _create(ada, format="knockout", champion=versions[0].pk)
    assert refused.status_code == 400 and "champion" in refused.json()
    assert not Tournament.objects.exists()
    created = _create(ada, format="gauntlet", champion=versions[1].pk)
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["format"], body["champion"]) == ("gauntlet", versions[1].pk)
    tournament_id = body["id"]
    _enter(ada, tournament_id, [versions[0], versions[2]])
    refused = ada.post(f"/api/tournaments/{tournament_id}/start/")
    assert refused.status_code == 400 and "champion" in refused.json(), refused.content
    assert not Match.objects.exists()
    _enter(ada, tournament_id, [versions[1]])
    started = ada.post(f"/api/tournaments/{tournament_id}/start/")
    assert started.status_code == 200, started.content
    assert started.json()["games_total"] == 4
    for match in Match.objects.order_by("id"):
        _settle(match, ["white", "black"])  # the champion wins both
    table = ada.get(f"/api/tournaments/{tournament_id}/gauntlet/").json()
    assert table["champion"]["id"] == versions[1].pk
    assert [(row["opponent"]["id"], row["wins"], row["losses"], row["pairs"]) for row in table["opponents"]] == [
        (versions[0].pk, 2, 0, 1), (versions[2].pk, 2, 0, 1)]
    assert (table["overall"]["score"], table["overall"]["elo"], table["overall"]["elo_text"]) == (
        4.0, None, "scored every point")
    assert ada.get(f"/api/tournaments/{tournament_id}/bracket/").status_code == 404


def test_knockout_with_one_entrant_is_refused_and_its_bracket_is_drawn(ada, player, other_player):
    versions = [ready_version(make_bot(other_player if i % 2 else player, f"k{i}")) for i in range(3)]
    assert _create(ada, format="knockout", games_per_pairing=3).status_code == 400
    tournament_id = _create(ada, format="knockout", seeding="listed", tiebreak_pairs=1).json()["id"]
    _enter(ada, tournament_id, versions[:1])
    refused = ada.post(f"/api/tournaments/{tournament_id}/start/")
    assert refused.status_code == 400 and "entrants" in refused.json()
    _enter(ada, tournament_id, versions[1:])
    assert ada.post(f"/api/tournaments/{tournament_id}/start/").status_code == 200
    (first,) = Match.objects.all()
    _settle(first, ["white", "black"])  # seed 2 beats seed 3
    drawn = ada.get(f"/api/tournaments/{tournament_id}/bracket/").json()
    assert [r["name"] for r in drawn["rounds"]] == ["Semi-finals", "Final"]
    assert [(p["high_seed"], p["low_seed"], p["note"], p["winner_seed"]) for p in drawn["rounds"][0]["pairings"]] == [
        (1, None, "bye", 1), (2, 3, "", 2)]
    assert [(p["high_seed"], p["low_seed"]) for p in drawn["rounds"][1]["pairings"]] == [(1, 2)]
    assert drawn["winner_seed"] is None
