"""A clean stop: SIGTERM to ``manage.py arena`` (what ``./arena up`` runs) in the middle of a slow match gives the
match back to the queue (not left ``running``, the attempt not counted), removes its bots' folders, and only then
says "stopped cleanly"; a child that will not stop is killed, and the command says so instead."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from cluster import HARNESS, ROOT, Cluster, alive, free_port, kill_arena
from conftest import need_services

from ops.management.commands.arena import STOP_GRACE_S, Children

pytestmark = pytest.mark.slow


def run(argv: list[str], env: dict) -> str:
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.fixture
def workers_tmp():
    """The workers' TMPDIR: outside pytest's own (private to us), since the sandbox's bots run as another user."""
    path = Path(tempfile.mkdtemp(prefix="arena-stop-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_sigterm_mid_match_requeues_it_removes_the_bot_folders_then_says_stopped_cleanly(tmp_path, workers_tmp):
    bot_folders = workers_tmp / "tabula-bots"  # runner.sandbox.owned_tempdir, under the workers' TMPDIR
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(ARENA_VAR_DIR=str(tmp_path / "var"), MEDIA_ROOT=str(tmp_path / "media"), PYTHONUNBUFFERED="1",
               DJANGO_SETTINGS_MODULE="config.settings", ARENA_BOT_CACHE_DIR=str(tmp_path / "cache"),
               TMPDIR=str(workers_tmp), ARENA_LADDER_QUEUED_PER_GAME="0")
    run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], env)
    # one match of ten games whose bots think 1.5 s an action: far longer than the test lets it play
    seeded = run([sys.executable, str(HARNESS), "seed", "--matches", "1", "--bots", "2", "--games", "10",
                  "--delay", "1.5", "--tc", "move:5000"], env)
    match_id = json.loads(seeded.strip().splitlines()[-1])["matches"][0]
    database = tmp_path / "var" / "arena.sqlite3"

    def match_row() -> tuple[str, int, str]:
        with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as db:
            return db.execute("SELECT status, attempts, failure_reason FROM tournaments_match WHERE id = ?",
                              (match_id,)).fetchone()

    log = tmp_path / "arena.log"
    arena = subprocess.Popen([sys.executable, "manage.py", "arena", "--no-seed", "--port", str(free_port())],
                             cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
                             start_new_session=True)
    children: dict[str, int] = {}
    try:
        deadline = time.monotonic() + 180
        while not (match_row()[0] == "running" and bot_folders.is_dir() and any(bot_folders.iterdir())):
            assert arena.poll() is None and time.monotonic() < deadline, log.read_text()[-4000:]
            time.sleep(0.3)
        time.sleep(2)  # a game under way: both bots started, an action or two played
        assert match_row()[0] == "running" and len(list(bot_folders.iterdir())) == 2
        children = {name: int(pid) for name, pid in re.findall(r"started (\w+) \(pid (\d+)\)", log.read_text())}

        os.kill(arena.pid, signal.SIGTERM)
        asked = time.monotonic()
        assert arena.wait(STOP_GRACE_S + 60) == 0, log.read_text()[-4000:]
        took = time.monotonic() - asked
    finally:
        kill_arena(arena, children)
    text = log.read_text()
    print(f"stopped in {took:.1f} s")
    status, attempts, reason = match_row()
    assert (status, attempts) == ("queued", 0), (status, attempts, reason, text[-4000:])
    assert "worker stopped" in reason
    assert list(bot_folders.iterdir()) == []
    assert not any(alive(pid) for pid in children.values())
    assert "killed" not in text and "arena: stopped cleanly" in text.splitlines()[-1]
    assert took < STOP_GRACE_S  # the worker stopped by itself: nothing had to be killed


def test_a_child_that_will_not_stop_is_killed_and_the_stop_says_so(settings):
    stubborn = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nprint('up', flush=True)\n" \
               "time.sleep(600)\n"
    out = io.StringIO()
    children = Children(out, dict(os.environ))
    children.start("obliging", [sys.executable, "-c", "import time; time.sleep(600)"])
    children.start("stubborn", [sys.executable, "-u", "-c", stubborn])
    time.sleep(1)  # the stubborn one has set its handler
    killed = children.stop_all(grace=2)
    assert killed == [f"killed stubborn (pid {children.procs['stubborn'].pid}): still running 2 s after SIGTERM"]
    assert f"arena: {killed[0]}" in out.getvalue() and "killed obliging" not in out.getvalue()
    assert all(proc.poll() is not None for proc in children.procs.values())


def test_sigterm_to_a_celery_worker_gives_its_match_to_the_next_worker_within_the_lease(workers_tmp):
    """A worker as docker-compose runs one (PostgreSQL, Redis), told to stop mid-match by SIGTERM to its main process
    only: the match is back in the queue before its 3 s lease could run out (no scavenger runs here), and another
    worker takes it."""
    need_services()
    cluster = Cluster(TMPDIR=str(workers_tmp)).start()
    bot_folders = workers_tmp / "tabula-bots"
    try:
        match_id = cluster.harness("seed", "--matches", "1", "--bots", "2", "--games", "10", "--delay", "1.5",
                                   "--tc", "move:5000")["matches"][0]
        first = cluster.start_worker("first")
        cluster.harness("send", str(match_id))

        def state() -> tuple:
            return cluster.sql("SELECT status, attempts, worker_id, failure_reason FROM tournaments_match "
                               "WHERE id = %s", match_id)[0]

        deadline = time.monotonic() + 120
        while not (state()[0] == "running" and bot_folders.is_dir() and len(list(bot_folders.iterdir())) == 2):
            assert time.monotonic() < deadline, cluster.log_text()[-4000:]
            time.sleep(0.2)
        time.sleep(1)
        os.kill(first.pid, signal.SIGTERM)
        asked = time.monotonic()
        assert first.wait(30) == 0, cluster.log_text()[-4000:]
        print(f"worker stopped in {time.monotonic() - asked:.1f} s")
        status, attempts, worker_id, reason = state()
        assert (status, attempts, worker_id) == ("queued", 0, ""), (status, attempts, reason)
        assert "worker stopped" in reason and list(bot_folders.iterdir()) == []
        cluster.workers.pop("first")

        cluster.start_worker("second")  # the wake-up the first sent on its way out is waiting for it
        deadline = time.monotonic() + 60
        while not state()[2].startswith("second@"):
            assert time.monotonic() < deadline, cluster.log_text()[-4000:]
            time.sleep(0.2)
    finally:
        cluster.stop()
