"""The SPRT of a new version in the API (ask, list, shown on the version) and a bot's results per opponent."""

from __future__ import annotations

import pytest

from engines.stats import elo_trinomial
from ratings import sprt
from ratings.models import VersionTest
from ratings.selectors import held_back
from tests.support import finished_match, make_bot, play_test_match, ready_version
from tournaments.models import BotVersion, Match

from .conftest import client_for


@pytest.fixture
def two_versions(player):
    bot = make_bot(player, "alpha")
    return ready_version(bot), ready_version(bot)


def test_owner_asks_for_an_sprt_and_sees_it_on_the_version(ada, anon, two_versions):
    old, new = two_versions
    response = ada.post(f"/api/bots/{new.bot_id}/sprt/", {"elo1": 5, "gate": True}, format="json")
    assert response.status_code == 201, response.content
    test = response.json()
    assert (test["candidate"], test["baseline"], test["state"], test["gate"]) == (new.pk, old.pk, "running", True)
    assert (test["elo0"], test["elo1"], test["alpha"], test["beta"]) == (0.0, 5.0, 0.05, 0.05)
    assert test["llr"] == 0.0 and test["upper_bound"] == pytest.approx(2.944, abs=1e-3)
    assert test["lower_bound"] == pytest.approx(-2.944, abs=1e-3)
    assert test["pentanomial"] == [0, 0, 0, 0, 0] and test["elo"] is None
    assert Match.objects.filter(version_a=new, version_b=old, rated=False).count() == 4

    assert [t["id"] for t in anon.get(f"/api/bots/{new.bot_id}/sprt/").json()] == [test["id"]]
    detail = anon.get(f"/api/bots/{new.bot_id}/").json()
    by_id = {v["id"]: v for v in detail["versions"]}
    assert by_id[new.pk]["sprt"]["id"] == test["id"] and by_id[old.pk]["sprt"] is None
    listed = {v["id"]: v for v in anon.get(f"/api/bots/{new.bot_id}/versions/").json()}
    assert listed[new.pk]["sprt"]["state"] == "running"
    assert anon.get(f"/api/versions/{new.pk}/").json()["sprt"]["candidate"] == new.pk


def test_the_estimate_follows_the_pairs(ada, two_versions):
    old, new = two_versions
    ada.post(f"/api/bots/{new.bot_id}/sprt/", {}, format="json")
    test = VersionTest.objects.get()
    for points in ((1, 0.5), (0.5, 0.5), (0, 1), (1, 1), (0.5, 0), (1, 0.5)):  # 7.5 of 12: better, not yet sure
        test = play_test_match(test, points)
    assert (test.state, test.pentanomial) == ("running", [0, 1, 2, 2, 1])
    shown = ada.get(f"/api/bots/{new.bot_id}/sprt/").json()[0]
    assert shown["games"] == 12 and shown["elo"] > 0 and shown["elo_margin"] > 0 and 0.5 < shown["los"] < 1
    assert shown["estimate"] == "fixed" and shown["llr"] == test.llr


def test_an_ended_test_shows_the_sequential_estimate(ada, two_versions):
    """After a sequential stop the fixed-sample interval covers the truth too rarely: the answer switches to
    fishtest's sequential estimate (median-unbiased, asymmetric interval)."""
    old, new = two_versions
    ada.post(f"/api/bots/{new.bot_id}/sprt/", {"elo1": 100}, format="json")  # wide bounds: a verdict in ~20 pairs
    test = VersionTest.objects.get()
    pairs = ((1, 0.5), (0.5, 0.5), (1, 0), (1, 1), (0.5, 0), (1, 0.5))  # the candidate scores 7 of 12 a round
    while test.state == "running":
        test = play_test_match(test, pairs[sum(test.pentanomial) % len(pairs)])
    assert test.state == "passed" and test.llr >= sprt.Hypotheses(0.0, 100.0).upper
    shown = ada.get(f"/api/bots/{new.bot_id}/sprt/").json()[0]
    expected = sprt.sequential_estimate(test.pentanomial, sprt.Hypotheses(0.0, 100.0))
    assert shown["estimate"] == "sequential" and shown["state"] == "passed"
    assert (shown["elo"], shown["elo_low"], shown["elo_high"], shown["los"]) == pytest.approx(
        (expected.elo, expected.low, expected.high, expected.los))
    assert shown["elo"] < sprt.elo_estimate(test.pentanomial).elo  # the stop's optimism taken out


