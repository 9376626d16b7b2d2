"""The rule pages and the protocol page in a real browser (Debian's chromium): they run under the site's
Content-Security-Policy with no violation (the ``site`` fixture fails on any console error, and Chromium reports
each refused script or style as one), pass axe-core, draw their boards, and a reason's link lands on its section."""

import pytest

from web import docs

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_the_rule_pages_and_the_protocol_run_under_the_policy_and_pass_the_accessibility_check(site):
    for path in ["/rules/", *(f"/rules/{page}/" for page in docs.RULE_PAGES), "/take-part/protocol/"]:
        response = site.open(path)
        assert "style-src 'self'" in response.headers["content-security-policy"], path
        site.check(path.strip("/").replace("/", "-"))
        assert not site.errors, (path, site.errors)
    site.open("/rules/shatra/")
    boards = site.page.locator(".example svg.board")
    assert boards.count() == len(docs.examples_of((docs.RULES / "shatra.md").read_text(encoding="utf-8")))
    # The pieces are drawn from the symbols of the page's first board: every board shows its pieces.
    assert site.page.locator(".example svg.board").nth(3).bounding_box()["height"] > 100


def test_a_reason_link_opens_its_rule_section(site):
    site.open("/rules/fidchell/")
    site.page.locator("a[href='/rules/fidchell/#challenge']").first.click()
    site.page.wait_for_url("**/rules/fidchell/#challenge")
    heading = site.page.locator("h3#challenge")
    assert heading.inner_text() == "challenge" and heading.is_visible()


def test_a_game_pages_reason_leads_to_its_rule(site, league):
    match = league["matches"][0]
    game = match.games.order_by("number").first()
    for label, path in (("match", f"/matches/{match.pk}/"), ("bot", f"/bots/{league['alpha'].bot_id}/"),
                        ("game", f"/games/{game.pk}/")):
        site.open(path)
        site.check(f"reason-on-{label}")  # the links keep the pages accessible (contrast inside muted text)
    site.page.locator("p.result a.reason-link").click()
    anchor = docs.reason_url(match.game, game.reason).split("#")[1]
    site.page.wait_for_url(f"**#{anchor}")
    assert site.page.locator(f"[id='{anchor}']").is_visible()
