"""Tournaments: create, entrants before the start, start, cancel, resume, standings and crosstable."""

from __future__ import annotations

import pytest

from tests.support import make_bot, ready_version, record, report
from tournaments.models import Match, Tournament, TournamentEntrant


def _create(client, **extra):
    data = {"name": "Midwinter", "game": "tafl9", "games_per_pairing": 2, **extra}
    return client.post("/api/tournaments/", data, format="json")


def test_create_tournament(ada, player):
    response = _create(ada)
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["organiser"], body["double_round"]) == ("draft", "ada", True)


def test_create_rejects_bad_input_and_changes_nothing(ada, anon, db):
    for data, field in [({"game": "chess"}, "game"), ({"name": ""}, "name"), ({"time_control": "soon"},
                        "time_control"), ({"games_per_pairing": 0}, "games_per_pairing")]:
        response = _create(ada, **data)
        assert response.status_code == 400, (data, response.content)
        assert field in response.json()
    assert _create(anon).status_code == 401
    assert not Tournament.objects.exists()


def _tournament_with_entrants(client, owners, count=3):
    tournament_id = _create(client).json()["id"]
    versions = [ready_version(make_bot(owners[i % len(owners)], f"bot{i}")) for i in range(count)]
    for version in versions:
        response = client.post(f"/api/tournaments/{tournament_id}/entrants/", {"version": version.pk}, format="json")
        assert response.status_code == 201, response.content
    return tournament_id, versions


def test_entrants_added_and_removed_before_the_start(ada, player, other_player):
    tournament_id, versions = _tournament_with_entrants(ada, [player, other_player])
    body = ada.get(f"/api/tournaments/{tournament_id}/").json()
    assert [(e["seed"], e["version"]["id"]) for e in body["entrants"]] == [(i + 1, v.pk) for i, v in
                                                                          enumerate(versions)]
    response = ada.delete(f"/api/tournaments/{tournament_id}/entrants/{versions[0].pk}/")
    assert response.status_code == 200, response.content
    assert [(e["seed"], e["version"]["id"]) for e in response.json()["entrants"]] == [
        (1, versions[1].pk), (2, versions[2].pk)]
    assert ada.delete(f"/api/tournaments/{tournament_id}/entrants/{versions[0].pk}/").status_code == 404


def test_entrant_refusals(ada, player, other_player):
    tournament_id, versions = _tournament_with_entrants(ada, [player], count=1)
    private = ready_version(make_bot(other_player, "hidden", is_public=False))
    shatra = ready_version(make_bot(player, "khan", game="shatra"))
    for data in ({"version": versions[0].pk}, {"version": private.pk}, {"version": shatra.pk},
                 {"version": 999999}, {}):
        response = ada.post(f"/api/tournaments/{tournament_id}/entrants/", data, format="json")
        assert response.status_code == 400, (data, response.content)
        assert "version" in response.json()
    assert TournamentEntrant.objects.count() == 1


def test_start_queues_a_double_round_robin(ada, player, other_player):
    tournament_id, _ = _tournament_with_entrants(ada, [player, other_player], count=3)
    response = ada.post(f"/api/tournaments/{tournament_id}/start/")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "running"
    # Three entrants, every pairing twice with colours swapped: 6 matches.
    assert Match.objects.filter(tournament_id=tournament_id, status="queued").count() == 6
    late = ready_version(make_bot(player, "late"))
    refused = ada.post(f"/api/tournaments/{tournament_id}/entrants/", {"version": late.pk}, format="json")
    assert refused.status_code == 400 and "status" in refused.json()
    assert ada.post(f"/api/tournaments/{tournament_id}/start/").status_code == 400


def test_start_needs_two_entrants(ada, player):
    tournament_id, _ = _tournament_with_entrants(ada, [player], count=1)
    response = ada.post(f"/api/tournaments/{tournament_id}/start/")
    assert response.status_code == 400 and "entrants" in response.json()
    assert Tournament.objects.get(pk=tournament_id).status == "draft"


