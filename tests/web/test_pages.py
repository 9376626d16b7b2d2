"""The pages through Django's test client: what they show, who may see it, what forms refuse, and how many
queries each page costs (the same whatever the amount of data: no N+1)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.support import finished_match, make_bot, ready_version, rejected_version
from tournaments.models import Bot, BotVersion, Game, Tournament
from tournaments.services import create_tournament, update_bot

pytestmark = pytest.mark.django_db


def client_for(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def text(response) -> str:
    return response.content.decode()


# --- what the pages show ------------------------------------------------------------------------

def test_home_shows_top_bots_recent_results_and_open_tournaments(league, player):
    create_tournament(player, name="Autumn cup", game="tafl9", time_control="move:100")
    page = text(client_for().get("/"))
    for shown in ("Tafl 9×9", "Altai Shatra", "alpha", "beta", "gamma", "Autumn cup", "Recent results",
                  "/take-part/protocol/", "/take-part/"):
        assert shown in page
    assert "secret" not in page  # a private bot's match is its owner's business


def test_leaderboard_ranks_public_bots_with_their_record(league):
    response = client_for().get("/leaderboard/tafl9/")
    page = text(response)
    assert response.status_code == 200
    assert [name for name in ("alpha", "beta", "gamma") if name in page] == ["alpha", "beta", "gamma"]
    assert "secret" not in page
    rows = response.context["rows"]
    # No fit yet: nobody is ranked; all are listed as provisional, by live Elo.
    assert [(row["rank"], row["standing"]) for row in rows] == [(None, "unfitted")] * 3
    assert [row["elo"] for row in rows] == sorted((row["elo"] for row in rows), reverse=True)
    assert all(row["provisional"] for row in rows) and response.context["ranked"] == []
    assert "prov." in page and "W / D / L" in page


def test_leaderboard_sorts_and_pages(league, player):
    for number in range(55):
        bot = make_bot(player, f"filler-{number:02}")
        bot.ratings.create(game="tafl9", elo=1000 + number, games=0)
    by_name = client_for().get("/leaderboard/tafl9/?sort=name").context["rows"]
    assert [row["bot__name"] for row in by_name][:3] == ["alpha", "beta", "filler-00"]
    second = client_for().get("/leaderboard/tafl9/?sort=rating&page=2")
    assert second.context["page"].number == 2 and len(second.context["rows"]) == 8
    assert second.context["rows"][0]["bot__name"] == "filler-07"  # the 51st by live Elo: nobody is ranked yet
    assert client_for().get("/leaderboard/tafl9/?sort=evil&page=zz").status_code == 200  # falls back


def test_bot_page_shows_rating_chart_versions_opponents_and_games(league):
    alpha = league["alpha"].bot
    response = client_for().get(f"/bots/{alpha.pk}/")
    page = text(response)
    assert response.status_code == 200
    assert "Plays fast." in page and "<svg class=\"chart\"" in page and "<polyline" in page
    opponents = {o.name: (o.wins, o.draws, o.losses) for o in response.context["opponents"]}
    assert set(opponents) == {"beta", "gamma"}  # the private opponent is not shown to others
    assert all(sum(result) == 2 for result in opponents.values())
    for opponent in response.context["opponents"]:  # the Elo difference with its interval, as the API gives it
        assert opponent.estimate.words() in page
    games = Game.objects.filter(match__in=[m.pk for m in league["matches"][:1] + league["matches"][2:3]])
    assert {g.pk for g in response.context["recent"]} == set(games.values_list("pk", flat=True))
    assert 'enctype="multipart/form-data"' not in page  # no upload form for others


def test_owner_sees_rejection_reasons_others_do_not(league, player):
    alpha = league["alpha"].bot
    rejected_version(alpha)  # its newest version: the crash bot, "init-failed: crash: exit code 3"
    assert "init-failed: crash" not in text(client_for().get(f"/bots/{alpha.pk}/"))
    mine = text(client_for(player).get(f"/bots/{alpha.pk}/"))
    assert "init-failed: crash" in mine and 'enctype="multipart/form-data"' in mine


def test_game_page_shows_moves_result_players_and_record_links(league):
    game = Game.objects.filter(match=league["matches"][0]).order_by("number").first()
    response = client_for().get(f"/games/{game.pk}/")
    page = text(response)
    assert response.status_code == 200
    for action in game.record["actions"]:
        assert action in page
    assert f"/api/games/{game.pk}/" in page and f"/api/games/{game.pk}/record.txt" in page
    assert game.reason in page and f"match #{game.match_id}" in page
    assert [ms for _, _, ms in response.context["moves"]] == game.record["times"]


def test_game_page_never_shows_the_bots_stderr_or_log(league, player, other_player):
    secrets = {"stderr": {"white": "SECRET-STDERR", "black": ""}, "log": ["SECRET-LOG-LINE"]}
    game = finished_match(league["alpha"], league["beta"], also=secrets).games.first()
    for user in (None, player, other_player):
        page = text(client_for(user).get(f"/games/{game.pk}/"))
        assert "SECRET-STDERR" not in page and "SECRET-LOG-LINE" not in page


def test_match_tournament_and_player_pages(league, player):
    match = league["matches"][0]
    assert "alpha" in text(client_for().get(f"/matches/{match.pk}/"))
    tournament = create_tournament(player, name="Winter cup", game="tafl9", time_control="move:100")
    from tournaments.services import add_entrant, start_tournament

    for key in ("alpha", "beta", "gamma"):
        add_entrant(tournament, league[key])
    start_tournament(tournament)
    played = tournament.matches.order_by("id").first()
    from tests.support import random_record
    from tournaments.services import claim_match, finish_match

    finish_match(played.pk, claim_match(played.pk, "w"), [random_record("tafl9", n) for n in range(2)])
    response = client_for().get(f"/tournaments/{tournament.pk}/")
    page = text(response)
    assert response.status_code == 200 and "Crosstable" in page and "Standings" in page
    assert response.context["progress"]["done"] == 1 and response.context["progress"]["total"] == 6
    assert sum(s.games for s, shown in response.context["standings"]) == 4
    # the tie-break order is shown with the standings, one column each (issue 17, item 9)
    assert "Ranked by score, then Direct encounter, Games won, Sonneborn–Berger, Koya." in page
    assert "unrated" in page  # a player's tournament (issue 17, item 8)
    profile = text(client_for().get("/players/ada/"))
    assert "alpha" in profile and "gamma" in profile and "Winter cup" in profile
    assert "secret" not in text(client_for().get("/players/grace/"))
    assert "secret" in text(client_for(league["secret"].bot.owner).get("/players/grace/"))


def test_starter_kits_are_zips_the_upload_takes(player):
    import io
    import zipfile

    response = client_for().get("/take-part/tafl9-random.zip")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert "bot.toml" in names
    from tournaments.services import upload_version

    version = upload_version(make_bot(player, "kit"), SimpleUploadedFile("kit.zip", response.content))
    assert version.kind == "zip"
    assert "BGTP/1" in text(client_for().get("/take-part/protocol/"))


# --- not found, private ---------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["/bots/999999/", "/games/999999/", "/matches/999999/", "/tournaments/999999/",
                                 "/players/nobody/", "/leaderboard/chess/", "/no/such/page/",
                                 "/bots/99999999999999999999999/", "/take-part/nokit.zip",
                                 "/matches/999999/live/"])
def test_missing_things_are_the_friendly_404_page(url, db, settings):
    settings.DEBUG = True  # the laptop default: still not Django's debug page
    response = client_for().get(url)
    assert response.status_code == 404
    assert "Not found" in text(response) and "Tabula Arena" in text(response)
    assert "Django" not in text(response) and "URLconf" not in text(response)


def test_a_private_bot_and_its_games_are_404_to_others(league, player, other_player):
    secret = league["secret"]
    game = Game.objects.filter(white=secret).first() or Game.objects.filter(black=secret).first()
    match = league["matches"][3]
    for url in (f"/bots/{secret.bot_id}/", f"/games/{game.pk}/", f"/matches/{match.pk}/"):
        assert client_for().get(url).status_code == 404
        assert client_for(player).get(url).status_code == 404
        assert client_for(other_player).get(url).status_code == 200


# --- forms ----------------------------------------------------------------------------------------

def test_register_then_create_a_bot_and_upload_a_version(db):
    client = client_for()
    response = client.post("/account/register/", {"username": "lin", "password": "a-long-pass-42"})
    assert response.status_code == 302
    response = client.post("/bots/new/", {"game": "shatra", "name": "steppe", "description": "", "is_public": "on"})
    bot = Bot.objects.get(name="steppe")
    assert response.status_code == 302 and response["Location"] == f"/bots/{bot.pk}/"
    upload = SimpleUploadedFile("bot.py", b"print('hi')\n")
    response = client.post(f"/bots/{bot.pk}/", {"file": upload})
    assert response.status_code == 302
    assert list(bot.versions.values_list("number", "status")) == [(1, "pending")]


@pytest.mark.parametrize("data, field, message", [
    ({"username": "", "password": "a-long-pass-42"}, "username", "required"),
    ({"username": "lin", "password": "123"}, "password", "too short"),
    ({"username": "ada", "password": "a-long-pass-42"}, "username", "taken"),
])
def test_register_refuses_bad_input_beside_the_field(data, field, message, player):
    users = type(player).objects.count()
    response = client_for().post("/account/register/", data)
    assert response.status_code == 400
    assert any(message in error for error in response.context["form"].errors[field])
    assert f'id="id_{field}_error"' in text(response)
    assert type(player).objects.count() == users


@pytest.mark.parametrize("data, field, message", [
    ({"game": "chess", "name": "x"}, "game", "not one of the available choices"),
    ({"game": "tafl9", "name": ""}, "name", "required"),
    ({"game": "tafl9", "name": "alpha"}, "name", "already have"),
    ({"game": "tafl9", "name": "x" * 33}, "name", "is not a bot name"),
    ({"game": "tafl9", "name": "a/b"}, "name", "is not a bot name"),
])
def test_create_bot_refuses_bad_input_beside_the_field(data, field, message, player):
    make_bot(player, "alpha")
    response = client_for(player).post("/bots/new/", data)
    assert response.status_code == 400
    assert any(message in error for error in response.context["form"].errors[field]), response.context["form"].errors
    assert Bot.objects.count() == 1


@pytest.mark.parametrize("name, content, message", [
    ("bot.exe", b"MZ", "bot.exe"),
    ("bot.py", b"def (:\n", "does not compile"),
    ("bot.zip", b"not a zip", "zip"),
])
def test_upload_refuses_bad_files_beside_the_field(name, content, message, player):
    bot = make_bot(player, "alpha")
    response = client_for(player).post(f"/bots/{bot.pk}/", {"file": SimpleUploadedFile(name, content)})
    assert response.status_code == 400
    errors = response.context["form"].errors["file"]
    assert any(message in error for error in errors), errors
    assert 'id="id_file_error"' in text(response)
    assert not BotVersion.objects.exists()


def test_only_the_owner_may_upload(player, other_player):
    bot = make_bot(player, "alpha")
    for user in (None, other_player):
        response = client_for(user).post(f"/bots/{bot.pk}/", {"file": SimpleUploadedFile("bot.py", b"pass\n")})
        assert response.status_code == 404
    assert not BotVersion.objects.exists()


def test_the_owner_tests_a_new_version_and_stops_the_test_from_the_bot_page(league, player, other_player):
    from ratings.models import VersionTest

    old = league["alpha"]
    new = ready_version(old.bot)
    url = f"/bots/{old.bot_id}/"
    client = client_for(player)
    page = client.get(url)
    assert 'value="sprt"' in text(page) and "No version test yet" in text(page)
    assert 'value="sprt"' not in text(client_for(other_player).get(url))
    refused = client.post(url, {"action": "sprt", "version": new.pk, "elo0": 10, "elo1": 0})
    assert refused.status_code == 400 and "elo1" in refused.context["sprt_form"].errors
    assert not VersionTest.objects.exists()
    started = client.post(url, {"action": "sprt", "version": new.pk, "elo0": 0, "elo1": 5, "gate": "on"})
    assert started.status_code == 302
    test = VersionTest.objects.get()
    assert (test.candidate, test.baseline, test.elo1, test.gate) == (new, old, 5.0, True)
    page = text(client_for().get(url))
    assert f'data-sprt="{test.pk}" data-state="running"' in page and f"v{new.number} vs v{old.number}" in page
    assert 'value="stop-sprt"' not in page  # a visitor sees the test, not the button
    for user in (None, other_player):
        assert client_for(user).post(url, {"action": "stop-sprt", "test": test.pk}).status_code == 404
    for bad in ("", "x", "9" * 40, "²"):
        response = client.post(url, {"action": "stop-sprt", "test": bad})
        assert response.status_code == 400 and "no such SPRT" in text(response)
    assert client.post(url, {"action": "stop-sprt", "test": test.pk}).status_code == 302
    test.refresh_from_db()
    assert test.state == "stopped"
    again = client.post(url, {"action": "stop-sprt", "test": test.pk})
    assert again.status_code == 400 and "has ended already" in text(again)


def test_the_owner_sees_how_long_a_test_would_take_and_how_an_ended_one_came_out(league, player, settings):
    from ratings import sprt
    from ratings.models import VersionTest
    from tests.support import play_test_match

    settings.ARENA = {**settings.ARENA, "DEFAULT_GAMES_PER_MATCH": 50}  # 25 pairs a match: the cap in 4 matches
    old = league["alpha"]
    new = ready_version(old.bot)
    url = f"/bots/{old.bot_id}/"
    client = client_for(player)
    body = {"action": "sprt-preview", "version": new.pk, "elo0": 0, "elo1": 3, "elo_model": "normalized",
            "max_pairs": 100}
    preview = client.post(url, body)
    assert preview.status_code == 200 and not VersionTest.objects.exists()
    forecast = preview.context["sprt_forecast"]
    assert forecast["max_pairs"] == 100 and f"{forecast['at_elo1']['games']} games" in text(preview)
    refused = client.post(url, {**body, "max_pairs": 5})
    assert refused.status_code == 400 and "max_pairs" in refused.context["sprt_form"].errors
    assert refused.context["sprt_forecast"] is None
    assert client.post(url, {**body, "action": "sprt"}).status_code == 302
    test = VersionTest.objects.get()
    assert (test.elo_model, test.max_pairs, test.elo1) == ("normalized", 100, 3.0)
    # Played to its cap with even results (pairs scoring 2, 0, 1, 1½ and ½ for the new version, in turn):
    # inconclusive, with the sequential estimate.
    while test.state == "running":
        test = play_test_match(test, (1, 1, 0, 0, 1, 0, 0.5, 1, 0, 0.5) * 5)
    assert (test.state, test.pentanomial) == ("inconclusive", [20, 20, 20, 20, 20])
    page = text(client_for().get(url))
    assert f'data-sprt="{test.pk}" data-state="inconclusive"' in page and 'data-estimate="sequential"' in page
    shown = sprt.sequential_estimate(test.pentanomial, sprt.Hypotheses(0.0, 3.0, elo_model="normalized"))
    assert f"[{shown.low:.1f}, {shown.high:.1f}]" in page


def test_tournament_form_creates_enters_and_starts(league, player, other_player):
    client = client_for(player)
    response = client.post("/tournaments/new/", {"name": "Cup", "game": "tafl9", "time_control": "move:200",
                                                 "games_per_pairing": 2, "double_round": "on"})
    tournament = Tournament.objects.get(name="Cup")
    assert response.status_code == 302 and tournament.organiser == player
    for key in ("alpha", "beta"):
        assert client.post(f"/tournaments/{tournament.pk}/", {"action": "add",
                                                              "version": league[key].pk}).status_code == 302
    # someone else's private bot is not offered, and cannot be forced in
    response = client.post(f"/tournaments/{tournament.pk}/", {"action": "add", "version": league["secret"].pk})
    assert response.status_code == 400 and "version" in response.context["form"].errors
    # only the organiser changes it
    assert client_for(other_player).post(f"/tournaments/{tournament.pk}/", {"action": "start"}).status_code == 404
    assert client.post(f"/tournaments/{tournament.pk}/", {"action": "start"}).status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == "running" and tournament.matches.count() == 2  # one pairing, both colours


@pytest.mark.parametrize("data, field, message", [
    ({"name": "", "game": "tafl9", "games_per_pairing": 2}, "name", "required"),
    ({"name": "Cup", "game": "tafl9", "time_control": "fast", "games_per_pairing": 2}, "time_control",
     "time control"),
    ({"name": "Cup", "game": "tafl9", "games_per_pairing": 0}, "games_per_pairing", "from 1 to"),
    ({"name": "Cup", "game": "tafl9", "games_per_pairing": "two"}, "games_per_pairing", "whole number"),
    ({"name": "Cup", "game": "tafl9", "games_per_pairing": 2, "tiebreaks": "wins, dice"}, "tiebreaks",
     "unknown tie-break 'dice'"),
])
def test_tournament_form_refuses_bad_input_beside_the_field(data, field, message, player):
    response = client_for(player).post("/tournaments/new/", data)
    assert response.status_code == 400
    errors = response.context["form"].errors[field]
    assert any(message in error for error in errors), errors
    assert not Tournament.objects.exists()


def test_tournament_form_takes_a_tie_break_order_and_only_staff_make_it_official(player, admin_user):
    data = {"name": "Cup", "game": "tafl9", "games_per_pairing": 2, "tiebreaks": "koya, wins", "official": "on"}
    form = client_for(player).get("/tournaments/new/").context["form"]
    assert "official" not in form.fields and "tiebreaks" in form.fields
    assert client_for(player).post("/tournaments/new/", data).status_code == 302
    mine = Tournament.objects.get()
    assert (mine.official, mine.tiebreak_order) == (False, ["koya", "wins"])  # a player's "official" is not read
    assert "Ranked by score, then Koya, Games won." in text(client_for().get(f"/tournaments/{mine.pk}/"))
    assert client_for(admin_user).post("/tournaments/new/", {**data, "name": "Open"}).status_code == 302
    assert Tournament.objects.get(name="Open").official


def test_forms_need_a_logged_in_player(db):
    for url in ("/bots/new/", "/tournaments/new/"):
        response = client_for().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/account/login/")


# --- query counts: the same with more data --------------------------------------------------------

def queries(client, url) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured.captured_queries)


@pytest.mark.slow
def test_page_query_counts_do_not_grow_with_the_data(league, player, other_player):
    from django.core.cache import cache

    alpha = league["alpha"]
    game = Game.objects.filter(white=alpha).first()
    tournament = create_tournament(player, name="Cup", game="tafl9", time_control="move:100")
    urls = ["/", "/leaderboard/tafl9/", f"/bots/{alpha.bot_id}/", f"/games/{game.pk}/",
            f"/matches/{game.match_id}/", f"/tournaments/{tournament.pk}/", "/players/ada/", "/tournaments/"]
    client = client_for(player)
    before = {url: queries(client, url) for url in urls}
    for number in range(6):  # more opponents, more games, more matches, more bots
        other = ready_version(make_bot(player if number % 2 else other_player, f"more-{number}"))
        finished_match(alpha, other, seed=10 + number, games=3)
        finished_match(other, league["beta"], seed=20 + number)
    from tournaments.services import add_entrant

    for key in ("alpha", "beta", "gamma"):
        add_entrant(tournament, league[key])
    cache.clear()
    after = {url: queries(client, url) for url in urls}
    assert after == before
    assert max(after.values()) <= 15, after  # the owner's bot page: its SPRT form offers the game's opening suites


def test_visitors_pages_are_kept_until_a_bot_changes(league, player, django_capture_on_commit_callbacks):
    from tournaments.services import update_bot

    alpha = league["alpha"].bot
    visitor = client_for()
    assert queries(visitor, f"/bots/{alpha.pk}/") > 0
    assert queries(visitor, f"/bots/{alpha.pk}/") == 0  # kept, rendered
    assert queries(client_for(player), f"/bots/{alpha.pk}/") > 0  # the owner's page is built for her
    with django_capture_on_commit_callbacks(execute=True):
        update_bot(alpha, is_public=False)
    assert visitor.get(f"/bots/{alpha.pk}/").status_code == 404  # private at once, not 5 s later
    assert "alpha" not in text(visitor.get("/leaderboard/tafl9/"))


def test_a_private_entrant_is_a_private_bot_on_the_tournament_page(league, player, other_player):
    from tournaments.services import add_entrant

    cup = create_tournament(other_player, name="Cup", game="tafl9", time_control="move:100")
    add_entrant(cup, league["secret"])
    add_entrant(cup, league["beta"])
    for user in (None, player):
        page = text(client_for(user).get(f"/tournaments/{cup.pk}/"))
        assert "secret" not in page and f"/bots/{league['secret'].bot_id}/" not in page
        assert page.count("private bot") == 2  # standings and crosstable
    owner = text(client_for(other_player).get(f"/tournaments/{cup.pk}/"))
    assert "secret" in owner and "private bot" not in owner


def test_the_organiser_is_offered_only_bots_whose_owners_consented(league, player, other_player):
    from tournaments.services import update_bot

    update_bot(league["beta"].bot, open_to_tournaments=False)
    cup = create_tournament(player, name="Cup", game="tafl9", time_control="move:100")
    form = client_for(player).get(f"/tournaments/{cup.pk}/").context["form"]
    offered = {pk for pk, _ in form.fields["version"].choices}
    assert offered == {league["alpha"].pk, league["gamma"].pk}
    response = client_for(player).post(f"/tournaments/{cup.pk}/", {"action": "add", "version": league["beta"].pk})
    assert response.status_code == 400 and "version" in response.context["form"].errors
    assert not cup.entrants.exists()


def test_fitted_ratings_show_with_their_interval(league):
    from tournaments.services import create_player
    from tournaments.services.ratings import fit_ratings

    delta = ready_version(make_bot(create_player(username="hedy", password="lamarr-1914"), "delta"))
    for seed in range(5):  # enough rated results, both ways, for the fit to bound most ratings
        for a, b in ((league["alpha"], league["beta"]), (league["beta"], league["gamma"]), (delta, league["alpha"]),
                     (delta, league["beta"]), (league["gamma"], delta)):
            finished_match(a, b, seed=100 + seed)
    fit_ratings(["tafl9"])
    from ratings.models import FittedRating

    fitted = {f.bot_id: f for f in FittedRating.objects.filter(current=True)}  # the versions on the ladder
    board = client_for().get("/leaderboard/tafl9/")
    assert {row["bot_id"]: row["fitted"] for row in board.context["rows"]} == {
        bot_id: fitted.get(bot_id) for bot_id in (*(league[k].bot_id for k in ("alpha", "beta", "gamma")),
                                                   delta.bot_id)}
    shown = [f for f in fitted.values() if f.elo is not None]
    assert shown, fitted
    for f in shown:
        assert f'data-fitted="{f.elo:.1f}"' in text(board) and f"± {f.margin:.0f}" in text(board)
        assert f'data-fitted="{f.elo:.1f}"' in text(client_for().get(f"/bots/{f.bot_id}/"))
    for f in fitted.values():
        if f.elo is None:
            assert f.status in text(board) and f'title="{f.status_text}"' in text(board)  # what it means, on hover


def test_the_provisional_mark_follows_the_ranking_on_both_pages(league, settings):
    """The pages mark a bot provisional by the API's rule (not ranked: the fitted margin of the version it plays
    the ladder with is wider than LEADERBOARD_RANKED_MARGIN, or the results leave it open) and list it apart;
    a private bot's own page shows its fitted rating to its owner."""
    from tests.support import make_player, refit, scored

    settings.ARENA = {**settings.ARENA, "LEADERBOARD_RANKED_MARGIN": 170}  # between alpha's margin and beta's
    alpha, beta = league["alpha"], league["beta"]
    hedy = make_player("hedy")
    sparring = ready_version(make_bot(hedy, "sparring", is_public=False))
    scored(alpha, sparring, wins=10, draws=4, losses=10)  # many games: alpha's interval narrows
    scored(sparring, alpha, wins=10, draws=4, losses=10)
    scored(beta, alpha, wins=4)  # beta, on few games, is rated higher but less surely
    gamma = ready_version(league["gamma"].bot)  # its new version met only a bot no game links to the pool
    scored(gamma, ready_version(make_bot(hedy, "hermit", is_public=False)), wins=1, losses=1)
    fitted = refit()
    ranked, provisional, apart = fitted[alpha.bot_id], fitted[beta.bot_id], fitted[gamma.bot_id]
    assert ranked.margin <= 170 < provisional.margin and provisional.elo > ranked.elo  # what the test stands on
    assert (apart.status, apart.elo) == ("apart", None)
    page = client_for().get("/leaderboard/tafl9/")
    assert f'<abbr class="muted" title="{apart.status_text}">apart</abbr>' in text(page)  # an open rating says why
    assert [row["bot_id"] for row in page.context["ranked"]] == [alpha.bot_id]
    assert {row["bot_id"]: row["standing"] for row in page.context["provisional"]} == {
        beta.bot_id: "provisional", gamma.bot_id: "unbounded"}
    ranked_part, provisional_part = text(page).split('data-part="provisional"')
    assert 'data-rank-interval="1-1"' in ranked_part and 'data-p-first="1.000"' in ranked_part
    assert f'data-fitted="{provisional.elo:.1f}"' in provisional_part
    assert f'data-fitted="{provisional.elo:.1f}"' not in ranked_part
    # The home page's card is the board's head: the ranked bot numbered by its rank with its fitted rating, the
    # provisional ones apart and unnumbered (beta, rated higher on few games, is not "1.").
    card = text(client_for().get("/")).split('aria-labelledby="top-tafl9"')[1].split("</section>")[0]
    ranked_list, provisional_list = card.split('class="toplist provisional"')
    assert f'<li value="1" data-bot="{alpha.bot_id}">' in ranked_list and f">{ranked.elo:.0f}<" in ranked_list
    assert f'data-bot="{beta.bot_id}"' in provisional_list and f'data-bot="{beta.bot_id}"' not in ranked_list
    assert f">{provisional.elo:.0f}<" in provisional_list
    assert client_for().get(f"/bots/{alpha.bot_id}/").context["provisional"] is False
    assert 'data-rank="1"' in text(client_for().get(f"/bots/{alpha.bot_id}/"))
    assert client_for().get(f"/bots/{beta.bot_id}/").context["provisional"] is True
    update_bot(alpha.bot, is_public=False)
    page = client_for(alpha.bot.owner).get(f"/bots/{alpha.bot_id}/")
    assert page.context["fitted"].elo == ranked.elo and f'data-fitted="{ranked.elo:.1f}"' in text(page)


