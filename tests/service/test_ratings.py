"""Elo by hand, applied once per rated game, and the replay that reproduces the table."""

from __future__ import annotations

import random

import pytest

from ratings.elo import EloRules, expected_score, updated
from ratings.models import Rating, RatingChange
from tests.support import finished_match, ready_version, scored
from tournaments.models import Match
from tournaments.services.ratings import recompute_ratings

pytestmark = pytest.mark.django_db


def test_expected_score_by_hand():
    assert expected_score(1500, 1500) == 0.5
    assert expected_score(1900, 1500) == pytest.approx(10 / 11)
    assert updated(1500, 1500, 1.0, 40) == 1520.0


def test_first_game_k40(pair):
    a, b = pair
    finished_match(a, b, ["white"])
    assert Rating.objects.get(bot=a.bot).elo == 1520.0
    assert Rating.objects.get(bot=b.bot).elo == 1480.0
    change = RatingChange.objects.get(bot=a.bot)
    assert (change.before, change.after, change.delta, change.k, change.score) == (1500.0, 1520.0, 20.0, 40, 1.0)


def test_each_bot_uses_its_own_k(pair, make_bot, other_player):
    a, b = pair
    # A veteran of 20 rated games (K=20 from now on) draws with a newcomer at 1500 (K=40).
    scored(a, ready_version(make_bot("sparring", owner=other_player)), wins=16, draws=2, losses=2)
    veteran = Rating.objects.get(bot=a.bot)
    assert (veteran.games, veteran.elo > 1500) == (20, True)
    finished_match(a, b, ["none"])
    # By hand: E(veteran vs 1500) = 1 / (1 + 10^((1500 - veteran) / 400)).
    expected = 1 / (1 + 10 ** ((1500 - veteran.elo) / 400))
    assert Rating.objects.get(bot=a.bot).elo == pytest.approx(veteran.elo + 20 * (0.5 - expected), abs=1e-7)
    assert Rating.objects.get(bot=b.bot).elo == pytest.approx(1500 + 40 * (expected - 0.5), abs=1e-7)
    drawn = RatingChange.objects.filter(played__match__version_b=b).order_by("bot_id")
    assert [(c.bot_id, c.k) for c in drawn] == [(a.bot_id, 20), (b.bot_id, 40)]


def test_k_drops_after_twenty_games(pair):
    a, b = pair
    finished_match(a, b, ["white", "black"] * 10)  # A wins all 20 (A is white in odd games)
    finished_match(a, b, ["white"])
    last = RatingChange.objects.filter(bot=a.bot).order_by("-played_id").first()
    assert last.k == 20
    assert Rating.objects.get(bot=a.bot).games == 21
    assert Rating.objects.get(bot=a.bot).wins == 21


def test_ratings_are_zero_sum_and_unrated_matches_do_not_count(pair):
    a, b = pair
    finished_match(a, b, ["white", "none", "black"])
    finished_match(a, b, ["white"], rated=False)
    total = sum(Rating.objects.values_list("elo", flat=True))
    assert total == pytest.approx(3000.0)
    assert Rating.objects.get(bot=a.bot).games == 3


def test_recompute_reproduces_the_table_exactly(make_bot):
    versions = [ready_version(make_bot(f"bot{i}")) for i in range(5)]
    rng = random.Random(7)
    for _ in range(30):
        a, b = rng.sample(versions, 2)
        finished_match(a, b, [rng.choice(["white", "black", "none"]) for _ in range(2)], rated=rng.random() < 0.8)
    stored = sorted(Rating.objects.values_list("bot_id", "elo", "games", "wins", "draws", "losses"))
    changes = sorted(RatingChange.objects.values_list("bot_id", "played_id", "before", "after", "k"))
    report = recompute_ratings()
    assert report.reproduced, report
    assert recompute_ratings(history=True).reproduced
    assert report.games == RatingChange.objects.count() // 2
    assert sorted(Rating.objects.values_list("bot_id", "elo", "games", "wins", "draws", "losses")) == stored
    assert sorted(RatingChange.objects.values_list("bot_id", "played_id", "before", "after", "k")) == changes


def test_recompute_repairs_a_damaged_table(pair):
    a, b = pair
    finished_match(a, b, ["white", "black"])
    good = Rating.objects.get(bot=a.bot).elo
    Rating.objects.filter(bot=a.bot).update(elo=999.0)  # state: damaged (the tables spoilt)
    RatingChange.objects.filter(bot=b.bot).delete()  # state: damaged
    report = recompute_ratings(history=True)
    assert not report.reproduced
    assert report.ratings_changed == 1 and report.changes_created == 2
    assert Rating.objects.get(bot=a.bot).elo == good
    assert recompute_ratings(history=True).reproduced


def test_recompute_command(pair, capsys):
    from django.core.management import call_command

    finished_match(*pair, ["white"])
    call_command("recompute_ratings")
    assert "reproduced exactly" in capsys.readouterr().out
    Rating.objects.filter(bot=pair[0].bot).update(elo=1.0)  # state: damaged (a spoilt rating)
    call_command("recompute_ratings", "--history")
    assert "1 ratings changed" in capsys.readouterr().out


def test_custom_rules():
    rules = EloRules(start=1000, k_provisional=32, provisional_games=5, k=16)
    assert [rules.k_for(n) for n in (0, 4, 5, 100)] == [32, 32, 16, 16]
    assert Match.Status.FINISHED == "finished"


def test_leaderboard_and_history_query_counts(pair, django_assert_num_queries):
    from ratings.selectors import leaderboard, rating_history

    finished_match(*pair, ["white", "black"])
    with django_assert_num_queries(1):
        rows = [(r.bot.owner.username, r.elo) for r in leaderboard("tafl9")]
    assert rows[0][1] > rows[1][1]
    with django_assert_num_queries(1):
        assert [(c.played.match.pk, c.played.white.bot.name) for c in rating_history(pair[0].bot)]


def test_same_file_name_content_twice_unpacks_once(pair):
    from tournaments.referee import bot_directory, load_version

    a, b = pair  # both random_bot.py, same content: one cache directory
    assert bot_directory(a) == bot_directory(b)
    assert load_version(a).run == "python3 random_bot.py"
