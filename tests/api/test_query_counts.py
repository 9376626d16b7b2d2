"""No N+1: every list endpoint runs the same few queries for 2 rows as for 12."""

from __future__ import annotations

import pytest

from ratings.models import Rating
from tests.support import finished_match, make_bot, ready_version

from .conftest import client_for


def populate(player, other_player, count: int):
    from tournaments.services import add_entrant, create_tournament
    from tournaments.services.ratings import recompute_ratings

    versions = []
    for i in range(count):
        owner = player if i % 2 else other_player
        version = ready_version(make_bot(owner, f"bot{i}"))
        ready_version(version.bot)  # a second version, so versions are a real list
        versions.append(version)
    tournament = create_tournament(player, name="Cup", game="tafl9")
    for i, version in enumerate(versions):
        finished_match(version, versions[(i + 1) % count])
        add_entrant(tournament, version)
    recompute_ratings(history=True)
    assert Rating.objects.count() == count
    return versions, tournament


LIST_URLS = [
    "/api/bots/", "/api/versions/", "/api/matches/", "/api/games/", "/api/tournaments/", "/api/players/",
    "/api/leaderboard/tafl9/", "bot:/api/bots/{bot}/", "bot:/api/bots/{bot}/versions/",
    "bot:/api/bots/{bot}/rating-history/", "match:/api/matches/{match}/", "tournament:/api/tournaments/{tournament}/",
    "tournament:/api/tournaments/{tournament}/standings/", "tournament:/api/tournaments/{tournament}/crosstable/",
]


@pytest.mark.parametrize("size", [2, 12])
@pytest.mark.parametrize("template", LIST_URLS)
@pytest.mark.slow
def test_queries_do_not_grow_with_rows(template, size, player, other_player, django_assert_max_num_queries):
    versions, tournament = populate(player, other_player, size)
    from tournaments.models import Match

    url = template.split(":", 1)[-1].format(bot=versions[0].bot_id, match=Match.objects.first().pk,
                                           tournament=tournament.pk)
    client = client_for(player)
    # token lookup 1, count or page 1-2, the rows with their joins, prefetches: never one per row. A bot's page
    # prefetches its versions' SPRTs and their own fitted ratings, and reads the latest fit: one more.
    with django_assert_max_num_queries(7 if template == "bot:/api/bots/{bot}/" else 6):
        response = client.get(url)
    assert response.status_code == 200, response.content
