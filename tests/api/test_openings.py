"""Opening suites picked through the API: a tournament's and an SPRT's; a wrong one is a 400 naming
``opening_suite`` and creates nothing."""

from __future__ import annotations

import dataclasses
import json

import pytest

from engines import get_game
from play import live
from ratings.models import VersionTest
from tests.playing import play
from tests.support import make_bot, ready_version
from tournaments.models import Game, Match, Tournament
from tournaments.services import add_entrant, create_tournament, start_tournament
from tournaments.services import openings as opening_services
from tournaments.services.openings import create_suite


@pytest.fixture
def suites(db):
    return (create_suite("tafl9", name="tafl", count=3, plies=4, seed=1),
            create_suite("shatra", name="shatra", count=3, plies=4, seed=1))


def _create(client, **extra):
    data = {"name": "Midwinter", "game": "tafl9", "games_per_pairing": 2, **extra}
    return client.post("/api/tournaments/", data, format="json")


def test_an_organiser_picks_a_suite_for_a_tournament(ada, suites):
    response = _create(ada, opening_suite=suites[0].pk)
    assert response.status_code == 201, response.content
    assert response.json()["opening_suite"] == suites[0].pk
    assert Tournament.objects.get().opening_suite == suites[0]


def test_a_wrong_suite_for_a_tournament_is_a_400_naming_it_and_creates_nothing(ada, suites, monkeypatch):
    for extra in ({"opening_suite": suites[1].pk},  # another game's
                  {"opening_suite": suites[0].pk, "games_per_pairing": 3},  # an odd number of games
                  {"opening_suite": 999999},  # none such
                  {"opening_suite": "first"}):
        response = _create(ada, **extra)
        assert response.status_code == 400, (extra, response.content)
        assert "opening_suite" in response.json()
    newer = dataclasses.replace(get_game("tafl9"), ruleset="tafl9/2099.1")  # the referee after an upgrade
    monkeypatch.setattr(opening_services, "get_game", lambda game: newer if game == "tafl9" else get_game(game))
    response = _create(ada, opening_suite=suites[0].pk)
    assert response.status_code == 400 and "ruleset" in str(response.json()["opening_suite"])
    assert not Tournament.objects.exists()


def test_an_sprt_takes_a_suite_or_the_ladders_and_refuses_another_games(ada, player, suites):
    bot = make_bot(player, "alpha")
    ready_version(bot), ready_version(bot)
    response = ada.post(f"/api/bots/{bot.pk}/sprt/", {"opening_suite": suites[1].pk}, format="json")
    assert response.status_code == 400 and "opening_suite" in response.json()
    assert not VersionTest.objects.exists() and not Match.objects.exists()
    response = ada.post(f"/api/bots/{bot.pk}/sprt/", {"opening_suite": suites[0].pk}, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["opening_suite"] == suites[0].pk
    assert set(Match.objects.values_list("opening_suite", flat=True)) == {suites[0].pk}


def test_an_sprt_without_a_suite_plays_the_ladders(ada, player, db):
    ladder = create_suite("tafl9", name="ladder", count=3, plies=4, seed=2, ladder=True)
    bot = make_bot(player, "alpha")
    ready_version(bot), ready_version(bot)
    response = ada.post(f"/api/bots/{bot.pk}/sprt/", {}, format="json")
    assert response.status_code == 201 and response.json()["opening_suite"] == ladder.pk


def test_games_from_an_opening_replay_and_export_from_their_start(ada, player, other_player, suites):
    suite = suites[0]
    tournament = create_tournament_with(player, other_player, suite)
    for match in Match.objects.filter(tournament=tournament).order_by("pk"):
        assert play(match.pk).status == "finished"
    initial = get_game("tafl9").initial().text()
    games = list(Game.objects.filter(match__tournament=tournament).select_related("opening"))
    assert len(games) == 4 and all(game.opening is not None for game in games)
    for game in games:
        start = game.opening.position
        assert game.record["initial"] == start != initial
        text = ada.get(f"/api/games/{game.pk}/record.txt").content.decode()
        assert '[SetUp "1"]' in text and f'[Initial "{start}"]' in text
        page = ada.get(f"/games/{game.pk}/")  # the replay page: its ply 0 is the opening, drawn by the referee
        first = page.context["viewer"]["replay"]["plies"][0]
        assert first["set"] == {square: piece for square, piece in get_game("tafl9").parse(start).pieces().items()}
        watched = live.game(game.match_id, game.number)  # the live channel had the same start
        assert watched is None or watched["initial"] == start
    lines = ada.get(f"/api/tournaments/{tournament.pk}/games.jsonl")
    exported = [json.loads(line) for line in b"".join(lines.streaming_content).splitlines()]
    assert sorted(line["record"]["initial"] for line in exported) == sorted(g.opening.position for g in games)


def create_tournament_with(player, other_player, suite):
    tournament = create_tournament(player, name="Openers", game="tafl9", opening_suite=suite,
                                   time_control="move:2000")
    for owner, name in ((player, "one"), (other_player, "two")):
        add_entrant(tournament, ready_version(make_bot(owner, name)))
    start_tournament(tournament)
    return tournament
