"""A throw-away arena cluster on loopback: its own PostgreSQL database, its own redis-server, real
Celery worker and beat processes. Used by the worker tests and ``benchmarks/throughput.py``.
``Cluster(embedded=True)`` is the quick start's stack instead: SQLite and the filesystem broker in a
temporary directory, nothing else needed.

Nothing here touches the machine's shared Redis; the shared PostgreSQL only gets one database with a
unique name, dropped at the end. A test that stops PostgreSQL asks for a server of its own instead
(``Cluster(own_postgres=True)``: initdb in a temporary directory, a free loopback port), and stops
only that one.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import closing
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


def postgres_bin() -> Path | None:
    """The directory holding ``initdb``, ``pg_ctl`` and ``postgres``, or None."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(candidate, "pg_ctl").exists() and Path(candidate, "initdb").exists():
            return Path(candidate)
    found = shutil.which("pg_ctl")
    return Path(found).resolve().parent if found and Path(found).resolve().with_name("initdb").exists() else None


def services_missing(own_postgres: bool = False) -> str | None:
    """Why the cluster cannot run here, or None."""
    if shutil.which("redis-server") is None:
        return "redis-server is not installed"
    if own_postgres:
        if postgres_bin() is None:
            return "PostgreSQL's initdb and pg_ctl are not installed"
        if os.geteuid() == 0 and not any(_user_exists(name) for name in PG_USERS):
            return "running as root with no postgres or nobody user to run initdb as"
        return None
    try:
        import psycopg

        with psycopg.connect(f"{PG_URL}/postgres", connect_timeout=3):
            pass
    except Exception as error:  # noqa: BLE001
        return f"PostgreSQL at {PG_URL} is not reachable: {error}"
    return None


PG_USERS = ("postgres", "nobody")  # initdb refuses to run as root


def _user_exists(name: str) -> bool:
    import pwd

    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


class Postgres:
    """A private PostgreSQL server: initdb in a temporary directory, trust auth, a free loopback port.

    Owned by a non-root user when we are root; ``stop`` is an immediate shutdown (as if it crashed:
    every connection is cut, recovery runs at the next start).
    """

    def __init__(self):
        self.bin = postgres_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.url = f"postgres://postgres@127.0.0.1:{self.port}"
        self.user = None
        if os.geteuid() == 0:
            self.user = next(name for name in PG_USERS if _user_exists(name))
            shutil.chown(self.dir, self.user)

    def _run(self, *argv: str) -> None:
        done = subprocess.run([str(self.bin / argv[0]), *argv[1:]], user=self.user, capture_output=True, text=True,
                              timeout=120, cwd=self.dir)
        if done.returncode:
            raise ClusterUnavailable(f"{argv[0]} failed: {done.stdout[-1500:]}{done.stderr[-1500:]}")

    def init(self) -> Postgres:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        return self.start()

    def start(self) -> Postgres:
        # No fsync (a stopped server leaves its writes with the kernel), but synchronous commits: with
        # them off, an immediate stop would lose transactions already reported committed.
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.dir} -c fsync=off "
                   "-c full_page_writes=off -c max_connections=50")
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.dir / "postgres.log"), "-w",
                  "-t", "60", "start")
        return self

    def stop(self, mode: str = "immediate") -> None:
        if (self.data / "postmaster.pid").exists():
            self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop")

    def log_text(self) -> str:
        return (self.dir / "postgres.log").read_text(errors="replace")

    def remove(self) -> None:
        try:
            self.stop("fast")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


