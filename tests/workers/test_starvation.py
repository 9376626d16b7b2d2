"""No starvation, on either broker: with the ladder kept full, tournament matches and smoke tests queued
at random moments all finish, none behind more than one newer item of its priority per worker. The ladder
plays meanwhile: it keeps its guaranteed share of the workers (tests/workers/test_fair_share.py), so ladder
matches do start while the tournament's wait, but never all of them.

On the filesystem broker the burst's messages are named to sort after every other message, as a
message written just before the host's uptime gains a digit in milliseconds is: the order and the
priority are the database's, so it makes no difference.
"""

from __future__ import annotations

import json
import time

import pytest
from cluster import Cluster
from conftest import need_services

pytestmark = pytest.mark.slow

WORKERS = 2
LADDER_FULL = {
    "ARENA_LADDER_QUEUED_PER_GAME": "12",  # 24 bots: twelve open ladder matches at most
    "ARENA_LADDER_QUEUED_PER_WORKER": "8",  # a deep ladder queue, the worst case for what comes after it
    "ARENA_SCHEDULE_SECONDS": "1",  # refilled every second
}


@pytest.mark.parametrize("embedded", [False, True], ids=["redis-postgresql", "filesystem-sqlite"])
def test_tournament_matches_and_smoke_tests_are_not_starved_by_the_ladder(embedded):
    if not embedded:
        need_services()
    cluster = Cluster(embedded=embedded, **LADDER_FULL).start()
    try:
        cluster.harness("seed", "--matches", "0", "--bots", "24", "--delay", "0.01")
        for number in range(1, WORKERS + 1):
            cluster.start_worker(f"w{number}")
        cluster.start_beat()
        deadline = time.monotonic() + 120
        while cluster.harness("waits", "--ids", '{"matches": [], "uploads": []}')["ladder_started"] < 10:
            assert time.monotonic() < deadline, f"the ladder did not start\n{cluster.log_text()[-4000:]}"
            time.sleep(1)
        late = ["--late-names"] if embedded else []
        ids = cluster.harness("burst", "--matches", "50", "--uploads", "10", "--seconds", "40", *late, timeout=300)
        deadline = time.monotonic() + 300
        while True:
            waited = cluster.harness("waits", "--ids", json.dumps(ids))
            if not waited["open"] and waited["upload_statuses"] == {"ready": 10}:
                break
            assert time.monotonic() < deadline, f"starved: {waited}\n{cluster.log_text()[-4000:]}"
            time.sleep(1)
        # The ladder was kept full to the end: it refills every second, so look for a few seconds rather than
        # at the one instant when the workers may just have taken what it had queued.
        refilled = time.monotonic() + 15
        while cluster.harness("waits", "--ids", json.dumps(ids))["ladder_queued"] < WORKERS:
            assert time.monotonic() < refilled, "the ladder was not kept full to the end"
            time.sleep(0.5)
    finally:
        cluster.stop()
    print(f"burst waits: {waited}")
    assert waited["overtaken"] <= WORKERS, waited
    # The ladder's share, not its priority: while the burst's matches waited, ladder matches started too,
    # yet fewer than all the matches played meanwhile (the tournament's organiser got its turns).
    assert waited["lower_started_meanwhile"] < waited["ladder_started"], waited
    assert waited["upload_overtaken"] <= WORKERS, waited
