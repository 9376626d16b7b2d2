"""The opening suites' pages: a game's suites, one suite's balance (its totals and each opening), their 404s."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.support import make_bot, ready_version
from tests.support.openings import make_suite, play_openings
from tournaments.models import Opening
from tournaments.services.openings_balance import set_opening_retired


@pytest.fixture
def versions(player, other_player):
    return ready_version(make_bot(player, "alpha")), ready_version(make_bot(other_player, "beta"))


def cells(page: str, number: int) -> list[str]:
    row = re.search(rf'<tr data-opening="{number}"[^>]*>(.*?)</tr>', page, re.S).group(1)
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]


def test_a_suite_page_shows_its_totals_and_each_openings_balance(versions, settings):
    settings.ARENA = {**settings.ARENA, "OPENING_BALANCE_MIN_PAIRS": 2}
    ann, bob = versions
    suite = make_suite(count=3)
    play_openings(ann, bob, suite, [1, 2], ["white", "white", "none", "black"])
    play_openings(bob, ann, suite, [1], ["black", "white"])
    set_opening_retired(Opening.objects.get(suite=suite, number=2), True)
    page = Client().get("/openings/tafl9/balance/").content.decode()
    assert "3: 2 in play, 1 retired" in page and "6 (3 colour-swapped pairs)" in page
    assert '<dd data-total="first-score">58.3%</dd>' in page and '<dd data-total="draw-rate">16.7%</dd>' in page
    assert "once it has 2 pairs and its first mover's score is below 25.0% or above 75.0%" in page
    position = Opening.objects.get(suite=suite, number=1).position
    assert cells(page, 1) == ["1", position, "white", "3", "0", "1", "75.0%", "2", "1 · 0 · 1 · 0 · 0", "in play"]
    assert cells(page, 2)[2:] == ["white", "0", "1", "1", "25.0%", "1", "0 · 0 · 0 · 1 · 0",
                                  f"retired {Opening.objects.get(suite=suite, number=2).retired_at:%Y-%m-%d}: "
                                  "retired by an operator"]
    assert cells(page, 3)[3:9] == ["0", "0", "0", "–", "0", "0 · 0 · 0 · 0 · 0"]


def test_a_games_suites_are_listed_and_linked_from_its_leaderboard(db):
    make_suite(count=2)
    make_suite("shatra", name="steppe", count=1)
    page = Client().get("/openings/tafl9/").content.decode()
    assert 'href="/openings/tafl9/balance/"' in page and "steppe" not in page
    assert 'href="/openings/shatra/"' in page  # the other games' tabs
    assert 'href="/openings/tafl9/"' in Client().get("/leaderboard/tafl9/").content.decode()
    assert 'href="/openings/tafl9/"' in Client().get("/").content.decode()  # the site's navigation
    assert "No opening suite" in Client().get("/openings/fidchell-1/").content.decode()


@pytest.mark.parametrize("url", ["/openings/chess/", "/openings/tafl9/nothing/", "/openings/chess/balance/",
                                 "/openings/shatra/balance/"])
def test_a_missing_game_or_suite_is_the_friendly_404(db, url):
    make_suite(count=1)
    response = Client().get(url)
    assert response.status_code == 404 and "Not found" in response.content.decode()


def test_the_suite_page_costs_the_same_queries_however_many_openings(versions, django_assert_max_num_queries):
    ann, bob = versions
    suite = make_suite(count=12)
    for number in range(1, 13):
        play_openings(ann, bob, suite, [number], ["white", "black"])
    with django_assert_max_num_queries(3):  # the suite, its games, its openings
        page = Client().get("/openings/tafl9/balance/").content.decode()
    assert page.count("<tr data-opening=") == 12
