"""Opening suites in play: made from the referee, carried by the ladder, tournaments and SPRT tests, and each opening
played twice with colours swapped by real bots, the records replaying from their start."""

from __future__ import annotations

import dataclasses

import pytest
from django.core.exceptions import ValidationError

from engines import get_game
from engines.openings import make_openings
from engines.record import verify_record
from ratings.models import VersionTest
from tests.playing import play
from tests.support import ready_version
from tournaments.models import Game, Match, Opening, OpeningSuite, Tournament
from tournaments.services import create_match, create_tournament, request_version_test
from tournaments.services import openings as opening_services
from tournaments.services.openings import create_suite, deal
from tournaments.services.openings_balance import set_opening_retired

pytestmark = pytest.mark.django_db


def stale_referee(monkeypatch, game_id: str = "tafl9") -> None:
    """The referee as after an upgrade: the same game under a newer ruleset than the suites were made with."""
    newer = dataclasses.replace(get_game(game_id), ruleset=f"{game_id}/2099.1")
    real = opening_services.get_game
    monkeypatch.setattr(opening_services, "get_game", lambda wanted: newer if wanted == game_id else real(wanted))


def test_a_suite_is_made_from_the_referee_and_stored_with_its_ruleset():
    suite = create_suite("tafl9", name="six deep", count=8, plies=6, seed=42, ladder=True)
    positions = list(suite.openings.values_list("position", flat=True))
    assert positions == make_openings("tafl9", 8, 6, 42)  # reproducible from the seed
    assert (suite.ruleset, suite.seed, suite.plies, suite.ladder) == (get_game("tafl9").ruleset, 42, 6, True)
    assert list(suite.openings.values_list("number", flat=True)) == list(range(1, 9))
    again = create_suite("tafl9", name="six deep again", count=8, plies=6, seed=43)
    assert list(again.openings.values_list("position", flat=True)) != positions


def test_a_new_ladder_suite_takes_over_from_the_old_one():
    old = create_suite("tafl9", name="old", count=2, plies=2, seed=1, ladder=True)
    new = create_suite("tafl9", name="new", count=2, plies=2, seed=2, ladder=True)
    old.refresh_from_db()
    assert (old.ladder, new.ladder) == (False, True)
    assert opening_services.ladder_suite("tafl9") == new


@pytest.mark.parametrize("arguments, field", [
    ({"game": "chess"}, "game"),
    ({"name": "  "}, "name"),
    ({"name": "x" * 65}, "name"),
    ({"count": 0}, "count"),
    ({"count": "3"}, "count"),
    ({"plies": 0}, "plies"),
    ({"plies": 41}, "plies"),
    ({"seed": 2**64}, "seed"),
    ({"game": "fidchell-1", "count": 1000, "plies": 1}, "count"),  # fewer first placements than that
])
def test_bad_input_for_a_suite_names_the_field_and_stores_nothing(arguments, field):
    wanted = {"game": "tafl9", "name": "suite", "count": 3, "plies": 4, "seed": 1, **arguments}
    with pytest.raises(ValidationError) as refused:
        create_suite(wanted.pop("game"), **wanted)
    assert field in refused.value.message_dict
    assert not OpeningSuite.objects.exists() and not Opening.objects.exists()


def test_a_suite_name_is_unique_per_game():
    create_suite("tafl9", name="one", count=2, plies=2, seed=1)
    with pytest.raises(ValidationError) as refused:
        create_suite("tafl9", name="one", count=2, plies=2, seed=2)
    assert "name" in refused.value.message_dict and OpeningSuite.objects.count() == 1


