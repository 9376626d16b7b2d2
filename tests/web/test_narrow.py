"""Issue 21: every page fits a 375-pixel-wide screen (a small phone) without sideways scrolling: wide tables
scroll inside their own box, the page itself never. Screenshots of each page at that width go to
var/screenshots for a person to look at."""

from __future__ import annotations

import pytest

from tests.support import finished_match

from .conftest import SCREENSHOTS, Site

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_every_page_fits_a_phone_width(browser, live_server, league, player):
    tournament_page = _tournament(league, player)
    game = league["matches"][0].games.first()
    pages = ["/", "/leaderboard/tafl9/", f"/bots/{league['alpha'].bot_id}/", "/tournaments/", tournament_page,
             f"/games/{game.pk}/", f"/matches/{league['matches'][0].pk}/", "/take-part/", "/take-part/protocol/",
             "/rules/", "/rules/tafl9/", "/rules/fidchell/", "/rules/shatra/", "/account/login/",
             "/account/register/", "/players/ada/"]
    context = browser.new_context(viewport={"width": 375, "height": 740})
    site = Site(context.new_page(), live_server.url, "narrow")
    wide = {}
    for path in pages:
        site.open(path)
        width = site.page.evaluate("() => document.documentElement.scrollWidth")
        site.screenshot(path.strip("/").replace("/", "-") or "home")
        if width > 375:
            wide[path] = width
    context.close()
    assert not wide, f"pages wider than the screen (see {SCREENSHOTS}): {wide}"


def _tournament(league, player) -> str:
    from tournaments.services import add_entrant, create_tournament, start_tournament

    cup = create_tournament(player, name="A cup with a rather long name for a phone", game="tafl9",
                            games_per_pairing=2, double_round=False)
    for key in ("alpha", "beta", "gamma"):
        add_entrant(cup, league[key])
    start_tournament(cup)
    finished_match(league["alpha"], league["beta"], tournament=cup)
    return f"/tournaments/{cup.pk}/"
