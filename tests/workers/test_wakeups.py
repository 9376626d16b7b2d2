"""Issue 19, item 2: a challenge made through the API is claimed by an idle worker with no beat running, so no
dispatcher: its only wake-up is the one its MatchCreated event sends once the request commits. On both
brokers: the embedded one (filesystem + SQLite, the quick start's) needs nothing; Redis + PostgreSQL skip
without their servers only outside CI. (How fast: ``benchmarks/throughput.py`` prints it per kind of match.)"""

from __future__ import annotations

import time

import pytest
from cluster import Cluster
from conftest import need_services


@pytest.mark.slow  # a worker, beat and (on one side) Redis and PostgreSQL started per case
@pytest.mark.parametrize("embedded", [True, False], ids=["filesystem-sqlite", "redis-postgresql"])
def test_a_challenge_through_the_api_is_claimed_without_beat(embedded):
    if not embedded:
        need_services()
    cluster = Cluster(embedded=embedded).start()
    try:
        cluster.start_worker("idle")
        time.sleep(3)  # connected and waiting; beat is never started
        # Each challenge must be claimed and finished within 30 s (the harness fails otherwise); no beat, so no
        # dispatcher would ever send a wake-up for it.
        latencies = cluster.harness("wakeups", "--kinds", "challenge", "--matches", "3", "--api",
                                    timeout=180)["latencies"]["challenge"]
    finally:
        cluster.stop()
    assert len(latencies) == 3 and all(seconds >= 0 for seconds in latencies), latencies
