"""Every script in benchmarks/ runs, at its smallest size (``--quick``), so none can break unseen.

Each runs as a reader runs it (``python benchmarks/NAME.py --quick``), in a process of its own, and must exit 0
and print its figures. The figures themselves are not checked: a benchmark's numbers are never a test's
assertion. Those that need PostgreSQL (and redis-server, for the worker clusters) or the sandbox use the real
ones here, each in a database of its own dropped afterwards; without them they skip on a laptop and fail when
``CI`` is set.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import psycopg
import pytest

from runner.sandbox import SandboxError, open_sandbox
from tests.postgresql import PG_URL, postgresql_missing

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
sys.path.insert(0, str(ROOT / "tests" / "workers"))  # as tests/workers/conftest.py: cluster.py is no package's

from cluster import services_missing  # noqa: E402

pytestmark = pytest.mark.slow  # 3.6 min of CPU in all, the three worker clusters half of it

# What each script needs beyond Python: "postgres" (a database of its own, given by {database}), "cluster"
# (PostgreSQL and redis-server: tests/workers/cluster.py), "sandbox" (bubblewrap); and its extra arguments.
SCRIPTS = {
    "api_latency": ({"postgres"}, ["--database", "{database}"]),
    "board": (set(), []),
    "bots": (set(), []),
    "claim_cost": ({"cluster"}, []),
    "disk": (set(), []),
    "fairness": ({"cluster"}, []),
    "fresh_ratings": ({"cluster"}, []),
    "live_poll": (set(), []),
    "match": ({"sandbox"}, []),
    "pairing": (set(), ["--bound"]),  # --bound: the oracle rule and the optimal design run too
    "perft": (set(), []),
    "ratings": ({"postgres"}, ["--database", "{database}"]),  # --database: the fit timed on PostgreSQL too
    "recompute_ratings": ({"postgres", "database_url"}, []),
    "sandbox_start": ({"sandbox"}, []),
    "sprt": (set(), []),
    "throughput": ({"cluster"}, ["--think", "0.001"]),  # --think: bots that take time a move, side by side too
    "web": ({"postgres"}, ["--database", "{database}"]),
}


def test_every_script_in_benchmarks_is_run_here():
    """A new benchmark must be added to SCRIPTS (and given --quick), or it could rot unseen."""
    assert sorted(path.stem for path in BENCHMARKS.glob("*.py")) == sorted(SCRIPTS)


def missing(needs: set[str]) -> str | None:
    """Why this machine cannot run a script with these needs, or None."""
    if needs & {"postgres", "cluster"}:
        if reason := postgresql_missing():
            return reason
    if "cluster" in needs:
        if reason := services_missing():
            return reason
    if "sandbox" in needs:
        try:
            open_sandbox()
        except SandboxError as error:
            return f"no sandbox on this machine: {error}"
    return None


def drop_database(name: str) -> None:
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_benchmark_runs_at_its_smallest_size(name):
    needs, extra = SCRIPTS[name]
    if reason := missing(needs):
        if os.environ.get("CI"):
            pytest.fail(f"CI must run benchmarks/{name}.py, but: {reason}")
        pytest.skip(reason)
    database = f"arena_bench_test_{name}_{uuid.uuid4().hex[:8]}"
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("DATABASE_URL", "CACHE_URL", "DJANGO_SETTINGS_MODULE")}
    if "database_url" in needs:  # this one migrates and empties whatever DATABASE_URL names: a fresh one
        with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{database}"')
        environment["DATABASE_URL"] = f"{PG_URL}/{database}"
    command = [sys.executable, str(BENCHMARKS / f"{name}.py"), "--quick",
               *(word.format(database=database) for word in extra)]
    try:
        done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=900)
    finally:
        if needs & {"postgres"}:
            drop_database(database)
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"benchmarks/{name}.py printed no figures"
    if name == "throughput":  # --think reaches the bots: the runner timed each move at 1 ms or more
        thought = re.findall(r"sandboxed, 1 ms a move.*the bots thought ([\d.]+) ms a move", done.stdout)
        assert thought and all(float(ms) >= 1.0 for ms in thought), done.stdout