class Cluster:
    def __init__(self, embedded: bool = False, *, own_postgres: bool = False, **arena_env: str):
        self.embedded = embedded
        self.dir = Path(tempfile.mkdtemp(prefix="arena-cluster-"))
        self.db_name = f"arena_workers_{uuid.uuid4().hex[:10]}"
        self.postgres = Postgres() if own_postgres else None
        self.pg_url = self.postgres.url if self.postgres else PG_URL
        self.redis_port = free_port()
        self.redis: subprocess.Popen | None = None
        self.workers: dict[str, subprocess.Popen] = {}
        self.beat: subprocess.Popen | None = None
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DATABASE_URL": f"{self.pg_url}/{self.db_name}",
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

            if self.postgres:
                self.postgres.init()
            with psycopg.connect(f"{self.pg_url}/postgres", autocommit=True) as conn:
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
            if self.postgres:
                self.postgres.remove()
            elif not self.embedded:
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

    def players(self, name: str) -> list[int]:
        """Pids of the worker's pool children, the processes that play (their match's ``worker_id``
        ends in ``:pid``)."""
        pid = self.workers[name].pid
        try:
            return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        except OSError:
            return []

    def kill_player(self, name: str) -> list[int]:
        """SIGKILL to the worker's pool child (its bots see their stdin close); the worker's main process
        forks a new one. The pids killed."""
        killed = self.players(name)
        for pid in killed:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return killed

    def pause_worker(self, name: str) -> None:
        """SIGSTOP to the worker's whole process group: as if cut off from the database and the broker."""
        os.killpg(self.workers[name].pid, signal.SIGSTOP)

    def resume_worker(self, name: str) -> None:
        os.killpg(self.workers[name].pid, signal.SIGCONT)

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

    def sql(self, query: str, *params) -> list[tuple]:
        """Rows of one query on the cluster's database, straight from this process (fast enough to poll)."""
        import psycopg

        with psycopg.connect(f"{self.pg_url}/{self.db_name}", autocommit=True, connect_timeout=5) as conn:
            return conn.execute(query, params).fetchall()

    def harness_in_background(self, *argv: str) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, str(HARNESS), *argv], cwd=ROOT, env=self.env, text=True,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def restart_exited(self) -> None:
        """Start again whatever process of the cluster exited, as compose's ``restart: unless-stopped`` does in
        the deployment (kombu's Redis transport can lose its client in a reconnect while Redis restarts)."""
        if self.beat and self.beat.poll() is not None:
            self._note(f"beat exited ({self.beat.returncode}); restarted")
            self.start_beat()
        for name, proc in list(self.workers.items()):
            if proc.poll() is not None:
                self._note(f"worker {name} exited ({proc.returncode}); restarted")
                self.start_worker(name)

    def _note(self, line: str) -> None:
        with open(self.dir / "cluster.log", "a") as log:
            log.write(line + "\n")

    def log_text(self) -> str:
        return "\n".join(path.read_text(errors="replace") for path in sorted(self.dir.glob("*.log")))

    def open_matches(self) -> int:
        """Matches queued or running, read straight from the database: a poll costs a query, not a Django
        start-up (about 0.7 s of CPU each, which a benchmark's workers would share a 2-core machine with)."""
        query = "SELECT count(*) FROM tournaments_match WHERE status IN ('queued', 'running')"
        if not self.embedded:
            return self.sql(query)[0][0]
        database = Path(self.env["ARENA_VAR_DIR"]) / "arena.sqlite3"  # config/settings.py's default under it
        with closing(sqlite3.connect(database, timeout=30)) as db:
            return db.execute(query).fetchone()[0]

    def wait_until_done(self, timeout: float, poll: float = 1.0, on_poll=None) -> dict:
        """Poll until no match is queued or running; then the harness's status. ``on_poll()`` between polls."""
        deadline = time.monotonic() + timeout
        while self.open_matches():
            if time.monotonic() > deadline:
                raise AssertionError(f"matches still open after {timeout}s: {self.harness('status')}\n"
                                     f"{self.log_text()[-4000:]}")
            if on_poll:
                on_poll()
            time.sleep(poll)
        return self.harness("status")


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, exited but not reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except FileNotFoundError:
        return False


def kill_arena(arena: subprocess.Popen, children: dict[str, int]) -> None:
    """After a ``manage.py arena`` test, pass or fail: the arena and each of its children (each in a session of
    its own) are gone."""
    if arena.poll() is None:
        os.killpg(arena.pid, signal.SIGKILL)
        arena.wait(10)
    for pid in children.values():
        if alive(pid):
            os.killpg(pid, signal.SIGKILL)
