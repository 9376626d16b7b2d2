"""The fitted ratings stored from the rated games: what is read, what is stored, and the reads the API can use."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F

from ratings import fit as fitting
from ratings.models import FittedRating, RatingFit
from ratings.selectors import fitted_leaderboard, rating_fit
from tournaments.models import Bot, Match
from tournaments.services import claim_match, create_match, finish_match
from tournaments.services.ratings import fit_ratings
from workers.tasks import fit_ratings as fit_task

from .conftest import ready_version, record

pytestmark = pytest.mark.django_db


def play(a, b, winners, rated=True):
    """A match of len(winners) games; version a is white in odd games (the match alternates colours)."""
    match = create_match(a, b, games=len(winners), rated=rated)
    token = claim_match(match.pk, "w")
    assert finish_match(match.pk, token, [record(w) for w in winners])
    return match


@pytest.fixture
def league(make_bot, rivals):
    """ann > bob > cid, all three trading results; dan only ever won; eve only ever lost (the fit's prior
    rates them too). Five owners (ann is ada's): two bots of one owner never play rated."""
    ann, (bob, cid, dan, eve) = ready_version(make_bot("ann")), rivals("bob", "cid", "dan", "eve")
    play(ann, bob, ["white", "black", "white", "white", "none", "black"])
    play(bob, cid, ["white", "none", "black", "white"])
    play(cid, ann, ["white", "white", "black", "none"])
    play(dan, ann, ["white", "black"])
    play(eve, cid, ["black", "white"])
    play(ann, cid, ["black"] * 6, rated=False)  # unrated: not read
    return ann, bob, cid, dan, eve


def test_the_stored_fit_is_the_fit_of_the_rated_games(league):
    ann, bob, cid, dan, eve = league
    [row] = fit_ratings(["tafl9"])
    assert (row.game, row.games, row.fitted_games, row.average, row.note) == ("tafl9", 18, 18, 1500.0, "")
    stored = {r.bot_id: r for r in FittedRating.objects.filter(fit=row)}
    assert {stored[v.bot_id].status for v in league} == {"rated"}  # the prior rates even one-sided results
    assert stored[dan.bot_id].elo > stored[ann.bot_id].elo and stored[eve.bot_id].elo < stored[cid.bot_id].elo
    assert [stored[v.bot_id].games for v in league] == [12, 10, 10, 2, 2]
    # The same games fitted directly, in another order, give the same numbers.
    white, black, score = [], [], []
    bots = [v.bot_id for v in league]
    for match_white, match_black, winners in [(0, 1, "wbwwnb"), (1, 2, "wnbw"), (2, 0, "wwbn"), (3, 0, "wb"),
                                              (4, 2, "bw")]:
        for number, winner in enumerate(winners):
            w, b = (match_white, match_black) if number % 2 == 0 else (match_black, match_white)
            white.append(w)
            black.append(b)
            score.append({"w": 1.0, "n": 0.5, "b": 0.0}[winner])
    direct = fitting.fit_games(white[::-1], black[::-1], score[::-1], 5)
    for k, bot in enumerate(bots):
        assert stored[bot].elo == pytest.approx(direct.players[k].elo, abs=1e-6)
        assert stored[bot].margin == pytest.approx(direct.players[k].margin, abs=1e-6)
    assert row.advantage == pytest.approx(direct.advantage, abs=1e-6)
    assert sum(stored[v.bot_id].elo for v in league) / 5 == pytest.approx(1500.0)
    assert stored[ann.bot_id].low < stored[ann.bot_id].elo < stored[ann.bot_id].high


def test_a_refit_replaces_the_stored_fit(league, settings):
    ann, bob, *_ = league
    first = fit_ratings(["tafl9"])[0]
    play(bob, ann, ["white", "white"])
    settings.ARENA = {**settings.ARENA, "RATING_FIT_AVERAGE": 2000}
    second = fit_ratings(["tafl9"])[0]
    assert second.pk == first.pk and second.games == 20 and second.fitted_at >= first.fitted_at
    assert RatingFit.objects.count() == 1 and FittedRating.objects.count() == 5
    rated = FittedRating.objects.filter(status="rated")
    assert sum(r.elo for r in rated) / rated.count() == pytest.approx(2000.0)


def test_a_game_without_rated_games_has_a_fit_that_says_so(league):
    rows = fit_ratings()
    assert [row.game for row in rows] == ["tafl9", "fidchell-1", "fidchell-2", "shatra"]
    empty = rating_fit("shatra")
    assert (empty.games, empty.note, empty.advantage, empty.ratings.count()) == (0, "no rated games", None, 0)


def test_two_versions_of_one_bot_are_one_bot_and_do_not_rate_each_other(make_bot, rivals):
    first = ready_version(make_bot("ann"))
    second = ready_version(first.bot)
    [bob] = rivals("bob")
    play(first, second, ["white", "white"])
    play(first, bob, ["white", "black"])
    play(bob, second, ["white", "black"])
    [row] = fit_ratings(["tafl9"])
    assert row.games == 4
    assert sorted(r.games for r in row.ratings.all()) == [4, 4]


def test_only_wins_by_one_side_give_equal_ratings_and_a_finite_advantage(pair):
    a, b = pair
    play(a, b, ["white", "white", "white", "white"])  # white won every game
    [row] = fit_ratings(["tafl9"])
    assert row.note == "" and 0 < row.advantage < 300  # the advantage's prior keeps it finite
    assert {(r.status, round(r.elo, 6)) for r in row.ratings.all()} == {("rated", 1500.0)}


def test_the_leaderboard_read_lists_public_bots_rated_first(league):
    ann, bob, cid, dan, eve = league
    Bot.objects.filter(pk=bob.bot_id).update(is_public=False)
    fit_ratings(["tafl9"])
    board = list(fitted_leaderboard("tafl9"))
    assert [r.bot_id for r in board] == sorted([ann.bot_id, cid.bot_id, dan.bot_id, eve.bot_id],
                                               key=lambda bot: -FittedRating.objects.get(bot_id=bot).elo)
    assert all(r.elo is not None for r in board)
    assert board[0].fit.game == "tafl9" and {r.bot.owner.username for r in board} >= {"ada"}
    assert list(fitted_leaderboard("shatra")) == [] and rating_fit("shatra") is None


def test_the_command_and_the_periodic_task(league, capsys):
    call_command("fit_ratings", "--game", "tafl9")
    out = capsys.readouterr().out
    assert "tafl9: 18 rated games, 5 bots rated, first-player advantage" in out
    with pytest.raises(CommandError, match="unknown game chess"):
        call_command("fit_ratings", "--game", "chess")
    assert fit_task() == 18
    assert list(RatingFit.objects.values_list("game", flat=True)) == ["tafl9"]  # no rated game elsewhere


def test_the_periodic_task_refits_only_the_games_whose_results_changed(league, settings):
    """Refitted while results come and once more after the last of them; then left alone until the next."""
    period = timedelta(seconds=settings.ARENA["RATING_FIT_SECONDS"])
    ann, bob, *_ = league
    assert fit_task() == 18  # never fitted, rated games: fitted
    RatingFit.objects.update(fitted_at=F("fitted_at") - 2 * period)
    Match.objects.update(finished_at=F("finished_at") - 4 * period)  # the last fit read them all, long ago
    before = RatingFit.objects.get().fitted_at
    assert fit_task() == 0 and RatingFit.objects.get().fitted_at == before  # nothing new: no refit
    play(ann, bob, ["white", "black"])
    assert fit_task() == 20 and RatingFit.objects.get().fitted_at > before
    assert fit_task() == 20  # once more: a match may have finished while that fit was reading
    RatingFit.objects.update(fitted_at=F("fitted_at") + 2 * period)
    assert fit_task() == 0