def test_cancel_and_resume(ada, player, other_player):
    tournament_id, _ = _tournament_with_entrants(ada, [player, other_player], count=2)
    ada.post(f"/api/tournaments/{tournament_id}/start/")
    cancelled = ada.post(f"/api/tournaments/{tournament_id}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert Match.objects.filter(tournament_id=tournament_id, status="cancelled").count() == 2
    assert ada.post(f"/api/tournaments/{tournament_id}/cancel/").status_code == 400
    resumed = ada.post(f"/api/tournaments/{tournament_id}/resume/")
    assert resumed.status_code == 200 and resumed.json()["status"] == "running"
    assert Match.objects.filter(tournament_id=tournament_id, status="queued").count() == 2
    assert ada.post(f"/api/tournaments/{tournament_id}/resume/").status_code == 400


def test_only_the_organiser_or_an_admin_changes_a_tournament(ada, grace, root, player, other_player):
    tournament_id, versions = _tournament_with_entrants(ada, [player, other_player], count=2)
    assert grace.post(f"/api/tournaments/{tournament_id}/start/").status_code == 403
    assert grace.delete(f"/api/tournaments/{tournament_id}/entrants/{versions[0].pk}/").status_code == 403
    assert Tournament.objects.get(pk=tournament_id).status == "draft"
    assert root.post(f"/api/tournaments/{tournament_id}/start/").status_code == 200


def test_standings_and_crosstable(anon, ada, player, other_player):
    tournament_id, versions = _tournament_with_entrants(ada, [player, other_player], count=2)
    ada.post(f"/api/tournaments/{tournament_id}/start/")
    first = Match.objects.filter(tournament_id=tournament_id).order_by("round").first()
    # Game 1: A white wins; game 2: colours swap, A (black) wins again.
    a, b = first.version_a, first.version_b
    report(first, [record("white", "escape", plies=9), record("black", "king-captured", plies=7)])

    standings = anon.get(f"/api/tournaments/{tournament_id}/standings/").json()
    assert [(s["rank"], s["version"]["id"], s["score"], s["wins"]) for s in standings] == [
        (1, a.pk, 2.0, 2), (2, b.pk, 0.0, 0)]
    table = anon.get(f"/api/tournaments/{tournament_id}/crosstable/").json()
    rows = {row["version"]["id"]: row for row in table}
    a_cells = {cell["opponent_seed"]: cell for cell in rows[a.pk]["cells"]}
    b_seed = rows[b.pk]["seed"]
    assert a_cells[b_seed] == {"opponent_seed": b_seed, "points": 2.0, "games": 2}
    assert a_cells[rows[a.pk]["seed"]]["points"] is None


def test_tournament_list_filters(anon, ada, player):
    _create(ada)
    _create(ada, game="shatra", name="Steppe")
    assert [t["name"] for t in anon.get("/api/tournaments/?game=shatra").json()["results"]] == ["Steppe"]
    assert len(anon.get("/api/tournaments/?status=draft").json()["results"]) == 2


def test_the_answer_says_how_many_games_will_be_played(ada, player, other_player):
    """games_per_pairing 2 with a double round is 4 games between two entrants: the answer says so."""
    response = _create(ada, games_per_pairing=2, double_round=True)
    assert response.status_code == 201
    body = response.json()
    assert (body["games_per_pairing"], body["double_round"], body["games_per_two_entrants"], body["games_total"]) == (
        2, True, 4, 0)
    tournament_id, _ = _tournament_with_entrants(ada, [player, other_player], count=3)
    single = _create(ada, games_per_pairing=3, double_round=False).json()
    assert (single["games_per_two_entrants"], single["games_total"]) == (3, 0)
    detail = ada.get(f"/api/tournaments/{tournament_id}/").json()
    assert (detail["games_per_two_entrants"], detail["games_total"]) == (4, 12)  # 3 pairings of 4 games
    listed = {row["id"]: row for row in ada.get("/api/tournaments/").json()["results"]}
    assert listed[tournament_id]["games_total"] == 12
    ada.post(f"/api/tournaments/{tournament_id}/start/")
    matches = Match.objects.filter(tournament_id=tournament_id)
    assert sum(match.games_per_match for match in matches) == 12  # what was echoed is what is played


def test_standings_before_any_game_rank_nobody(anon, ada, player, other_player):
    tournament_id, versions = _tournament_with_entrants(ada, [player, other_player], count=3)
    ada.post(f"/api/tournaments/{tournament_id}/start/")
    standings = anon.get(f"/api/tournaments/{tournament_id}/standings/").json()
    assert [(s["seed"], s["rank"], s["score"], s["games"], s["sonneborn_berger"], s["direct_encounter"], s["koya"])
            for s in standings] == [(1, None, None, 0, None, None, None), (2, None, None, 0, None, None, None),
                                    (3, None, None, 0, None, None, None)]
    table = anon.get(f"/api/tournaments/{tournament_id}/crosstable/").json()
    assert all((row["rank"], row["score"]) == (None, None) for row in table)
    assert all(cell["points"] is None and cell["games"] == 0 for row in table for cell in row["cells"])


def test_an_entrant_yet_to_play_is_unranked_beside_those_who_played(anon, ada, player, other_player):
    tournament_id, versions = _tournament_with_entrants(ada, [player, other_player], count=3)
    ada.post(f"/api/tournaments/{tournament_id}/start/")
    first = Match.objects.filter(tournament_id=tournament_id).order_by("round", "id").first()
    a, b = first.version_a, first.version_b
    report(first, [record("none", "max-plies", plies=9), record("none", "max-plies", plies=7)])
    idle = next(v for v in versions if v.pk not in (a.pk, b.pk))
    standings = {s["version"]["id"]: s for s in anon.get(f"/api/tournaments/{tournament_id}/standings/").json()}
    assert (standings[a.pk]["rank"], standings[a.pk]["score"]) == (1, 1.0)
    assert (standings[b.pk]["rank"], standings[b.pk]["score"]) == (1, 1.0)  # a draw shares the place
    assert (standings[idle.pk]["rank"], standings[idle.pk]["score"], standings[idle.pk]["games"]) == (None, None, 0)
    rows = {row["version"]["id"]: row for row in anon.get(f"/api/tournaments/{tournament_id}/crosstable/").json()}
    cells = {cell["opponent_seed"]: cell for cell in rows[a.pk]["cells"]}
    assert cells[rows[b.pk]["seed"]]["points"] == 1.0
    assert cells[rows[idle.pk]["seed"]] == {"opponent_seed": rows[idle.pk]["seed"], "points": None, "games": 0}


# --- issue 17, item 9: tie-breaks by the book, the order shown with the standings -----------------------

def test_the_tie_break_order_is_fides_by_default_and_shown_with_the_standings(anon, ada, player, other_player):
    tournament_id, versions = _tournament_with_entrants(ada, [player, other_player], count=3)
    order = ["direct_encounter", "wins", "sonneborn_berger", "koya"]
    assert anon.get(f"/api/tournaments/{tournament_id}/").json()["tiebreaks"] == order
    ada.post(f"/api/tournaments/{tournament_id}/start/")
    first = Match.objects.filter(tournament_id=tournament_id).order_by("round", "id").first()
    a = first.version_a
    report(first, [record("white", "escape", plies=9), record("none", "max-plies", plies=7)])
    standings = anon.get(f"/api/tournaments/{tournament_id}/standings/").json()
    assert standings[0]["version"]["id"] == a.pk
    assert [line["name"] for line in standings[0]["tiebreaks"]] == order
    assert {line["name"]: line["value"] for line in standings[0]["tiebreaks"]} == {
        "direct_encounter": None, "wins": 1, "sonneborn_berger": 0.75, "koya": 0.0}  # b had under half its points


def test_the_organiser_picks_another_tie_break_order(ada, grace):
    response = _create(ada, tiebreaks=["koya", "sonneborn_berger"])
    assert response.status_code == 201 and response.json()["tiebreaks"] == ["koya", "sonneborn_berger"]
    tournament_id = response.json()["id"]
    changed = ada.patch(f"/api/tournaments/{tournament_id}/", {"tiebreaks": ["wins"]}, format="json")
    assert changed.status_code == 200 and changed.json()["tiebreaks"] == ["wins"]
    assert grace.patch(f"/api/tournaments/{tournament_id}/", {"tiebreaks": []}, format="json").status_code == 403


@pytest.mark.parametrize("order", [["dice"], ["wins", "wins"], "wins", [7]])
def test_an_unknown_tie_break_is_a_400_naming_the_field(ada, order):
    before = list(Tournament.objects.values())
    response = _create(ada, tiebreaks=order)
    assert response.status_code == 400 and _names_tiebreaks(response.json()), response.content
    assert list(Tournament.objects.values()) == before
    tournament_id = _create(ada).json()["id"]
    response = ada.patch(f"/api/tournaments/{tournament_id}/", {"tiebreaks": order}, format="json")
    assert response.status_code == 400 and _names_tiebreaks(response.json()), response.content
    assert Tournament.objects.get(pk=tournament_id).tiebreak_order == ["direct_encounter", "wins",
                                                                      "sonneborn_berger", "koya"]


def _names_tiebreaks(body) -> bool:
    """The field, or one of its items ("tiebreaks.0": the first name given), and nothing else."""
    return bool(body) and all(key.split(".")[0] == "tiebreaks" for key in body)
