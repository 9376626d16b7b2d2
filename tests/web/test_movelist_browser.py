"""Issue 21: the move list beside the replay marks the ply on the board and keeps it in view (the list scrolls,
the page does not); a click on a move shows the board after it."""

from __future__ import annotations

import pytest

from tournaments.models import Game, Match

from .conftest import random_record

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def long_game(white, black) -> Game:
    from tournaments.services import claim_match, create_match, finish_match

    match = create_match(white, black, rated=False, games=1)
    assert finish_match(match.pk, claim_match(match.pk, "test-worker"), [random_record(match.game, 26, plies=90)])
    return Game.objects.get(match=Match.objects.get(pk=match.pk))


def current(page) -> tuple[str | None, bool]:
    """The ply of the marked move, and whether it lies inside the list's visible box."""
    return page.eval_on_selector("[data-movelist]", """list => {
        const item = list.querySelector('.is-current');
        if (!item) return [null, false];
        const box = list.getBoundingClientRect(), it = item.getBoundingClientRect();
        return [item.dataset.ply, it.top >= box.top - 1 && it.bottom <= box.bottom + 1];
    }""")


def test_the_move_list_marks_the_shown_ply_and_scrolls_to_it(site, league):
    game = long_game(league["alpha"], league["beta"])
    last = game.plies
    assert last > 40  # more moves than the list shows at once
    site.open(f"/games/{game.pk}/")
    site.page.wait_for_selector("[data-movelist] .is-current")
    assert current(site.page) == [str(last), True]  # the last move, scrolled into view on load
    assert site.page.eval_on_selector("[data-movelist]", "l => l.scrollTop") > 0
    site.page.focus("[data-replay]")
    site.page.keyboard.press("Home")
    assert current(site.page) == [None, False]  # the start: no move yet
    site.page.keyboard.press("ArrowRight")
    assert current(site.page) == ["1", True]
    assert site.page.eval_on_selector("[data-movelist]", "l => l.scrollTop") == 0
    assert site.page.eval_on_selector("[data-movelist] [data-ply='1']", "e => e.getAttribute('aria-current')") == "step"
    site.page.click("[data-movelist] [data-ply='5']")
    assert site.page.eval_on_selector("[data-replay-slider]", "el => el.value") == "5"
    assert current(site.page) == ["5", True]
    site.check("move-list")
