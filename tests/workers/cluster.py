"""A throw-away arena cluster on loopback: its own PostgreSQL database, its own redis-server, real
Celery worker and beat processes. Used by the worker tests and ``benchmarks/throughput.py``.
``Cluster(embedded=True)`` is the quick start's stack instead: SQLite and the filesystem broker in a
temporary directory, nothing else needed.

Nothing here touches the machine's shared Redis; the shared PostgreSQL only gets one database with a
unique name, dropped at the end.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HARNESS = Path(__file__).with_name("harness.py")
PG_URL = os.environ.get("ARENA_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432")


class ClusterUnavailable(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def services_missing() -> str | None:
    """Why the cluster cannot run here, or None."""
    if shutil.which("redis-server") is None:
        return "redis-server is not installed"
    try:
        import psycopg

        with psycopg.connect(f"{PG_URL}/postgres", connect_timeout=3):
            pass
    except Exception as error:  # noqa: BLE001
        return f"PostgreSQL at {PG_URL} is not reachable: {error}"
    return None


class Cluster:
    def __init__(self, embedded: bool = False, **arena_env: str):
        self.embedded = embedded
        self.dir = Path(tempfile.mkdtemp(prefix="arena-cluster-"))
        self.db_name = f"arena_workers_{uuid.uuid4().hex[:10]}"
        self.redis_port = free_port()
        self.redis: subprocess.Popen | None = None
        self.workers: dict[str, subprocess.Popen] = {}
        self.beat: subprocess.Popen | None = None
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"{PG_URL}/{self.db_name}",
            "CELERY_BROKER_URL": f"redis://127.0.0.1:{self.redis_port}/0",
            "ARENA_VAR_DIR": str(self.dir / "var"),
            "MEDIA_ROOT": str(self.dir / "media"),
            "ARENA_BOT_CACHE_DIR": str(self.dir / "bots"),
            "ARENA_SANDBOX_TRUSTED": "1",
            "ARENA_MATCH_LEASE_SECONDS": "3",
            "ARENA_HEARTBEAT_SECONDS": "0.5",
            "ARENA_MATCH_MAX_ATTEMPTS": "20",
            "ARENA_SCAVENGE_SECONDS": "1",
            "ARENA_DISPATCH_SECONDS": "1",
            "ARENA_DISPATCH_GRACE_SECONDS": "3",
            "ARENA_SCHEDULE_SECONDS": "3600",
            "ARENA_LADDER_QUEUED_PER_GAME": "0",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT),
            **arena_env,
        }
        self.env.pop("CI_CELERY_EAGER", None)
        if embedded:  # the settings' defaults: SQLite and the filesystem broker under ARENA_VAR_DIR
            del self.env["DATABASE_URL"], self.env["CELERY_BROKER_URL"]

    # --- lifecycle --------------------------------------------------------------------------
    def start(self) -> Cluster:
        if not self.embedded:
            import psycopg

            with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{self.db_name}"')
            self.start_redis()
        self.manage("migrate", "--noinput", "-v", "0")
        return self

    def stop(self) -> None:
        for name in list(self.workers):
            self.stop_worker(name)
        self.stop_beat()
        self.stop_redis()
        try:
            if not self.embedded:
                import psycopg

                with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
                    conn.execute(f'DROP DATABASE IF EXISTS "{self.db_name}" WITH (FORCE)')
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def start_redis(self) -> None:
        # No persistence: a restart loses every queued message, the worst case the dispatcher must cover.
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.dir), "--protected-mode", "yes"],
            stdout=open(self.dir / "redis.log", "ab"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.redis_port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        raise ClusterUnavailable("the test redis-server did not start")

    def stop_redis(self) -> None:
        if self.redis and self.redis.poll() is None:
            self.redis.terminate()
            self.redis.wait(10)
        self.redis = None

    def _spawn(self, name: str, argv: list[str]) -> subprocess.Popen:
        log = open(self.dir / f"{name}.log", "ab")
        return subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def start_worker(self, name: str) -> subprocess.Popen:
        self.workers[name] = self._spawn(name, [
            sys.executable, "-m", "celery", "-A", "config", "worker", "-n", f"{name}@%h", "--pool", "prefork",
            "--concurrency", "1", "-O", "fair", "--without-gossip", "--without-mingle", "--loglevel", "INFO"])
        return self.workers[name]

    def kill_worker(self, name: str) -> None:
        """SIGKILL to the worker's whole process group: main process, pool child, bots."""
        proc = self.workers.pop(name)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(10)

    def stop_worker(self, name: str) -> None:
        proc = self.workers.pop(name)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(10)

    def start_beat(self) -> None:
        self.beat = self._spawn("beat", [
            sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
            "--schedule", str(self.dir / "beat-schedule")])

    def stop_beat(self) -> None:
        if self.beat and self.beat.poll() is None:
            os.killpg(self.beat.pid, signal.SIGTERM)
            try:
                self.beat.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.beat.pid, signal.SIGKILL)
                self.beat.wait(10)
        self.beat = None

    # --- talking to it ----------------------------------------------------------------------
    def manage(self, *argv: str) -> str:
        done = subprocess.run([sys.executable, "manage.py", *argv], cwd=ROOT, env=self.env, capture_output=True,
                              text=True, timeout=300)
        if done.returncode:
            raise ClusterUnavailable(f"manage.py {' '.join(argv)} failed: {done.stderr[-2000:]}")
        return done.stdout

    def harness(self, *argv: str, timeout: float = 300) -> dict:
        done = subprocess.run([sys.executable, str(HARNESS), *argv], cwd=ROOT, env=self.env, capture_output=True,
                              text=True, timeout=timeout)
        if done.returncode:
            raise AssertionError(f"harness {' '.join(argv)} failed: {done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def log_text(self) -> str:
        return "\n".join(path.read_text(errors="replace") for path in sorted(self.dir.glob("*.log")))

    def wait_until_done(self, timeout: float, poll: float = 1.0, on_poll=None) -> dict:
        """Poll until no match is queued or running; the last status."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.harness("status")
            open_ = state["statuses"].get("queued", 0) + state["statuses"].get("running", 0)
            if open_ == 0:
                return state
            if time.monotonic() > deadline:
                raise AssertionError(f"matches still open after {timeout}s: {state}\n{self.log_text()[-4000:]}")
            if on_poll:
                on_poll(state)
            time.sleep(poll)
