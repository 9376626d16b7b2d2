"""Issue 9, points 6 and 7 through the API: names are names; ratings come only from fair games (unrated
challenges, bounded time controls and game counts, caps per player, consent to enter a tournament, two bots
of one owner never rated). Every refusal is a 400 naming the problem, and the database is as before."""

from __future__ import annotations

import pytest

from tests.support import make_bot, ready_version, record, report
from tournaments.models import Bot, Match, Tournament, TournamentEntrant


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


# Issue 18, 3: a name is refused when it is an existing one once case, punctuation and look-alike characters
# (the Unicode confusable skeleton, UTS #39) are set aside.
LOOK_ALIKES = ["\u0430dmin", "ADMIN", "admin.", "Admin_", "ad-min", "adrnin", "\uff41\uff44\uff4d\uff49\uff4e"]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_user_name_like_an_existing_one_is_refused_through_the_api_and_the_site(anon, admin_user, name, db):
    from django.contrib.auth import get_user_model
    from django.test import Client

    from tournaments.services import create_player

    create_player(username="admin", password="operator-pass-2")
    users = list(get_user_model().objects.values())
    answer = anon.post("/api/auth/register/", {"username": name, "password": "a-long-pass-42"}, format="json")
    refused(answer, "username", "too like 'admin'")
    page = Client().post("/account/register/", {"username": name, "password": "a-long-pass-42"})
    assert page.status_code == 400 and "too like" in page.content.decode()
    assert list(get_user_model().objects.values()) == users


def test_distinct_names_are_still_taken(anon, player, db):
    for name in ("adam", "admiral", "ada2", "lin"):
        answer = anon.post("/api/auth/register/", {"username": name, "password": "a-long-pass-42"}, format="json")
        assert answer.status_code == 201, (name, answer.content)


@pytest.mark.parametrize("name", ["RAGNAR", "ragnar.", "rag-nar", "rag_nar", "ragnar_"])
def test_a_bot_name_like_one_of_the_owners_bots_is_refused(ada, player, name):
    make_bot(player, "ragnar")
    other = make_bot(player, "sigurd")
    before = snapshot()
    refused(ada.post("/api/bots/", {"name": name, "game": "tafl9"}, format="json"), "name", "too like 'ragnar'")
    refused(ada.patch(f"/api/bots/{other.pk}/", {"name": name}, format="json"), "name", "too like 'ragnar'")
    assert snapshot() == before
    # Another game's bots, and the bot's own name, are not in the way.
    assert ada.post("/api/bots/", {"name": name, "game": "shatra"}, format="json").status_code == 201
    bot = Bot.objects.get(name="ragnar")
    assert ada.patch(f"/api/bots/{bot.pk}/", {"name": "Ragnar"}, format="json").status_code == 200


def test_a_player_has_a_cap_on_draft_tournaments_through_the_api_and_the_site(ada, root, player, settings):
    from django.test import Client

    settings.ARENA = {**settings.ARENA, "MAX_DRAFT_TOURNAMENTS_PER_PLAYER": 2}
    drafts = [_tournament(ada), _tournament(ada)]
    before = snapshot()
    refused(ada.post("/api/tournaments/", {"name": "third", "game": "tafl9"}, format="json"), "detail",
            "you have 2 draft tournaments and the limit is 2")
    site = Client()
    site.force_login(player)
    page = site.post("/tournaments/new/", {"name": "third", "game": "tafl9", "games_per_pairing": 2})
    assert page.status_code == 400 and "the limit is 2" in page.content.decode()
    assert snapshot() == before
    assert root.post("/api/tournaments/", {"name": "staff", "game": "tafl9"}, format="json").status_code == 201
    ada.post(f"/api/tournaments/{drafts[0]}/cancel/")
    assert _tournament(ada)


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
    for match in Match.objects.filter(version_a=mine):
        report(match, [record("white")] * match.games_per_match)
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
    tournament_id = _tournament(ada)
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


def test_an_official_tournament_plays_two_bots_of_one_owner_unrated(root, player, other_player):
    mine = [ready_version(make_bot(player, name)) for name in ("alpha", "gamma")]
    theirs = ready_version(make_bot(other_player, "beta"))
    tournament_id = _tournament(root, official=True, double_round=False)
    for version in (*mine, theirs):
        assert _enter(root, tournament_id, version).status_code == 201
    assert root.post(f"/api/tournaments/{tournament_id}/start/").status_code == 200
    rated = {frozenset((m.version_a_id, m.version_b_id)): m.rated for m in Match.objects.all()}
    assert rated == {frozenset(v.pk for v in mine): False, frozenset((mine[0].pk, theirs.pk)): True,
                     frozenset((mine[1].pk, theirs.pk)): True}


# --- issue 17, item 8: the arena, not the players, decides which games move the leaderboard ------------

def test_a_player_cannot_make_a_tournament_rated(ada, grace, player, other_player):
    before = snapshot()
    refused(_post_tournament(ada, rated=True), "rated", "only staff mark a tournament official")
    refused(_post_tournament(ada, official=True), "official", "only staff mark a tournament official")
    assert snapshot() == before
    tournament_id = _tournament(ada)
    assert ada.get(f"/api/tournaments/{tournament_id}/").json()["official"] is False
    before = snapshot()
    refused(ada.patch(f"/api/tournaments/{tournament_id}/", {"official": True}, format="json"), "official",
            "only staff")
    assert grace.patch(f"/api/tournaments/{tournament_id}/", {"official": True}, format="json").status_code == 403
    assert snapshot() == before


def test_staff_mark_a_players_draft_official_and_only_a_draft(ada, root, player, other_player):
    tournament_id = _tournament(ada, double_round=False)
    response = root.patch(f"/api/tournaments/{tournament_id}/", {"official": True}, format="json")
    assert response.status_code == 200 and response.json()["official"] is True
    assert [row["id"] for row in root.get("/api/tournaments/?official=true").json()["results"]] == [tournament_id]
    for owner, name in ((player, "alpha"), (other_player, "beta")):
        assert _enter(ada, tournament_id, ready_version(make_bot(owner, name))).status_code == 201
    assert ada.post(f"/api/tournaments/{tournament_id}/start/").status_code == 200
    assert Match.objects.get(tournament_id=tournament_id).rated
    before = snapshot()
    refused(root.patch(f"/api/tournaments/{tournament_id}/", {"official": False}, format="json"), "status",
            "not draft")
    assert snapshot() == before


def _post_tournament(client, **extra):
    return client.post("/api/tournaments/", {"name": "Cup", "game": "tafl9", **extra}, format="json")


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


def test_staff_mark_draft_tournaments_official_in_the_admin(client, admin_user, ada, player, other_player):
    client.force_login(admin_user)
    draft, running = _tournament(ada, double_round=False), _tournament(ada, double_round=False)
    for owner, name in ((player, "alpha"), (other_player, "beta")):
        assert _enter(ada, running, ready_version(make_bot(owner, name))).status_code == 201
    assert ada.post(f"/api/tournaments/{running}/start/").status_code == 200
    response = client.post("/admin/tournaments/tournament/", {"action": "mark_official",
                                                              "_selected_action": [draft, running]}, follow=True)
    assert response.status_code == 200
    assert "Marked official 1 of 2" in response.content.decode() and "not draft" in response.content.decode()
    assert dict(Tournament.objects.values_list("pk", "official")) == {draft: True, running: False}
    assert not Match.objects.get(tournament_id=running).rated  # no tournament is half rated