def test_a_match_with_a_suite_plays_each_opening_twice_with_colours_swapped(pair):
    suite = create_suite("tafl9", name="pairs", count=3, plies=4, seed=9)
    match = play(create_match(*pair, games=4, time_control="move:2000", opening_suite=suite).pk)
    assert match.status == "finished", match.failure_reason
    games = list(Game.objects.filter(match=match).order_by("number").select_related("opening"))
    assert len(games) == 4
    initial = get_game("tafl9").initial().text()
    for first, second in (games[0:2], games[2:4]):
        assert first.opening is not None and first.opening == second.opening  # one opening per pair
        assert first.opening.suite == suite
        assert first.record["initial"] == second.record["initial"] == first.opening.position != initial
        assert (first.white, first.black) == (second.black, second.white)  # colours swapped
    assert games[0].white == pair[0]  # game 2k-1: version A is white, as without a suite
    assert games[0].opening != games[2].opening  # least played first: the second pair takes another
    for game in games:
        final = verify_record(game.record)  # replays from its start
        assert final.text() == game.record["final"]


def test_openings_are_dealt_least_played_first_so_every_one_is_played(pair):
    suite = create_suite("tafl9", name="coverage", count=3, plies=4, seed=5)
    played = [play(create_match(*pair, games=2, time_control="move:2000", opening_suite=suite).pk)
              for _ in range(3)]
    assert all(match.status == "finished" for match in played)
    counts = sorted(Opening.objects.filter(suite=suite).values_list("games__match", flat=True))
    assert len(counts) == 6
    per_opening = {opening.pk: opening.games.count() for opening in suite.openings.all()}
    assert sorted(per_opening.values()) == [2, 2, 2]