def test_normalized_bounds_a_cap_and_a_preview(ada, two_versions):
    old, new = two_versions
    body = {"elo0": 0, "elo1": 3, "elo_model": "normalized", "max_pairs": 2000}
    preview = ada.post(f"/api/bots/{new.bot_id}/sprt/", {**body, "preview": True}, format="json")
    assert preview.status_code == 200, preview.content
    assert not VersionTest.objects.exists() and not Match.objects.exists()
    forecast = preview.json()
    assert forecast["max_pairs"] == 2000 and forecast["at_elo1"]["pairs"] > 0 and forecast["at_elo0"]["hours"] > 0
    response = ada.post(f"/api/bots/{new.bot_id}/sprt/", body, format="json")
    assert response.status_code == 201, response.content
    test = response.json()
    assert (test["elo_model"], test["max_pairs"], test["estimate"]) == ("normalized", 2000, None)
    assert test["forecast"]["at_elo1"] == forecast["at_elo1"]


@pytest.mark.parametrize(("body", "field"), [
    ({"elo0": 10, "elo1": 0}, "elo1"),
    ({"elo1": 1e6}, "elo1"),
    ({"elo0": -1e6}, "elo0"),
    ({"alpha": 0.9}, "alpha"),
    ({"beta": 0}, "beta"),
    ({"elo1": "lots"}, "elo1"),
    ({"gate": "perhaps"}, "gate"),
    ({"version": 0}, "version"),
    ({"elo_model": "bayes"}, "elo_model"),
    ({"max_pairs": 10}, "max_pairs"),
    ({"max_pairs": 10**6}, "max_pairs"),
    ({"max_pairs": "many"}, "max_pairs"),
    ({"alpha": 0.5, "preview": True}, "alpha"),
    ({"preview": "yes"}, "preview"),
])
def test_bad_requests_are_400s_naming_the_field(ada, two_versions, body, field):
    old, new = two_versions
    response = ada.post(f"/api/bots/{new.bot_id}/sprt/", body, format="json")
    assert response.status_code == 400, response.content
    assert field in response.json()
    assert not VersionTest.objects.exists() and not Match.objects.exists()


def test_a_bot_with_one_version_is_a_400_naming_the_version(ada, player):
    only = ready_version(make_bot(player, "solo"))
    response = ada.post(f"/api/bots/{only.bot_id}/sprt/", {}, format="json")
    assert response.status_code == 400
    assert "one version" in response.json()["version"][0]
    assert not VersionTest.objects.exists()


def test_another_version_of_someone_else(ada, grace, two_versions, other_player):
    old, new = two_versions
    theirs = ready_version(make_bot(other_player, "theirs"))
    response = ada.post(f"/api/bots/{new.bot_id}/sprt/", {"version": theirs.pk}, format="json")
    assert response.status_code == 400 and "version" in response.json()
    assert grace.post(f"/api/bots/{new.bot_id}/sprt/", {}, format="json").status_code == 403
    assert client_for(None).post(f"/api/bots/{new.bot_id}/sprt/", {}, format="json").status_code in (401, 403)
    assert not VersionTest.objects.exists()


def test_a_private_bots_tests_are_its_owners(ada, grace, player):
    bot = make_bot(player, "hidden", is_public=False)
    ready_version(bot)
    ready_version(bot)
    assert ada.post(f"/api/bots/{bot.pk}/sprt/", {}, format="json").status_code == 201
    assert grace.get(f"/api/bots/{bot.pk}/sprt/").status_code == 404
    assert len(ada.get(f"/api/bots/{bot.pk}/sprt/").json()) == 1


def test_the_owner_stops_a_running_test_and_its_queued_matches_go(ada, grace, anon, two_versions):
    old, new = two_versions
    test = ada.post(f"/api/bots/{new.bot_id}/sprt/", {"gate": True}, format="json").json()
    url = f"/api/bots/{new.bot_id}/sprt/{test['id']}/stop/"
    assert grace.post(url).status_code == 403 and anon.post(url).status_code in (401, 403)
    assert VersionTest.objects.get().state == "running"
    response = ada.post(url)
    assert response.status_code == 200, response.content
    assert (response.json()["state"], response.json()["note"]) == ("stopped", "by its owner")
    assert set(Match.objects.values_list("status", flat=True)) == {"cancelled"}
    again = ada.post(url)
    assert again.status_code == 400 and "has ended already (stopped)" in again.json()["detail"][0]
    assert BotVersion.objects.filter(held_back(), pk=new.pk).exists()  # gated, stopped without a pass: held back


@pytest.mark.parametrize("test_id", ["0", "999999"])  # an id past the database's range: no route (test_contract)
def test_stopping_a_test_the_bot_does_not_have_is_a_404(ada, two_versions, player, test_id):
    old, new = two_versions
    other = make_bot(player, "other")
    ready_version(other), ready_version(other)
    theirs = ada.post(f"/api/bots/{other.pk}/sprt/", {}, format="json").json()["id"]
    for bot, test in ((new.bot_id, test_id), (new.bot_id, theirs)):
        response = ada.post(f"/api/bots/{bot}/sprt/{test}/stop/")
        assert response.status_code == 404 and "has no SPRT" in response.json()["detail"][0]
    assert VersionTest.objects.get().state == "running"


