"""GET /api/openings/ and /api/openings/{id}/: the suites, and one suite's balance opening by opening."""

from __future__ import annotations

import pytest

from tests.support import finished_match
from tests.support.openings import make_suite, play_openings
from tournaments.models import Opening
from tournaments.services.openings_balance import set_opening_retired


@pytest.fixture
def suite(versions):
    ann, bob = versions
    suite = make_suite(count=3)
    play_openings(ann, bob, suite, [1, 2], ["white", "white", "none", "black"])
    play_openings(bob, ann, suite, [1], ["black", "white"])
    set_opening_retired(Opening.objects.get(suite=suite, number=2), True)
    return suite


def test_suites_are_listed_by_game_for_anyone(anon, suite):
    make_suite("shatra", name="steppe", count=1)
    listed = anon.get("/api/openings/").json()
    assert [(row["game"], row["name"], row["openings"], row["retired"]) for row in listed["results"]] == [
        ("shatra", "steppe", 1, 0), ("tafl9", "balance", 3, 1)]
    only = anon.get("/api/openings/?game=tafl9").json()["results"]
    assert [row["id"] for row in only] == [suite.pk]
    assert only[0]["ruleset"] == "tafl9/2026.1" and only[0]["plies"] == 2


@pytest.mark.parametrize(("query", "field"), [("game=chess", "game"), ("game=", "game"), ("colour=white", "colour")])
def test_a_bad_filter_is_a_400_naming_it(anon, suite, query, field):
    answer = anon.get(f"/api/openings/?{query}")
    assert answer.status_code == 400 and field in answer.json(), answer.content


def test_a_suite_answers_its_balance_by_opening(anon, suite):
    body = anon.get(f"/api/openings/{suite.pk}/").json()
    assert body["suite"]["name"] == "balance" and (body["active"], body["retired"]) == (2, 1)
    assert body["total"] == {"games": 6, "white_wins": 3, "draws": 1, "black_wins": 2, "first_wins": 3,
                             "first_score": pytest.approx(3.5 / 6), "draw_rate": pytest.approx(1 / 6), "pairs": 3,
                             "pentanomial": [1, 0, 1, 1, 0]}
    one, two, three = body["openings"]
    assert (one["number"], one["first"], one["retired"], one["retired_at"]) == (1, "white", False, None)
    assert one["position"] == Opening.objects.get(suite=suite, number=1).position
    assert one["balance"]["pentanomial"] == [1, 0, 1, 0, 0] and one["balance"]["first_score"] == 0.75
    assert two["retired"] and two["retired_reason"] == "retired by an operator" and two["retired_at"]
    assert two["balance"]["pentanomial"] == [0, 0, 0, 1, 0]
    assert three["balance"]["games"] == 0 and three["balance"]["first_score"] is None


def test_the_balance_costs_the_same_queries_however_many_openings_and_games(anon, versions,
                                                                            django_assert_max_num_queries):
    ann, bob = versions
    suite = make_suite(count=12)
    for number in range(1, 13):
        play_openings(ann, bob, suite, [number, number], ["white", "black", "none", "white"])
    with django_assert_max_num_queries(3):
        body = anon.get(f"/api/openings/{suite.pk}/").json()
    assert body["total"]["pairs"] == 24 and len(body["openings"]) == 12


def test_the_suites_are_read_only(ada, root, suite):
    for client in (ada, root):
        assert client.post("/api/openings/", {"name": "x"}, format="json").status_code == 405
        assert client.patch(f"/api/openings/{suite.pk}/", {"name": "x"}, format="json").status_code == 405
        assert client.delete(f"/api/openings/{suite.pk}/").status_code == 405
    assert client.get("/api/openings/99999/").status_code == 404


def test_the_schema_types_the_balance(anon, db):
    spec = anon.get("/api/schema/?format=json").json()
    assert set(spec["paths"]["/api/openings/{id}/"]) == {"get"}  # read-only
    balance = spec["components"]["schemas"]["Balance"]["properties"]
    assert balance["first_score"] == {"type": "number", "format": "double", "nullable": True,
                                      "description": balance["first_score"]["description"]}
    assert balance["pentanomial"]["items"]["type"] == "integer"
    assert balance["pentanomial"]["minItems"] == 5 and balance["pentanomial"]["maxItems"] == 5
    detail = spec["paths"]["/api/openings/{id}/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert detail["schema"]["$ref"].endswith("/OpeningSuiteBalance")


# --- the admin -------------------------------------------------------------------------------------

def test_the_admin_lists_suites_and_retires_and_brings_back_openings(client, admin_user, suite):
    client.force_login(admin_user)
    suites_page = client.get("/admin/tournaments/openingsuite/").content.decode()
    assert 'href="/openings/tafl9/balance/"' in suites_page
    assert client.get("/admin/tournaments/openingsuite/add/").status_code == 403  # the generator makes suites
    assert client.get("/admin/tournaments/opening/?retired_at__isnull=False").status_code == 200
    one = Opening.objects.get(suite=suite, number=1)
    client.post("/admin/tournaments/opening/", {"action": "retire_openings", "_selected_action": [one.pk]})
    one.refresh_from_db()
    assert one.retired_at is not None and one.retired_reason == "retired by an operator"
    client.post("/admin/tournaments/opening/", {"action": "bring_back_openings", "_selected_action": [one.pk]})
    one.refresh_from_db()
    assert one.retired_at is None and one.retired_reason == ""
    assert client.get(f"/admin/tournaments/opening/{one.pk}/change/").status_code == 200


def test_each_game_names_the_opening_it_started_from(anon, versions):
    ann, bob = versions
    suite = make_suite(count=2)
    match = play_openings(ann, bob, suite, [2, 1], ["white", "black", "none", "none"])
    openings = dict(suite.openings.values_list("number", "pk"))
    games = anon.get(f"/api/games/?match={match.pk}").json()["results"]
    assert sorted((game["number"], game["opening"]) for game in games) == [
        (1, openings[2]), (2, openings[2]), (3, openings[1]), (4, openings[1])]
    plain = finished_match(ann, bob, ["white", "black"])  # no suite: the initial position
    assert {game["opening"] for game in anon.get(f"/api/games/?match={plain.pk}").json()["results"]} == {None}