def test_dealing_counts_what_it_deals_and_never_reads_the_games(pair):
    """Dealing balances on each opening's counter, so its cost does not grow with the suite's history: counting the
    games at each match start took 57 ms a match at 100,000 games on PostgreSQL and 2.5 s at 1,000,000."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    suite = create_suite("tafl9", name="counted", count=3, plies=4, seed=5)
    first, second, third = suite.openings.order_by("number")
    with CaptureQueriesContext(connection) as queries:
        dealt = deal(create_match(*pair, games=6, opening_suite=suite).pk, suite.pk, 6)
    assert not [q["sql"] for q in queries if "tournaments_game" in q["sql"]]
    assert sorted(dealt) == sorted([first.position] * 2 + [second.position] * 2 + [third.position] * 2)
    assert sorted(suite.openings.values_list("dealt", flat=True)) == [2, 2, 2]  # games, two a pair
    # The next match takes the least dealt first: after a four-game match, the one left out.
    taken = set(deal(create_match(*pair, games=4, opening_suite=suite).pk, suite.pk, 4))
    left_out = ({first.position, second.position, third.position} - taken).pop()
    assert deal(create_match(*pair, games=2, opening_suite=suite).pk, suite.pk, 2) == (left_out, left_out)
    assert sorted(suite.openings.values_list("dealt", flat=True)) == [4, 4, 4]


def test_retired_openings_are_not_dealt(pair):
    suite = create_suite("tafl9", name="some retired", count=3, plies=4, seed=5)
    first, second, third = suite.openings.order_by("number")
    set_opening_retired(first, True)  # as an operator, or the balance rule, retires a one-sided opening
    set_opening_retired(third, True)
    match = create_match(*pair, games=4, opening_suite=suite)
    assert deal(match.pk, suite.pk, 4) == (second.position,) * 4


def test_a_suite_whose_ruleset_is_no_longer_the_referees_is_skipped_when_played(pair, monkeypatch):
    suite = create_suite("tafl9", name="before the upgrade", count=2, plies=4, seed=5)
    match = create_match(*pair, games=2, time_control="move:2000", opening_suite=suite)
    stale_referee(monkeypatch)
    assert deal(match.pk, suite.pk, 2) == ()  # the initial position, rather than a match that cannot be played
    played = play(match.pk)
    assert played.status == "finished"
    for game in Game.objects.filter(match=played):
        assert game.opening is None and game.record["initial"] == get_game("tafl9").initial().text()


def test_a_match_refuses_a_suite_of_another_game_or_an_odd_number_of_games(pair):
    shatra = create_suite("shatra", name="shatra", count=2, plies=2, seed=1)
    tafl = create_suite("tafl9", name="tafl", count=2, plies=2, seed=1)
    for suite, games in ((shatra, 2), (tafl, 3)):
        with pytest.raises(ValidationError) as refused:
            create_match(*pair, games=games, opening_suite=suite)
        assert "opening_suite" in refused.value.message_dict
    assert not Match.objects.exists()


def test_a_tournament_refuses_a_wrong_suite_naming_the_field(player, monkeypatch):
    shatra = create_suite("shatra", name="shatra", count=2, plies=2, seed=1)
    tafl = create_suite("tafl9", name="tafl", count=2, plies=2, seed=1)
    for suite, games in ((shatra, 2), (tafl, 3)):
        with pytest.raises(ValidationError) as refused:
            create_tournament(player, name="cup", game="tafl9", games_per_pairing=games, opening_suite=suite)
        assert "opening_suite" in refused.value.message_dict
    stale_referee(monkeypatch)
    with pytest.raises(ValidationError) as refused:
        create_tournament(player, name="cup", game="tafl9", opening_suite=tafl)
    assert "ruleset" in str(refused.value.message_dict["opening_suite"])
    assert not Tournament.objects.exists()


def test_a_tournaments_matches_carry_its_suite(player, rivals):
    from tournaments.services import add_entrant, start_tournament

    suite = create_suite("tafl9", name="cup openings", count=4, plies=4, seed=3)
    tournament = create_tournament(player, name="cup", game="tafl9", opening_suite=suite)
    for version in rivals("one", "two", "three"):
        add_entrant(tournament, version)
    start_tournament(tournament)
    matches = Match.objects.filter(tournament=tournament)
    assert matches.exists() and set(matches.values_list("opening_suite", flat=True)) == {suite.pk}


def test_an_sprt_plays_the_ladder_suite_unless_given_another(make_bot):
    bot = make_bot("alpha")
    ready_version(bot), ready_version(bot)
    ladder = create_suite("tafl9", name="ladder", count=4, plies=4, seed=3, ladder=True)
    test = request_version_test(bot)
    assert test.opening_suite == ladder
    assert set(test.matches.values_list("opening_suite", flat=True)) == {ladder.pk}


def test_an_sprt_refuses_a_suite_of_another_game(make_bot):
    bot = make_bot("alpha")
    ready_version(bot), ready_version(bot)
    shatra = create_suite("shatra", name="shatra", count=2, plies=2, seed=1)
    with pytest.raises(ValidationError) as refused:
        request_version_test(bot, opening_suite=shatra)
    assert "opening_suite" in refused.value.message_dict
    assert not VersionTest.objects.exists() and not Match.objects.exists()


def test_the_ladder_plays_the_games_ladder_suite(pair, settings):
    from workers.ladder import fill_ladder

    settings.ARENA = {**settings.ARENA, "LADDER_QUEUED_PER_GAME": 1}
    create_suite("tafl9", name="not the ladder's", count=2, plies=2, seed=1)
    ladder = create_suite("tafl9", name="ladder", count=2, plies=2, seed=2, ladder=True)
    (match_id,) = fill_ladder("tafl9")
    assert Match.objects.get(pk=match_id).opening_suite == ladder


def test_the_command_makes_a_suite(capsys):
    from django.core.management import call_command

    call_command("make_openings", "shatra", "--name", "opening book", "--count", "5", "--plies", "4", "--seed", "77",
                 "--ladder")
    suite = OpeningSuite.objects.get()
    assert (suite.game, suite.name, suite.plies, suite.seed, suite.ladder) == ("shatra", "opening book", 4, 77, True)
    assert list(suite.openings.values_list("position", flat=True)) == make_openings("shatra", 5, 4, 77)
    assert "5 openings" in capsys.readouterr().out


@pytest.mark.parametrize("arguments, field", [
    (["chess", "--count", "5", "--plies", "4"], "game"),
    (["tafl9", "--count", "0", "--plies", "4"], "count"),
    (["tafl9", "--count", "5", "--plies", "99"], "plies"),
])
def test_the_command_exits_2_on_bad_input_naming_it_and_makes_nothing(arguments, field):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError) as refused:
        call_command("make_openings", *arguments, "--name", "x", "--seed", "1")
    assert refused.value.returncode == 2 and field in str(refused.value)
    assert not OpeningSuite.objects.exists()