def test_the_bot_page_shows_each_versions_own_fitted_rating(league, settings):
    """The fit rates versions: the version history shows each one's rating, the ladder's marked; an unsettled
    rating (a ±1000 interval says nothing) shows as a word, not a four-digit number."""
    from ratings.models import FittedRating
    from tests.support import refit, scored

    # A wide prior on a new version (the setting has no ceiling): one game leaves it over ±1000.
    settings.ARENA = {**settings.ARENA, "RATING_VERSION_PRIOR_SD": 10000}
    alpha = league["alpha"]
    newer = ready_version(alpha.bot)
    scored(newer, league["beta"], wins=1)
    refit()
    rows = {row.version_id: row for row in FittedRating.objects.filter(bot=alpha.bot)}
    settled, unsettled = rows[alpha.pk], rows[newer.pk]
    assert (settled.current, settled.margin < 1000) == (False, True)
    assert (unsettled.current, unsettled.margin >= 1000, unsettled.games) == (True, True, 1)
    page = text(client_for().get(f"/bots/{alpha.bot_id}/"))
    first, second = (page.split(f'data-version-fitted="{number}">')[1].split("</td>")[0]
                     for number in (alpha.number, newer.number))
    assert f'data-fitted="{settled.elo:.1f}"' in first and f"± {settled.margin:.0f}" in first
    assert "ladder" not in first
    assert "unsettled" in second and "data-fitted" not in second and f"{unsettled.elo:.0f}" not in second
    assert "ladder" in second
    assert "No fitted rating" not in page


