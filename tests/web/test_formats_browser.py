"""Each format's page in a real browser at a laptop's and a phone's width: the Swiss's standings, tie-breaks and
rounds with colours, the gauntlet's table per opponent, the knockout's bracket (a walkover included), every
game a link to its replay. Screenshots go to var/screenshots/ for a person to look at."""

from __future__ import annotations

import pytest

from tests.support import make_bot, random_record, ready_version, report
from tournaments.models import Match
from tournaments.services import (
    add_entrant,
    change_tournament,
    create_tournament,
    remove_entrant,
    set_retired,
    start_tournament,
)

from .conftest import Site

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WIDTHS = (1000, 375)


def play_open(tournament, seed: int = 1) -> int:
    """Finish every queued match of the tournament with real, replayable games; how many were finished."""
    played = 0
    for match in Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("id"):
        report(match, [random_record("tafl9", seed * 1000 + match.pk * 10 + n) for n in range(match.games_per_match)])
        played += 1
    return played


@pytest.fixture
def formats(player, other_player):
    names = ["ashwood", "birch", "a-bot-with-a-rather-long-name", "damson", "elder", "fir"]
    versions = [ready_version(make_bot(player if i % 2 else other_player, name)) for i, name in enumerate(names)]

    swiss = create_tournament(player, name="Spring Swiss", game="tafl9", format="swiss", rounds=3,
                              late_entry_points=0.5)
    for version in versions[:5]:
        add_entrant(swiss, version)
    start_tournament(swiss)
    add_entrant(swiss, versions[5])  # a late entry: paired from round 2, its round 1 worth a half
    remove_entrant(swiss, versions[1])  # plays out round 1, then withdrawn
    play_open(swiss)
    play_open(swiss, seed=2)  # round 2; round 3 stays queued

    gauntlet = create_tournament(player, name="Gauntlet", game="tafl9", format="gauntlet", games_per_pairing=4)
    for version in versions[:4]:
        add_entrant(gauntlet, version)
    change_tournament(gauntlet, player, champion=versions[0])
    start_tournament(gauntlet)
    play_open(gauntlet, seed=3)

    knockout = create_tournament(player, name="Cup", game="tafl9", format="knockout", seeding="listed")
    for version in versions[:5]:
        add_entrant(knockout, version)
    start_tournament(knockout)  # seeds 1-3 have byes; 4 meets 5
    set_retired(versions[0].bot, True)  # seed 1 cannot play its semi-final: a walkover
    while play_open(knockout, seed=4):
        pass
    return {"swiss": swiss, "gauntlet": gauntlet, "knockout": knockout, "versions": versions}


@pytest.mark.parametrize("width", WIDTHS)
def test_each_formats_page_shows_what_its_users_expect(browser, live_server, formats, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    site = Site(context.new_page(), live_server.url, f"formats-{width}")

    site.open(f"/tournaments/{formats['swiss'].pk}/")
    standings = site.page.locator("section[aria-labelledby=standings] table")
    heads = standings.locator("thead th").all_inner_texts()
    assert heads[:4] == ["#", "SEED", "BOT", "POINTS"]
    assert heads[4:] == ["BH-C1", "BH", "SB", "WINS", "DE", "R1", "R2", "R3"]
    assert standings.locator("thead abbr").first.get_attribute("title") == "Buchholz cut-1"
    assert standings.locator("tbody tr").count() == 6
    assert standings.get_by_text("withdrew after round 1").count() == 1
    assert standings.get_by_text("late 0.5").count() == 1
    cells = standings.locator("tbody td a[href^='/matches/']").all_inner_texts()
    assert cells and all(text[-3] in "wb" or text.split()[0][-1] in "wb" for text in cells)  # seed, colour, result
    rounds = site.page.locator("section[aria-labelledby=rounds]")
    assert rounds.locator("h3").all_inner_texts() == ["Round 1", "Round 2", "Round 3"]
    assert rounds.locator("thead th").first.inner_text() == "WHITE"
    games = rounds.locator("a[href^='/games/']")
    assert games.count() == 2 * Match.objects.filter(tournament=formats["swiss"], status="finished").count()
    assert rounds.get_by_text("Bye:").count() >= 1
    third = rounds.locator("table").nth(2)  # in play: its pairings and colours are shown already
    assert third.locator("tbody tr").filter(has_text="queued").count() == 2
    assert standings.locator("tbody td a", has_text="…").count() == 4  # the standings' R3 cells name them too
    fits(site, width, "swiss")
    site.check("swiss")
    games.first.click()
    site.page.wait_for_selector("[data-replay] [data-point]")  # the replay opens

    site.open(f"/tournaments/{formats['gauntlet'].pk}/")
    table = site.page.locator("section[aria-labelledby=gauntlet] table")
    assert table.locator("tbody tr").count() == 3  # one row per opponent
    assert table.locator("tfoot").get_by_text("Overall").count() == 1
    fits(site, width, "gauntlet")
    site.check("gauntlet")

    site.open(f"/tournaments/{formats['knockout'].pk}/")
    bracket = site.page.locator("section[aria-labelledby=bracket]")
    assert bracket.locator("h3").all_inner_texts() == ["Quarter-finals", "Semi-finals", "Final"]
    assert bracket.get_by_text("walkover: seed 1 could not play: its bot was retired").count() == 1
    assert bracket.get_by_text("Winner:").count() == 1
    assert bracket.locator("a[href^='/matches/']").count() == Match.objects.filter(
        tournament=formats["knockout"]).count()
    fits(site, width, "knockout")
    site.check("knockout")
    context.close()
    assert not site.errors, site.errors


def fits(site: Site, width: int, label: str) -> None:
    """The page itself never scrolls sideways (wide tables and the bracket scroll in their own box)."""
    wide = site.page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width, f"{label} is {wide} px wide at {width}"
