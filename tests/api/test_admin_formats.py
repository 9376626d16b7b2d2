"""The ops admin's tournament page: the formats' settings shown, editable in a draft through the services'
checks, read-only once started."""

from __future__ import annotations

import pytest

from tests.support import make_bot, ready_version
from tournaments.models import Tournament
from tournaments.services import add_entrant, create_tournament, start_tournament

pytestmark = pytest.mark.django_db


def form_data(tournament: Tournament, **changes) -> dict:
    data = {"name": tournament.name, "organiser": tournament.organiser_id, "game": tournament.game,
            "status": tournament.status, "time_control": tournament.time_control,
            "games_per_pairing": tournament.games_per_pairing, "tiebreaks": tournament.tiebreaks,
            "format": tournament.format, "double_round": "on" if tournament.double_round else "",
            "rounds": tournament.rounds or "", "bye_points": tournament.bye_points,
            "late_entry_points": tournament.late_entry_points, "champion": tournament.champion_id or "",
            "seeding": tournament.seeding, "tiebreak_pairs": tournament.tiebreak_pairs,
            # the entrants' inline, left as it is
            "entrants-TOTAL_FORMS": 0, "entrants-INITIAL_FORMS": 0, "entrants-MIN_NUM_FORMS": 0,
            "entrants-MAX_NUM_FORMS": 1000}
    return {key: value for key, value in {**data, **changes}.items() if value != ""}


def test_the_list_shows_format_and_rounds(client, admin_user, player):
    create_tournament(player, name="Open", game="tafl9", format="swiss", rounds=3)
    client.force_login(admin_user)
    page = client.get("/admin/tournaments/tournament/?format__exact=swiss").content.decode()
    assert "Swiss (FIDE Dutch system)" in page and 'class="field-rounds">3<' in page


def test_a_drafts_format_settings_are_edited_through_the_checks(client, admin_user, player):
    tournament = create_tournament(player, name="Open", game="tafl9", format="swiss", rounds=3)
    client.force_login(admin_user)
    url = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    page = client.get(url).content.decode()
    for field in ("format", "rounds", "champion", "seeding", "tiebreak_pairs", "bye_points", "late_entry_points"):
        assert f'name="{field}"' in page, field
    response = client.post(url, form_data(tournament, bye_points=0.25))
    assert response.status_code == 200 and "a bye is worth 0, 0.5 or 1" in response.content.decode()
    response = client.post(url, form_data(tournament, format="knockout", games_per_pairing=3))
    assert response.status_code == 200 and "an even number of games per pairing" in response.content.decode()
    tournament.refresh_from_db()
    assert (tournament.bye_points, tournament.format) == (1.0, "swiss")
    response = client.post(url, form_data(tournament, rounds=4, bye_points=0.5, late_entry_points=0.5))
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.rounds, tournament.bye_points, tournament.late_entry_points) == (4, 0.5, 0.5)


def test_a_started_tournaments_settings_are_read_only(client, admin_user, player, other_player):
    tournament = create_tournament(player, name="Open", game="tafl9", format="swiss", rounds=2)
    for owner, name in ((player, "a"), (other_player, "b"), (player, "c"), (other_player, "d")):
        add_entrant(tournament, ready_version(make_bot(owner, name)))
    start_tournament(tournament)
    client.force_login(admin_user)
    url = f"/admin/tournaments/tournament/{tournament.pk}/change/"
    page = client.get(url).content.decode()
    assert 'name="rounds"' not in page and 'name="format"' not in page and 'name="name"' in page
    tournament.refresh_from_db()
    data = form_data(tournament, name="Open 2", rounds=9)
    data.update({"entrants-TOTAL_FORMS": 4, "entrants-INITIAL_FORMS": 4})
    for index, entrant in enumerate(tournament.entrants.order_by("id")):
        data.update({f"entrants-{index}-id": entrant.pk, f"entrants-{index}-tournament": tournament.pk,
                     f"entrants-{index}-seed": entrant.seed, f"entrants-{index}-version": entrant.version_id})
    response = client.post(url, data)
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.name, tournament.rounds) == ("Open 2", 2)