# --- issue 21's small things ----------------------------------------------------------------------

def test_a_game_between_a_bots_own_versions_is_listed_once(player):
    old = ready_version(make_bot(player, "twin"))
    new = ready_version(old.bot)
    finished_match(old, new, games=2, rated=False)
    response = client_for(player).get(f"/bots/{old.bot_id}/")
    ids = [game.pk for game in response.context["recent"]]
    assert len(ids) == 2 and len(set(ids)) == 2


def test_standings_before_the_first_game_show_a_dash_for_the_rank(league, player):
    client = client_for(player)
    client.post("/tournaments/new/", {"name": "Cup", "game": "tafl9", "time_control": "move:200",
                                      "games_per_pairing": 2})
    tournament = Tournament.objects.get(name="Cup")
    for key in ("alpha", "beta"):
        client.post(f"/tournaments/{tournament.pk}/", {"action": "add", "version": league[key].pk})
    page = text(client.get(f"/tournaments/{tournament.pk}/"))
    assert '<td class="num">–</td>' in page and '<td class="num">None</td>' not in page


def test_the_opponents_table_spells_out_what_is_not_a_number(player, other_player):
    mine, theirs = ready_version(make_bot(player, "sweeper")), ready_version(make_bot(other_player, "swept"))
    finished_match(mine, theirs, ["white", "white"])  # one win each side: 1-1, one pair split
    page = text(client_for(player).get(f"/bots/{mine.bot_id}/"))
    assert "inf" not in page.split('id="opponents"')[1].split("</section>")[0]
    table = page.split('id="opponents"')[1].split("</section>")[0]
    assert "swept" in table and "(too few games for an interval)" in table  # the row is there, in words


