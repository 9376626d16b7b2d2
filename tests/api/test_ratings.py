"""The leaderboard per game, a bot's rating (live and fitted) and its rating history."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from ratings.models import FittedRating, Rating, RatingChange, RatingFit
from tests.support import finished_match, make_bot, make_player, ready_version, refit, scored
from tournaments.services import update_bot

from .conftest import client_for


def test_before_any_fit_the_leaderboard_ranks_nobody_and_lists_every_bot_by_live_elo(anon, player, other_player):
    low, high = ready_version(make_bot(player, "low")), ready_version(make_bot(other_player, "high"))
    secret = ready_version(make_bot(player, "secret", is_public=False))
    scored(high, low, wins=2)
    scored(secret, high, wins=2)  # the private bot beat the best: first by live Elo, and still not listed
    elo = {version.bot.name: Rating.objects.get(bot=version.bot).elo for version in (low, high, secret)}
    assert elo["secret"] > elo["high"] > elo["low"]
    khan = ready_version(make_bot(player, "khan", game="shatra"))
    finished_match(khan, ready_version(make_bot(other_player, "hidden", game="shatra", is_public=False)), games=1)
    body = anon.get("/api/leaderboard/tafl9/").json()
    assert [(r["rank"], r["bot_name"], r["owner"], r["standing"], r["provisional"]) for r in body["results"]] == [
        (None, "high", "grace", "unfitted", True), (None, "low", "ada", "unfitted", True)]
    assert [r["bot_name"] for r in anon.get("/api/leaderboard/shatra/").json()["results"]] == ["khan"]


def test_leaderboard_of_an_unknown_game(anon, db):
    response = anon.get("/api/leaderboard/chess/")
    assert response.status_code == 404
    assert "chess" in " ".join(response.json()["detail"])


def test_rating_history_after_a_live_rated_match(anon, versions):
    from tournaments.models import Game
    from tournaments.services.ratings import recompute_ratings

    a, b = versions
    match = finished_match(a, b, games=2)
    recompute_ratings(history=True)
    history = anon.get(f"/api/bots/{a.bot_id}/rating-history/").json()["results"][::-1]  # newest first
    games = list(Game.objects.filter(match=match).order_by("id").values_list("id", flat=True))
    assert [h["game"] for h in history] == games
    assert all(h["match"] == match.pk for h in history)
    # Game 1: A white wins; game 2: B white... winner black = A again: A gains twice.
    assert history[0]["before"] == 1500.0 and history[0]["delta"] > 0 and history[1]["delta"] > 0
    assert history[1]["before"] == history[0]["after"]
    assert RatingChange.objects.count() == 4


def test_rating_history_of_a_private_bot_is_hidden(grace, player):
    secret = make_bot(player, "secret", is_public=False)
    assert grace.get(f"/api/bots/{secret.pk}/rating-history/").status_code == 404


def test_unrated_bot_has_empty_history(anon, player):
    bot = make_bot(player, "fresh")
    ready_version(bot)
    assert anon.get(f"/api/bots/{bot.pk}/rating-history/").json()["results"] == []


RANKED_MARGIN = 150  # between the margins the fixture's results give alpha and beta


@pytest.fixture
def fitted(player, other_player, settings):
    """Three public tafl9 bots after rated matches and a fit: alpha (player's), whose 40 games against a private
    sparring partner narrow its interval enough to rank it, beta (other_player's), which beat alpha 3-1 and is
    rated higher but on 4 games (provisional), and gamma (other_player's), whose only games were against a private
    bot no game links to the pool (its rating unbounded)."""
    settings.ARENA = {**settings.ARENA, "LEADERBOARD_RANKED_MARGIN": RANKED_MARGIN}
    hedy = make_player("hedy")
    alpha, beta, gamma = (ready_version(make_bot(owner, name)) for owner, name in
                          ((player, "alpha"), (other_player, "beta"), (other_player, "gamma")))
    sparring = ready_version(make_bot(hedy, "sparring", is_public=False))
    scored(alpha, sparring, wins=8, draws=4, losses=8)
    scored(sparring, alpha, wins=8, draws=4, losses=8)
    scored(beta, alpha, wins=3, losses=1)
    scored(gamma, ready_version(make_bot(hedy, "hermit", is_public=False)), wins=1, losses=1)
    rows = refit()
    assert rows[alpha.bot_id].margin <= RANKED_MARGIN < rows[beta.bot_id].margin  # what the tests stand on
    assert rows[beta.bot_id].elo > rows[alpha.bot_id].elo and rows[gamma.bot_id].elo is None
    cache.clear()
    return {version.bot.name: version.bot for version in (alpha, beta, gamma)}


def board_row(bot) -> FittedRating:
    """The bot's row of the latest fit: the version it played the ladder with."""
    return FittedRating.objects.get(bot=bot, current=True)


def test_leaderboard_gives_the_fitted_rating_its_interval_the_provisional_mark_and_the_colour_advantage(
        anon, fitted):
    mine = fitted["alpha"].versions.get()
    alpha, beta = board_row(fitted["alpha"]), board_row(fitted["beta"])
    rows = {row["bot_name"]: row for row in anon.get("/api/leaderboard/tafl9/").json()["results"]}
    assert (rows["alpha"]["fitted_elo"], rows["alpha"]["fitted_margin"], rows["alpha"]["fitted_status"]) == (
        alpha.elo, alpha.margin, "rated")
    # The ranked bot comes first, though beta's fitted number is higher: its wider margin is not mixed into the
    # ranking.
    assert rows["beta"]["fitted_elo"] == beta.elo > alpha.elo
    assert list(rows) == ["alpha", "beta", "gamma"]
    assert (rows["alpha"]["provisional"], rows["alpha"]["standing"]) == (False, "ranked")
    assert (rows["alpha"]["rank"], rows["alpha"]["rank_low"], rows["alpha"]["rank_high"], rows["alpha"]["p_first"],
            rows["alpha"]["fitted_version"], rows["alpha"]["fitted_games"]) == (1, 1, 1, 1.0, mine.pk, 44)
    assert (rows["beta"]["provisional"], rows["beta"]["standing"], rows["beta"]["rank"]) == (True, "provisional", None)
    assert (rows["gamma"]["fitted_elo"], rows["gamma"]["fitted_status"], rows["gamma"]["provisional"],
            rows["gamma"]["standing"], rows["gamma"]["rank_low"], rows["gamma"]["p_first"]) == (
        None, "apart", True, "unbounded", None, None)
    advantage = RatingFit.objects.get(game="tafl9").advantage
    assert advantage is not None and {row["first_player_advantage"] for row in rows.values()} == {advantage}
    assert rows["alpha"]["elo"] == Rating.objects.get(bot=mine.bot).elo  # the live Elo stays, unrounded


def test_a_bot_gives_the_same_fitted_fields_as_the_leaderboard(anon, fitted):
    board = {row["bot_name"]: row for row in anon.get("/api/leaderboard/tafl9/").json()["results"]}
    for name, bot in fitted.items():
        rating = anon.get(f"/api/bots/{bot.pk}/").json()["rating"]
        shown = ("elo", "games", "wins", "draws", "losses", "fitted_version", "fitted_elo", "fitted_margin",
                 "fitted_status", "fitted_games", "standing", "provisional", "rank", "rank_low", "rank_high",
                 "p_first", "first_player_advantage")
        assert {key: rating[key] for key in shown} == {key: board[name][key] for key in shown}


def test_a_private_or_retired_bot_keeps_its_fitted_rating_on_its_own_page(player, fitted):
    bot = fitted["alpha"]
    update_bot(bot, is_public=False, is_retired=True)
    cache.clear()
    rating = client_for(player).get(f"/api/bots/{bot.pk}/").json()["rating"]
    row = board_row(bot)
    assert (rating["fitted_elo"], rating["fitted_margin"], rating["provisional"]) == (row.elo, row.margin, False)


def test_a_bot_before_any_fit_has_null_fitted_fields_and_is_provisional(anon, player, other_player):
    bot = make_bot(player, "fresh")
    scored(ready_version(bot), ready_version(make_bot(other_player, "rival")), wins=20, draws=5, losses=5)
    rating = anon.get(f"/api/bots/{bot.pk}/").json()["rating"]
    assert (rating["elo"], rating["games"]) == (Rating.objects.get(bot=bot).elo, 30) and rating["elo"] > 1500
    assert rating["provisional"] is True and rating["standing"] == "unfitted"
    assert [rating[key] for key in ("fitted_version", "fitted_elo", "fitted_margin", "fitted_status", "rank",
                                    "rank_low", "rank_high", "p_first", "first_player_advantage")] == [None] * 9


def test_every_version_keeps_its_own_fitted_rating_in_the_version_history(anon, fitted, other_player):
    alpha = fitted["alpha"]
    older = alpha.versions.get()  # rated by the first fit
    current = ready_version(alpha)  # the ladder's version now: it plays, and the next fit rates it
    scored(current, ready_version(make_bot(other_player, "delta")), wins=2, losses=2)
    refit()
    newer = ready_version(alpha)  # uploaded after the fit: not in it yet
    cache.clear()
    body = anon.get(f"/api/bots/{alpha.pk}/").json()
    by_id = {v["id"]: v["fitted"] for v in body["versions"]}
    fits = {row.version_id: {"status": row.status, "elo": row.elo, "margin": row.margin, "games": row.games,
                             "current": row.current} for row in FittedRating.objects.filter(bot=alpha)}
    assert by_id == {newer.pk: None, current.pk: fits[current.pk], older.pk: fits[older.pk]}
    assert (fits[older.pk]["games"], fits[older.pk]["current"]) == (44, False)
    assert (fits[current.pk]["games"], fits[current.pk]["current"]) == (4, True)
    assert fits[older.pk]["elo"] != fits[current.pk]["elo"]  # each version its own rating
    # The bot's own rating is the fitted one of the version it played the ladder with at the fit.
    assert (body["rating"]["fitted_version"], body["rating"]["fitted_elo"]) == (current.pk, fits[current.pk]["elo"])
    listed = anon.get(f"/api/bots/{alpha.pk}/versions/").json()
    listed = listed["results"] if isinstance(listed, dict) else listed
    assert {v["id"]: v["fitted"] for v in listed} == by_id


A_WINS = ["white", "black"]  # version A wins both games, as white and as black


def test_the_leaderboard_from_real_games_ranks_the_sure_and_lists_the_rest(anon, player, other_player, settings):
    """From matches through the fit to the API: bots with a narrow enough interval get a rank, its interval and
    a chance of being first; a bot whose new version has no rated game yet is listed after them, unplayed,
    though its earlier version was rated."""
    from tournaments.services import create_player
    from tournaments.services.ratings import fit_ratings

    settings.ARENA = {**settings.ARENA, "LEADERBOARD_RANKED_MARGIN": 400}
    owners = [player, other_player, create_player(username="hedy", password="lamarr-1914")]
    versions = [ready_version(make_bot(owner, f"b{i}")) for i, owner in enumerate(owners)]
    for i, a in enumerate(versions):
        for b in versions[i + 1:]:
            for k in range(3):  # the first-named version wins both games of a match: 4 games to 2 each way round
                finished_match(a, b, A_WINS) if k % 2 == 0 else finished_match(b, a, A_WINS)
    newest = ready_version(versions[0].bot)
    fit_ratings(["tafl9"])
    cache.clear()
    rows = anon.get("/api/leaderboard/tafl9/").json()["results"]
    assert [r["standing"] for r in rows] == ["ranked", "ranked", "unplayed"]
    ranked = rows[:2]
    assert [r["rank"] for r in ranked] == [1, 2] and {r["bot"] for r in ranked} == {versions[1].bot_id,
                                                                                    versions[2].bot_id}
    assert all(r["rank_low"] <= r["rank"] <= r["rank_high"] and 0 <= r["p_first"] <= 1 for r in ranked)
    assert sum(r["p_first"] for r in ranked) == pytest.approx(1.0)
    assert (rows[2]["bot"], rows[2]["fitted_version"], rows[2]["rank"], rows[2]["provisional"]) == (
        versions[0].bot_id, newest.pk, None, True)
    history = {v["id"]: v["fitted"] for v in anon.get(f"/api/bots/{versions[0].bot_id}/").json()["versions"]}
    assert history[versions[0].pk]["status"] == "rated" and history[versions[0].pk]["current"] is False
    assert history[newest.pk]["games"] == 0 and history[newest.pk]["current"] is True
