"""The last two matches of a Swiss round finishing at once, on PostgreSQL: the next round is still paired.

Each transaction marks its match finished, then both ask the round-finished hook before either commits. Without
the tournament's row lock each would see the other's match still open and the round would never be paired.
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from django.utils import timezone

from tests.postgresql import rerun_on_postgresql
from tournaments.models import Match, SwissRound
from tournaments.services import add_entrant, create_tournament, start_tournament
from tournaments.services.matches import finish_tournament_if_done

from .conftest import ready_version


@pytest.mark.skipif(connection.vendor == "postgresql", reason="already on PostgreSQL: the tests run here")
@pytest.mark.slow
def test_this_module_on_postgresql():
    rerun_on_postgresql(__file__, "the Swiss round hook's lock", "arena_swiss")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL only (the rerun above)")
@pytest.mark.django_db(transaction=True)
def test_two_last_matches_finishing_at_once_still_pair_the_next_round(player, make_bot):
    tournament = create_tournament(player, name="Swiss", game="tafl9", format="swiss", rounds=2)
    for name in ("ann", "bob", "cid", "dee"):
        add_entrant(tournament, ready_version(make_bot(name)))
    first = start_tournament(tournament)
    both_finished = threading.Barrier(2, timeout=10)
    errors = []

    def finish(match):
        try:
            with transaction.atomic():
                Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED, score_a=1, score_b=1,
                                                         finished_at=timezone.now())
                both_finished.wait()  # neither has committed: each sees the other's match still running
                finish_tournament_if_done(tournament.pk)
        except Exception as error:  # noqa: BLE001  (reported below, from the test's thread)
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(match,)) for match in first]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert SwissRound.objects.filter(tournament=tournament, number=2).exists()
    assert Match.objects.filter(tournament=tournament, round=2).count() == 2
