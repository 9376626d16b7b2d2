"""Issue 9, points 6 and 7 through the API: names are names; ratings come only from fair games (unrated
challenges, bounded time controls and game counts, caps per player, consent to enter a tournament, two bots
of one owner never rated). Every refusal is a 400 naming the problem, and the database is as before."""

from __future__ import annotations

import pytest

from tournaments.models import Bot, Match, Tournament, TournamentEntrant

from .conftest import make_bot, ready_version


def snapshot() -> tuple:
    """Every row a refused request could have touched."""
    return (list(Bot.objects.order_by("pk").values()), list(Match.objects.order_by("pk").values()),
            list(Tournament.objects.order_by("pk").values()), list(TournamentEntrant.objects.order_by("pk").values()))


def refused(response, field: str, words: str) -> None:
    assert response.status_code == 400, response.content
    body = response.json()
    assert field in body, body
    assert words in " ".join(body[field]), body


# --- 6. names are names -------------------------------------------------------------------------

HOSTILE_NAMES = ["a/../b", "../../etc/passwd", "/abs", "a\\b", "..", ".hidden", "-rf", "two words", "x" * 33,
                 "tab\tbed", "é", "a/b"]  # a NUL is refused by DRF before the rule


def test_a_bot_named_with_a_slash_is_refused_on_create(ada, player):
    make_bot(player, "ragnar")
    before = snapshot()
    for name in HOSTILE_NAMES:
        response = ada.post("/api/bots/", {"name": name, "game": "tafl9"}, format="json")
        refused(response, "name", "not a bot name")
    assert snapshot() == before


def test_a_bot_renamed_with_a_slash_is_refused(ada, root, player):
    bot = make_bot(player, "ragnar")
    before = snapshot()
    for client in (ada, root):
        for name in HOSTILE_NAMES:
            refused(client.patch(f"/api/bots/{bot.pk}/", {"name": name}, format="json"), "name", "not a bot name")
    assert snapshot() == before


def test_names_of_the_documented_characters_are_taken(ada, player):
    for name in ("Ragnar_2.0-beta", "x", "9" * 32):
        response = ada.post("/api/bots/", {"name": name, "game": "tafl9"}, format="json")
        assert response.status_code == 201, (name, response.content)
        assert response.json()["name"] == name


# --- 7. ratings come only from fair games ---------------------------------------------------------

def test_a_rated_challenge_is_refused(ada, versions):
    mine, theirs = versions
    before = snapshot()
    response = ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk, "rated": True},
                        format="json")
    refused(response, "rated", "always unrated")
    assert snapshot() == before


@pytest.mark.parametrize("data, field, words", [
    ({"games_per_match": 101}, "games_per_match", "from 1 to 100"),
    ({"games_per_match": 10_000}, "games_per_match", "from 1 to 100"),
    ({"time_control": "move:3600000"}, "time_control", "from 50 to 10000 ms"),
    ({"time_control": "move:1"}, "time_control", "from 50 to 10000 ms"),
    ({"time_control": "clock:86400000+0"}, "time_control", "base time must be at most 900000 ms"),
    ({"time_control": "clock:60000+3600000"}, "time_control", "increment must be at most 10000 ms"),
    ({"time_control": "move:999999999999"}, "time_control", "bad time control"),
    ({"time_control": "clock:0+5"}, "time_control", "base time must be positive"),
])
def test_a_long_match_request_is_refused(ada, versions, data, field, words):
    mine, theirs = versions
    before = snapshot()
    response = ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk, **data}, format="json")
    refused(response, field, words)
    assert snapshot() == before


def test_bounds_follow_the_settings(ada, versions, settings):
    mine, theirs = versions
    settings.ARENA = {**settings.ARENA, "TIME_CONTROL_MOVE_MAX_MS": 20_000, "MAX_GAMES_PER_MATCH": 200,
                      "OWNER_QUEUED_SECONDS": 10**7}  # 150 games at 20 s a move: past the default budget
    response = ada.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk, "games_per_match": 150,
                                          "time_control": "move:20000"}, format="json")
    assert response.status_code == 201, response.content


def test_a_tournament_with_a_long_time_control_is_refused(ada, db):
    before = snapshot()
    for data, field in [({"time_control": "move:60000"}, "time_control"), ({"games_per_pairing": 500},
                                                                         "games_per_pairing")]:
        response = ada.post("/api/tournaments/", {"name": "Cup", "game": "tafl9", **data}, format="json")
        refused(response, field, "")
    assert snapshot() == before


def test_a_player_has_a_cap_on_queued_matches(ada, root, versions, settings):
    settings.ARENA = {**settings.ARENA, "MAX_QUEUED_MATCHES_PER_PLAYER": 2}
    mine, theirs = versions
    challenge = {"version_a": mine.pk, "version_b": theirs.pk}
    assert [ada.post("/api/matches/", challenge, format="json").status_code for _ in range(2)] == [201, 201]
    before = snapshot()
    refused(ada.post("/api/matches/", challenge, format="json"), "detail", "the most allowed (2)")
    assert snapshot() == before
    assert root.post("/api/matches/", challenge, format="json").status_code == 201  # staff: no cap
    Match.objects.filter(version_a=mine).update(status=Match.Status.FINISHED)
    assert ada.post("/api/matches/", challenge, format="json").status_code == 201  # finished ones do not count


