"""The cluster fixture: real services on loopback, skipped without them unless CI is set."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from cluster import Cluster, services_missing  # noqa: E402


def need_services(own_postgres: bool = False) -> None:
    missing = services_missing(own_postgres)
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"the worker tests need PostgreSQL and redis-server in CI: {missing}")
        pytest.skip(f"worker cluster tests skipped: {missing}")


def two_workers_and_beat(running: Cluster):
    """The started cluster with workers w1 and w2 and beat, stopped at the end whatever happened."""
    try:
        running.start_worker("w1")
        running.start_worker("w2")
        running.start_beat()
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def cluster():
    need_services()
    yield from two_workers_and_beat(Cluster().start())


@pytest.fixture(scope="module")
def own_pg_cluster():
    """A cluster on a PostgreSQL server of its own, which its tests may stop and start; persistent
    database connections, as docker-compose.yml runs them."""
    need_services(own_postgres=True)
    yield from two_workers_and_beat(Cluster(own_postgres=True, DATABASE_CONN_MAX_AGE="60").start())
