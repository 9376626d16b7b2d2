"""The ladder's games take turns from the game of its newest match, which is read by the ladder's own index:
the tournaments' and challenges' matches created since are neither counted nor walked over."""

from __future__ import annotations

import pytest
from django.db import connection

from tests.support import make_bot, ready_version
from tournaments.services import create_match, create_tournament
from workers.ladder import newest_ladder_matches


@pytest.mark.django_db
def test_the_newest_ladder_match_is_the_ladders_not_a_later_tournaments_or_challenges(player, other_player):
    tafl = [ready_version(make_bot(owner, f"tafl-{owner.pk}")) for owner in (player, other_player)]
    shatra = [ready_version(make_bot(owner, f"shatra-{owner.pk}", game="shatra")) for owner in (player, other_player)]
    ladder = create_match(*tafl, time_control="move:100", games=2, rated=True)
    tournament = create_tournament(player, name="Samhain cup", game="shatra", time_control="move:100")
    create_match(*shatra, time_control="move:100", games=2, tournament=tournament)
    create_match(*shatra, time_control="move:100", games=2, rated=False)  # a challenge
    assert list(newest_ladder_matches().values_list("pk", flat=True)[:1]) == [ladder.pk]


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plan: tests/service runs there in CI")
def test_the_newest_ladder_match_is_read_by_the_ladders_partial_index():
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")  # a test's few rows would be read whole anyway
    plan = newest_ladder_matches().values_list("game", flat=True)[:1].explain()
    assert "match_ladder_idx" in plan, plan