def _tournament(client, **extra) -> int:
    response = client.post("/api/tournaments/", {"name": "Cup", "game": "tafl9", **extra}, format="json")
    assert response.status_code == 201, response.content
    return response.json()["id"]


def _enter(client, tournament_id: int, version):
    return client.post(f"/api/tournaments/{tournament_id}/entrants/", {"version": version.pk}, format="json")


def test_a_player_has_a_cap_on_running_tournaments(ada, player, settings):
    settings.ARENA = {**settings.ARENA, "MAX_RUNNING_TOURNAMENTS_PER_PLAYER": 1}
    versions = [ready_version(make_bot(player, f"bot{i}")) for i in range(2)]
    first, second = _tournament(ada), _tournament(ada)
    for tournament_id in (first, second):
        for version in versions:
            assert _enter(ada, tournament_id, version).status_code == 201
    assert ada.post(f"/api/tournaments/{first}/start/").status_code == 200
    before = snapshot()
    refused(ada.post(f"/api/tournaments/{second}/start/"), "status", "the most allowed (1)")
    assert snapshot() == before
    ada.post(f"/api/tournaments/{first}/cancel/")
    assert ada.post(f"/api/tournaments/{second}/start/").status_code == 200
    before = snapshot()
    refused(ada.post(f"/api/tournaments/{first}/resume/"), "status", "the most allowed (1)")
    assert snapshot() == before


def test_a_tournament_has_a_cap_on_entrants(ada, player, settings):
    settings.ARENA = {**settings.ARENA, "MAX_TOURNAMENT_ENTRANTS": 2}
    tournament_id = _tournament(ada)
    versions = [ready_version(make_bot(player, f"bot{i}")) for i in range(3)]
    assert [_enter(ada, tournament_id, v).status_code for v in versions[:2]] == [201, 201]
    before = snapshot()
    refused(_enter(ada, tournament_id, versions[2]), "version", "most entrants allowed (2)")
    assert snapshot() == before


def test_entering_another_players_bot_needs_its_owners_consent(ada, grace, player, other_player):
    theirs = ready_version(make_bot(other_player, "beta", open_to_tournaments=False))
    for rated in (False, True):
        tournament_id = _tournament(ada, rated=rated)
        before = snapshot()
        refused(_enter(ada, tournament_id, theirs), "version", "consent is needed to enter it in any tournament")
        assert snapshot() == before
    # The owner agrees (their own switch, through the API); then the bot may be entered.
    assert ada.patch(f"/api/bots/{theirs.bot_id}/", {"open_to_tournaments": True}, format="json").status_code == 403
    response = grace.patch(f"/api/bots/{theirs.bot_id}/", {"open_to_tournaments": True}, format="json")
    assert response.status_code == 200 and response.json()["open_to_tournaments"] is True
    assert _enter(ada, tournament_id, theirs).status_code == 201
    assert _enter(ada, tournament_id, ready_version(make_bot(player, "alpha", open_to_tournaments=False))
                  ).status_code == 201  # the organiser's own bot needs no switch
    # Consent withdrawn before the start: the tournament does not start.
    grace.patch(f"/api/bots/{theirs.bot_id}/", {"open_to_tournaments": False}, format="json")
    before = snapshot()
    refused(ada.post(f"/api/tournaments/{tournament_id}/start/"), "entrants", "has not agreed")
    assert snapshot() == before


def test_consent_is_off_by_default_and_shown(ada, player):
    body = ada.post("/api/bots/", {"name": "ragnar", "game": "tafl9"}, format="json").json()
    assert body["open_to_tournaments"] is False
    assert ada.get(f"/api/bots/{body['id']}/").json()["open_to_tournaments"] is False


def test_a_rated_tournament_plays_two_bots_of_one_owner_unrated(ada, player, other_player):
    mine = [ready_version(make_bot(player, name)) for name in ("alpha", "gamma")]
    theirs = ready_version(make_bot(other_player, "beta"))
    tournament_id = _tournament(ada, rated=True, double_round=False)
    for version in (*mine, theirs):
        assert _enter(ada, tournament_id, version).status_code == 201
    assert ada.post(f"/api/tournaments/{tournament_id}/start/").status_code == 200
    rated = {frozenset((m.version_a_id, m.version_b_id)): m.rated for m in Match.objects.all()}
    assert rated == {frozenset(v.pk for v in mine): False, frozenset((mine[0].pk, theirs.pk)): True,
                     frozenset((mine[1].pk, theirs.pk)): True}


def test_the_admin_cannot_make_a_rated_match_between_two_bots_of_one_owner(client, admin_user, player,
                                                                            other_player):
    client.force_login(admin_user)
    a, b = (ready_version(make_bot(player, name)) for name in ("alpha", "gamma"))
    data = {"game": "tafl9", "version_a": a.pk, "version_b": b.pk, "rated": "on", "time_control": "move:1000",
            "games_per_match": 2, "status": "queued", "score_a": 0, "score_b": 0, "priority": 20,
            "games-TOTAL_FORMS": 0, "games-INITIAL_FORMS": 0}
    before = snapshot()
    response = client.post("/admin/tournaments/match/add/", data)
    assert response.status_code == 200 and b"two bots of one owner never play a rated game" in response.content
    assert snapshot() == before
    c = ready_version(make_bot(other_player, "beta"))
    response = client.post("/admin/tournaments/match/add/", {**data, "version_b": c.pk})
    assert response.status_code == 302 and Match.objects.get().rated
