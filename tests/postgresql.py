"""Running one test module again on PostgreSQL, in a pytest of its own with its own database.

CI's first pass is on SQLite; a module whose behaviour depends on the database (row locks, what the database
refuses to store) reruns itself here. Without PostgreSQL the rerun skips on a laptop and fails when CI is set.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PG_URL = os.environ.get("ARENA_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432")
RERUN = "test_this_module_on_postgresql"


def postgresql_missing() -> str | None:
    try:
        import psycopg

        with psycopg.connect(f"{PG_URL}/postgres", connect_timeout=3):
            return None
    except Exception as error:  # noqa: BLE001
        return f"PostgreSQL at {PG_URL} is not reachable: {error}"


def rerun_on_postgresql(module_file: str, what: str, database: str) -> None:
    """Run every other test of ``module_file`` on a fresh PostgreSQL database named after ``database``."""
    missing = postgresql_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run {what} on PostgreSQL, but: {missing}")
        pytest.skip(missing)
    environment = {**os.environ, "DATABASE_URL": f"{PG_URL}/{database}_{uuid.uuid4().hex[:8]}"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", module_file,
                           "-k", f"not {RERUN}"],
                          cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " skipped" not in done.stdout.splitlines()[-1], done.stdout[-2000:]
