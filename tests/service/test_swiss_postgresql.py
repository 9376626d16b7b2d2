"""The last two matches of a Swiss round reported at once, on PostgreSQL: the next round is still paired. Both
reports (``finish_match``) store their match before either commits: without the tournament's row lock each would
see the other's match still open and the round would never be paired."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from tests.postgresql import rerun_on_postgresql
from tests.support import record
from tournaments.models import Match, SwissRound
from tournaments.services import add_entrant, claim_match, create_tournament, finish_match, start_tournament

from .conftest import ready_version


@pytest.mark.skipif(connection.vendor == "postgresql", reason="already on PostgreSQL: the tests run here")
@pytest.mark.slow
def test_this_module_on_postgresql():
    rerun_on_postgresql(__file__, "the Swiss round hook's lock", "arena_swiss")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="row locks: PostgreSQL only (the rerun above)")
@pytest.mark.django_db(transaction=True)
def test_two_last_matches_reported_at_once_still_pair_the_next_round(player, make_bot):
    tournament = create_tournament(player, name="Swiss", game="tafl9", format="swiss", rounds=2)
    for name in ("ann", "bob", "cid", "dee"):
        add_entrant(tournament, ready_version(make_bot(name)))
    first = start_tournament(tournament)
    tokens = {match.pk: claim_match(match.pk, f"worker-{match.pk}") for match in first}
    both_stored = threading.Barrier(2, timeout=10)
    errors, reports = [], []

    def after_storing_the_result(execute, sql, params, many, context):
        """Each report, once its match's row says finished, waits for the other's: neither has committed, so
        each reads the other's match as still running (Django's hook on a connection's queries; no mock)."""
        result = execute(sql, params, many, context)
        if sql.startswith('UPDATE "tournaments_match" SET "status"') and params[0] == Match.Status.FINISHED:
            both_stored.wait()
        return result

    def report(match):
        try:
            with connection.execute_wrapper(after_storing_the_result):
                reports.append(finish_match(match.pk, tokens[match.pk], [record("white"), record("black")]))
        except Exception as error:  # noqa: BLE001  (reported below, from the test's thread)
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=report, args=(match,)) for match in first]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == [] and len(reports) == 2 and all(reports)
    assert Match.objects.filter(tournament=tournament, round=1, status=Match.Status.FINISHED).count() == 2
    assert SwissRound.objects.filter(tournament=tournament, number=2).exists()
    assert Match.objects.filter(tournament=tournament, round=2).count() == 2
