"""The fitted ratings stored from the rated games: what is read, what is stored, and the reads the API can use."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F

from ratings import fit as fitting
from ratings.models import FittedRating, RatingFit
from ratings.selectors import STANDINGS, fitted_leaderboard, rating_fit, standing
from tests.support import finished_match, ready_version
from tournaments.models import Bot, Game, Match
from tournaments.services import pin_version, update_bot
from tournaments.services.ratings import fit_ratings
from workers.tasks import fit_ratings as fit_task

pytestmark = pytest.mark.django_db



@pytest.fixture
def league(make_bot, rivals):
    """ann > bob > cid, all three trading results; dan only ever won; eve only ever lost (the fit's prior
    rates them too). Five owners (ann is ada's): two bots of one owner never play rated."""
    ann, (bob, cid, dan, eve) = ready_version(make_bot("ann")), rivals("bob", "cid", "dan", "eve")
    finished_match(ann, bob, ["white", "black", "white", "white", "none", "black"])
    finished_match(bob, cid, ["white", "none", "black", "white"])
    finished_match(cid, ann, ["white", "white", "black", "none"])
    finished_match(dan, ann, ["white", "black"])
    finished_match(eve, cid, ["black", "white"])
    finished_match(ann, cid, ["black"] * 6, rated=False)  # unrated: not read
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
    finished_match(bob, ann, ["white", "white"])
    settings.ARENA = {**settings.ARENA, "RATING_FIT_AVERAGE": 2000}
    second = fit_ratings(["tafl9"])[0]
    assert second.pk == first.pk and second.games == 20 and second.fitted_at >= first.fitted_at
    assert RatingFit.objects.count() == 1 and FittedRating.objects.count() == 5
    rated = FittedRating.objects.filter(status="rated")
    assert sum(r.elo for r in rated) / rated.count() == pytest.approx(2000.0)


def test_the_stored_fit_uses_the_priors_of_the_settings(league, settings):
    fit_ratings(["tafl9"])
    spread = {r.bot_id: r.elo for r in FittedRating.objects.filter(status="rated")}
    settings.ARENA = {**settings.ARENA, "RATING_PRIOR_SD": 20, "RATING_ADVANTAGE_PRIOR_SD": 10}
    fit_ratings(["tafl9"])
    narrow = {r.bot_id: r.elo for r in FittedRating.objects.filter(status="rated")}
    assert narrow.keys() == spread.keys()
    assert max(narrow.values()) - min(narrow.values()) < 0.5 * (max(spread.values()) - min(spread.values()))


def test_a_game_without_rated_games_has_a_fit_that_says_so(league):
    rows = fit_ratings()
    assert [row.game for row in rows] == ["tafl9", "fidchell-1", "fidchell-2", "shatra"]
    empty = rating_fit("shatra")
    assert (empty.games, empty.note, empty.advantage, empty.ratings.count()) == (0, "no rated games", None, 0)


def scored(results: str) -> list[str]:
    """The winners of a match's games from version a's results ("w", "d", "l"): a is white in odd games."""
    winners = []
    for number, result in enumerate(results):
        a_colour, b_colour = ("white", "black") if number % 2 == 0 else ("black", "white")
        winners.append({"w": a_colour, "d": "none", "l": b_colour}[result])
    return winners


def test_each_version_is_rated_apart_and_the_board_row_is_the_version_on_the_ladder(make_bot, rivals):
    """A bot's new version, much stronger, is its own player: its rating is not dragged down by the old
    version's games (pooling them would rate it between the two), and the old one keeps its own."""
    old = ready_version(make_bot("ann"))
    bob, cid = rivals("bob", "cid")
    finished_match(bob, cid, ["white", "black", "none", "white"])
    for rival in (bob, cid):
        finished_match(old, rival, scored("lllwlldl"))  # old: 1.5 of 8
    new = ready_version(old.bot)
    for rival in (bob, cid):
        finished_match(new, rival, scored("wwwlwwdw"))  # new: 6.5 of 8
    finished_match(old, new, ["white", "black"])  # two versions of one bot never rate each other
    [row] = fit_ratings(["tafl9"])
    assert row.games == 36
    stored = {r.version_id: r for r in row.ratings.all()}
    assert set(stored) == {old.pk, new.pk, bob.pk, cid.pk} and {r.status for r in stored.values()} == {"rated"}
    assert stored[new.pk].elo > max(stored[bob.pk].elo, stored[cid.pk].elo) + 150
    assert stored[old.pk].elo < min(stored[bob.pk].elo, stored[cid.pk].elo) - 150
    assert (stored[old.pk].bot_id, stored[new.pk].bot_id, stored[old.pk].games) == (old.bot_id, old.bot_id, 16)
    # The bot plays the ladder with its newest version: that row stands for it on the board.
    assert {r.version_id for r in stored.values() if r.current} == {new.pk, bob.pk, cid.pk}
    assert [r.version_id for r in fitted_leaderboard("tafl9")][0] == new.pk


def test_a_new_version_with_a_handful_of_games_starts_from_its_predecessor(make_bot, rivals):
    """The stored fit centres a new version's prior on its previous version's rating, not on the pool: a
    strong bot's new version that drew level in two games with a weaker rival is rated well above where the
    pool's prior would put it."""
    old = ready_version(make_bot("ann"))
    bob, cid = rivals("bob", "cid")
    finished_match(bob, cid, ["white", "black", "none", "white"])
    for rival in (bob, cid):
        finished_match(old, rival, scored("wwwwwwdw"))
    new = ready_version(old.bot)
    finished_match(new, cid, scored("wl"))
    [row] = fit_ratings(["tafl9"])
    stored = {r.version_id: r.elo for r in row.ratings.all()}
    white, black, score = [], [], []
    index = {old.pk: 0, bob.pk: 1, cid.pk: 2, new.pk: 3}
    for game in Game.objects.filter(match__rated=True):
        white.append(index[game.white_id])
        black.append(index[game.black_id])
        score.append({"white": 1.0, "none": 0.5, "black": 0.0}[game.winner])
    chained = fitting.fit_games(white, black, score, 4, predecessor=[-1, -1, -1, 0]).players[3].elo
    pooled = fitting.fit_games(white, black, score, 4).players[3].elo
    assert stored[new.pk] == pytest.approx(chained, abs=0.01)
    assert stored[new.pk] > pooled + 50 and stored[old.pk] > stored[new.pk] > stored[cid.pk]


def test_pinning_another_version_moves_the_board_row_at_the_next_beat(make_bot, rivals, settings):
    old = ready_version(make_bot("ann"))
    [bob] = rivals("bob")
    finished_match(old, bob, ["white", "black", "none", "black"])
    new = ready_version(old.bot)
    assert fit_task() == 4
    assert FittedRating.objects.get(bot=old.bot, current=True).version_id == new.pk  # no games yet, still its row
    period = timedelta(seconds=settings.ARENA["RATING_FIT_SECONDS"])
    RatingFit.objects.update(fitted_at=F("fitted_at") - 2 * period)  # state: time passes (two periods since the fit)
    Match.objects.update(finished_at=F("finished_at") - 4 * period)  # state: time passes (the fit read them all)
    assert fit_task() == 0  # nothing changed: no refit
    pin_version(old.bot, old.pk)
    assert fit_task() == 4  # no new result, but the bot's ladder version changed
    assert FittedRating.objects.get(bot=old.bot, current=True).version_id == old.pk


def test_ranked_rows_carry_their_rank_interval_and_chance_of_being_first(league, settings):
    ann, bob, cid, dan, eve = league
    settings.ARENA = {**settings.ARENA, "LEADERBOARD_RANKED_MARGIN": 10_000}  # every rated bot is ranked
    [row] = fit_ratings(["tafl9"])
    ranked = list(row.ratings.filter(rank__isnull=False).order_by("rank"))
    rated = {r.version_id for r in row.ratings.filter(status="rated")}
    assert {r.version_id for r in ranked} == rated and {ann.pk, bob.pk, cid.pk} <= rated
    n = len(ranked)
    assert [r.rank for r in ranked] == list(range(1, n + 1))
    assert [r.elo for r in ranked] == sorted((r.elo for r in ranked), reverse=True)
    assert all(1 <= r.rank_low <= r.rank <= r.rank_high <= n for r in ranked)
    assert ranked[0].rank_low == 1 and ranked[-1].rank_high == n and ranked[0].rank_high > 1  # few games: unsure
    assert sum(r.p_first for r in ranked) == pytest.approx(1.0) and ranked[0].p_first > ranked[-1].p_first
    assert not row.ratings.filter(rank__isnull=True, rank_low__isnull=False).exists()
    again = fit_ratings(["tafl9"])[0]  # seeded: the same games give the same intervals
    assert [(r.rank_low, r.rank_high, r.p_first) for r in again.ratings.filter(rank__isnull=False).order_by("rank")
            ] == [(r.rank_low, r.rank_high, r.p_first) for r in ranked]
    settings.ARENA = {**settings.ARENA, "LEADERBOARD_RANKED_MARGIN": 1}  # nobody is that sure
    [row] = fit_ratings(["tafl9"])
    assert not row.ratings.filter(rank__isnull=False).exists()
    assert "provisional" in {standing(r) for r in row.ratings.all()} <= {"provisional", "unbounded"}


def finite_or_null(value) -> bool:
    return value is None or math.isfinite(value)


@pytest.mark.parametrize("case", ["empty", "one bot", "one-sided", "apart", "no games of the new version"])
def test_bad_pools_give_a_status_never_a_rank_an_exception_or_a_nan(case, make_bot, rivals, settings):
    """Whatever the fit makes of them (today an open status; with a prior, a wide margin), nobody is ranked on
    results like these, every number stored is finite, and the board says why in one word."""
    settings.ARENA = {**settings.ARENA, "LEADERBOARD_RANKED_MARGIN": 100}
    if case == "empty":
        rivals("ann", "bob")
    elif case == "one bot":
        rivals("ann")
    elif case == "one-sided":
        ann, bob = rivals("ann", "bob")
        finished_match(ann, bob, ["white", "black", "white", "black"])  # ann won all four
    elif case == "apart":
        ann, bob, cid, dan = rivals("ann", "bob", "cid", "dan")
        finished_match(ann, bob, ["white", "black", "none", "white"])
        finished_match(cid, dan, ["white", "black", "none", "black"])  # no game links the two pairs
    else:
        ann, bob = rivals("ann", "bob")
        finished_match(ann, bob, ["white", "black", "none", "white"])
        ready_version(Bot.objects.get(pk=ann.bot_id))  # ann's new version, unplayed, is its ladder version now
    [row] = fit_ratings(["tafl9"])
    rows = list(row.ratings.all())
    assert rows and all(r.current for r in rows if r.games == 0)
    for r in rows:
        assert finite_or_null(r.elo) and finite_or_null(r.margin) and r.rank is None and r.p_first is None
        assert standing(r) in STANDINGS and standing(r) != "ranked"
    if case in ("empty", "one bot", "no games of the new version"):
        assert {standing(r) for r in rows if r.current and r.games == 0} == {"unplayed"}


def test_only_wins_by_one_side_give_equal_ratings_and_a_finite_advantage(pair):
    a, b = pair
    finished_match(a, b, ["white", "white", "white", "white"])  # white won every game
    [row] = fit_ratings(["tafl9"])
    assert row.note == "" and 0 < row.advantage < 300  # the advantage's prior keeps it finite
    assert {(r.status, round(r.elo, 6)) for r in row.ratings.all()} == {("rated", 1500.0)}


def test_the_leaderboard_read_lists_public_bots_rated_first(league):
    ann, bob, cid, dan, eve = league
    update_bot(bob.bot, is_public=False)
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
    assert "tafl9: 18 rated games, 5 bot versions rated, 0 bots ranked, first-player advantage" in out
    with pytest.raises(CommandError, match="unknown game chess"):
        call_command("fit_ratings", "--game", "chess")
    assert fit_task() == 18
    assert list(RatingFit.objects.values_list("game", flat=True)) == ["tafl9"]  # no rated game elsewhere


def test_the_periodic_task_refits_only_the_games_whose_results_changed(league, settings):
    """Refitted while results come and once more after the last of them; then left alone until the next."""
    period = timedelta(seconds=settings.ARENA["RATING_FIT_SECONDS"])
    ann, bob, *_ = league
    assert fit_task() == 18  # never fitted, rated games: fitted
    RatingFit.objects.update(fitted_at=F("fitted_at") - 2 * period)  # state: time passes (two periods since the fit)
    Match.objects.update(finished_at=F("finished_at") - 4 * period)  # state: time passes (the fit read them all)
    before = RatingFit.objects.get().fitted_at
    assert fit_task() == 0 and RatingFit.objects.get().fitted_at == before  # nothing new: no refit
    finished_match(ann, bob, ["white", "black"])
    assert fit_task() == 20 and RatingFit.objects.get().fitted_at > before
    assert fit_task() == 20  # once more: a match may have finished while that fit was reading
    RatingFit.objects.update(fitted_at=F("fitted_at") + 2 * period)  # state: time passes (as if fitted later)
    assert fit_task() == 0
