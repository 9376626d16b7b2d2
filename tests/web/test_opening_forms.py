"""The site's tournament and SPRT forms pick an opening suite; a wrong one is refused beside the field, nothing
created."""

from __future__ import annotations

from ratings.models import VersionTest
from tests.support import ready_version
from tournaments.models import Match, Tournament
from tournaments.services.openings import create_suite

from .test_pages import client_for, text


def test_the_tournament_form_offers_the_suites_and_refuses_a_wrong_one(league, player):
    tafl = create_suite("tafl9", name="tafl openings", count=3, plies=4, seed=1)
    shatra = create_suite("shatra", name="shatra openings", count=3, plies=4, seed=1)
    client = client_for(player)
    page = text(client.get("/tournaments/new/"))
    assert "tafl9/tafl openings (3 openings, 4 plies deep)" in page and "shatra/shatra openings" in page
    data = {"name": "Cup", "game": "tafl9", "games_per_pairing": 2}
    for bad in ({"opening_suite": shatra.pk}, {"opening_suite": tafl.pk, "games_per_pairing": 3},
                {"opening_suite": "999999"}):
        response = client.post("/tournaments/new/", {**data, **bad})
        assert response.status_code == 400, bad
        assert "opening_suite" in response.context["form"].errors, bad
    assert not Tournament.objects.exists()
    assert client.post("/tournaments/new/", {**data, "opening_suite": tafl.pk}).status_code == 302
    assert Tournament.objects.get().opening_suite == tafl


def test_the_sprt_form_takes_a_suite_of_the_bots_game(league, player):
    old = league["alpha"]
    new = ready_version(old.bot)
    tafl = create_suite("tafl9", name="tafl openings", count=3, plies=4, seed=1)
    shatra = create_suite("shatra", name="shatra openings", count=3, plies=4, seed=1)
    url = f"/bots/{old.bot_id}/"
    client = client_for(player)
    page = text(client.get(url))
    assert "tafl9/tafl openings" in page and "shatra openings" not in page  # the bot's game's suites only
    body = {"action": "sprt", "version": new.pk, "elo0": 0, "elo1": 5}
    refused = client.post(url, {**body, "opening_suite": shatra.pk})
    assert refused.status_code == 400 and "opening_suite" in refused.context["sprt_form"].errors
    assert not VersionTest.objects.exists()
    assert client.post(url, {**body, "opening_suite": tafl.pk}).status_code == 302
    assert VersionTest.objects.get().opening_suite == tafl
    assert set(Match.objects.filter(sprt_tests__isnull=False).values_list("opening_suite", flat=True)) == {tafl.pk}