def test_gauntlet_and_knockout_pages_show_their_table_and_bracket(league, player):
    from tournaments.services import claim_match, finish_match

    def settle(match, winners):
        token = claim_match(match.pk, "w")
        reasons = {"white": "escape", "black": "king-captured"}
        assert finish_match(match.pk, token, [{"game": "tafl9", "winner": w, "reason": reasons[w], "plies": 3,
                                               "actions": []} for w in winners])

    client = client_for(player)
    assert client.post("/tournaments/new/", {"name": "Gaunt", "game": "tafl9", "games_per_pairing": 2,
                                             "format": "gauntlet"}).status_code == 302
    gauntlet = Tournament.objects.get(name="Gaunt")
    for key in ("beta", "gamma"):
        added = client.post(f"/tournaments/{gauntlet.pk}/", {"action": "add", "version": league[key].pk})
        assert added.status_code == 302
    refused = client.post(f"/tournaments/{gauntlet.pk}/", {"action": "start"})
    assert refused.status_code == 400 and "no champion is named" in text(refused)
    assert client.post(f"/tournaments/{gauntlet.pk}/", {"action": "champion",
                                                        "version": league["alpha"].pk}).status_code == 302
    gauntlet.refresh_from_db()
    assert gauntlet.champion_id == league["alpha"].pk
    assert client.post(f"/tournaments/{gauntlet.pk}/", {"action": "start"}).status_code == 302
    match, _ = gauntlet.matches.order_by("id")
    settle(match, ["white", "black"])
    page = text(client.get(f"/tournaments/{gauntlet.pk}/"))
    assert "against the field" in page and "scored every point" in page and f"/matches/{match.pk}/" in page
    assert f"/tournaments/{gauntlet.pk}/records.zip" in page

    assert client.post("/tournaments/new/", {"name": "KO", "game": "tafl9", "games_per_pairing": 2,
                                             "format": "knockout", "seeding": "listed",
                                             "tiebreak_pairs": 1}).status_code == 302
    knockout = Tournament.objects.get(name="KO")
    for key in ("alpha", "beta"):
        client.post(f"/tournaments/{knockout.pk}/", {"action": "add", "version": league[key].pk})
    assert client.post(f"/tournaments/{knockout.pk}/", {"action": "start"}).status_code == 302
    (final,) = knockout.matches.all()
    settle(final, ["white", "black"])
    page = text(client.get(f"/tournaments/{knockout.pk}/"))
    assert "Bracket" in page and "Final" in page and "Winner:" in page and f"/matches/{final.pk}/" in page