# --- per-opponent results ----------------------------------------------------------------------------

def test_results_per_opponent(anon, player, other_player):
    mine = ready_version(make_bot(player, "mine"))
    newer = ready_version(mine.bot)
    rival = ready_version(make_bot(other_player, "rival"))
    third = ready_version(make_bot(other_player, "third"))
    finished_match(mine, rival, ["white", "black"] * 5)  # version A wins every game of these matches
    finished_match(rival, newer, ["white", "black"] * 3)
    finished_match(third, mine, ["white", "black"])
    finished_match(mine, newer, rated=False)  # its own versions: not an opponent
    body = anon.get(f"/api/bots/{mine.bot_id}/opponents/").json()
    assert [(r["name"], r["owner"], r["games"], r["wins"], r["draws"], r["losses"]) for r in body] == [
        ("rival", "grace", 16, 10, 0, 6), ("third", "grace", 2, 0, 0, 2)]
    rival_row = body[0]
    expected = elo_trinomial(10, 0, 6)
    assert rival_row["opponent"] == rival.bot_id
    assert rival_row["score"] == pytest.approx(10 / 16)
    assert rival_row["elo"] == pytest.approx(expected.elo) and rival_row["elo"] > 0
    assert rival_row["elo_margin"] == pytest.approx(expected.margin) and rival_row["los"] == pytest.approx(expected.los)
    assert body[1]["score"] == 0.0 and body[1]["elo"] is None and body[1]["elo_margin"] is None  # unbounded


def test_private_opponents_are_shown_only_to_who_may_see_them(anon, ada, grace, player, other_player):
    mine = ready_version(make_bot(player, "mine"))
    secret = ready_version(make_bot(other_player, "secret", is_public=False))
    finished_match(mine, secret)
    assert anon.get(f"/api/bots/{mine.bot_id}/opponents/").json() == []
    assert ada.get(f"/api/bots/{mine.bot_id}/opponents/").json() == []
    assert [r["name"] for r in grace.get(f"/api/bots/{mine.bot_id}/opponents/").json()] == ["secret"]
    assert anon.get(f"/api/bots/{secret.bot_id}/opponents/").status_code == 404
    assert [r["name"] for r in grace.get(f"/api/bots/{secret.bot_id}/opponents/").json()] == ["mine"]


@pytest.mark.parametrize("size", [2, 12])
def test_opponents_take_the_same_queries_for_few_and_many(size, player, other_player,
                                                         django_assert_max_num_queries):
    mine = ready_version(make_bot(player, "mine"))
    for i in range(size):
        finished_match(mine, ready_version(make_bot(other_player if i % 2 else player, f"rival{i}")))
    client = client_for(player)
    # token 1, the bot 1, its games as white 1 and as black 1
    with django_assert_max_num_queries(4):
        response = client.get(f"/api/bots/{mine.bot_id}/opponents/")
    assert response.status_code == 200 and len(response.json()) == size


@pytest.mark.parametrize("size", [2, 8])
@pytest.mark.parametrize("url", ["/api/bots/{bot}/", "/api/bots/{bot}/versions/", "/api/versions/",
                                 "/api/bots/{bot}/sprt/"])
def test_versions_show_their_tests_without_a_query_each(url, size, player, django_assert_max_num_queries):
    from tournaments.services import request_version_test

    bot = make_bot(player, "many")
    ready_version(bot)
    for _ in range(size - 1):
        ready_version(bot)
        request_version_test(bot)  # the newest version against the one before
    client = client_for(player)
    # the same for 2 versions as for 8; the bot's page also prefetches its versions' fitted ratings
    with django_assert_max_num_queries(6 if url == "/api/bots/{bot}/" else 5):
        response = client.get(url.format(bot=bot.pk))
    assert response.status_code == 200, response.content
    body = response.json()
    rows = body if isinstance(body, list) else body.get("versions", body.get("results"))
    assert len(rows) == size - url.endswith("sprt/")  # the oldest version has no test


def test_operators_see_the_tests_in_the_admin(client, admin_user, ada, two_versions):
    old, new = two_versions
    test = ada.post(f"/api/bots/{new.bot_id}/sprt/", {}, format="json").json()
    client.force_login(admin_user)
    listing = client.get("/admin/ratings/versiontest/")
    assert listing.status_code == 200 and b"running" in listing.content
    assert client.get(f"/admin/ratings/versiontest/{test['id']}/change/").status_code == 200
