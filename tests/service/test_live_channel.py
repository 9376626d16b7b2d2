"""The live games' channel (``play.live``): what a worker process publishes another process reads, without
CACHE_URL (files under ARENA["LIVE_DIR"]) and with it (the shared Redis cache); publishing never fails a match
and costs little per ply. Rerun on PostgreSQL: the channel must not depend on the database's engine."""

from __future__ import annotations

import json
import logging
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from play import live
from tests.postgresql import rerun_on_postgresql

ROOT = Path(__file__).resolve().parents[2]
REDIS = "redis://127.0.0.1:6379/0"


def so_far(plies: int, **more) -> dict:
    actions = ["E3-H3", "E2-E3", "H3-H2", "E3-E2"][:plies] + ["C5-C1"] * max(0, plies - 4)
    return {"game": "tafl9", "initial": "start", "actions": actions, "times": [5] * plies, "plies": plies,
            "white": "north", "black": "south", "stderr": {"white": "SECRET"}, **more}


def other_process(code: str, **env: str) -> str:
    """``code`` run in a fresh Django process (as a worker or a web process is), its stdout."""
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": str(ROOT), **env}
    program = f"import django; django.setup()\nfrom play import live\n{code}"
    done = subprocess.run([sys.executable, "-c", program],
                          cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_without_cache_url_another_process_reads_what_one_publishes(settings, tmp_path):
    settings.ARENA = {**settings.ARENA, "LIVE_DIR": tmp_path / "var" / "live"}  # what ARENA_VAR_DIR gives below
    environment = {"ARENA_VAR_DIR": str(tmp_path / "var"), "CACHE_URL": ""}
    other_process("live.publish(41, 1, {'game': 'tafl9', 'initial': 'start', 'actions': []})", **environment)
    assert live.current(41) == 1 and live.game(41, 1)["actions"] == []
    live.publish(41, 1, so_far(3))
    seen = other_process("import json; print(json.dumps([live.current(41), live.game(41, 1)]))", **environment)
    number, game = json.loads(seen)
    assert number == 1 and game["actions"] == so_far(3)["actions"] and game["white"] == "north"
    assert "stderr" not in game  # never what the bots wrote
    live.publish(41, 2, so_far(0))
    assert live.current(41) == 2 and live.game(41, 1)["actions"] == so_far(3)["actions"]  # game 1 still readable


@pytest.fixture
def redis_cache(settings):
    """The machine's Redis as the cache, as config/settings.py makes it from CACHE_URL (skipped without one, on a
    laptop only)."""
    import redis

    try:
        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except redis.RedisError as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"no Redis at {REDIS}: {error}")
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS,
                                   "KEY_PREFIX": "arena"}}


def test_with_cache_url_the_shared_redis_carries_it(settings, redis_cache):
    match_id = random.randrange(10**9, 2 * 10**9)  # the machine's Redis is shared: keys of our own, removed after
    try:
        other_process(f"live.publish({match_id}, 1, {so_far(2)!r})", CACHE_URL=REDIS)
        assert live.current(match_id) == 1 and live.game(match_id, 1)["actions"] == so_far(2)["actions"]
        assert not (settings.ARENA["LIVE_DIR"]).exists()  # no files when there is a shared cache
    finally:
        from django.core.cache import cache

        cache.delete_many([f"live:m{match_id}", f"live:m{match_id}-g1"])


def test_each_games_plies_go_through_the_connections_the_worker_keeps(redis_cache, monkeypatch):
    """Django keeps a cache object, hence a Redis connection pool, per thread: the plies' thread, new for each
    game, once connected to Redis anew for every game."""
    import redis

    sockets = []
    connect = redis.connection.Connection._connect
    monkeypatch.setattr(redis.connection.Connection, "_connect",
                        lambda self: sockets.append(connect(self)) or sockets[-1])
    match_id = random.randrange(10**9, 2 * 10**9)
    try:
        for number in range(1, 6):
            with live.Game(match_id, number, {"game": "tafl9", "initial": "start", "white": "n", "black": "s"}) as game:
                game.ply(["E3-H3"], [5])
                deadline = time.monotonic() + 10
                while (live.game(match_id, number) or {}).get("plies") != 1:  # the plies' thread wrote it
                    assert time.monotonic() < deadline, "the ply was never published"
                    time.sleep(0.01)
                game.over(so_far(2))
            assert live.game(match_id, number)["plies"] == 2
        assert len(sockets) <= 2, f"{len(sockets)} connections to Redis for five games"  # the pool's, kept
    finally:
        from django.core.cache import cache

        cache.delete_many([f"live:m{match_id}", *(f"live:m{match_id}-g{number}" for number in range(1, 6))])


def test_publishing_never_fails_the_match(settings, tmp_path, caplog):
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    settings.ARENA = {**settings.ARENA, "LIVE_DIR": blocked}
    with caplog.at_level(logging.WARNING, logger="play.live"):
        live.publish(5, 1, so_far(2))  # returns: the game goes on unwatched
    assert "live match 5: game 1 not published" in caplog.text
    assert live.game(5, 1) is None
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:1/0"}}  # nothing listens there
    started = time.monotonic()
    live.publish(5, 1, so_far(2))
    assert time.monotonic() - started < 2 and live.game(5, 1) is None


def test_a_half_written_entry_is_never_read(settings, tmp_path):
    """A writer renames a finished file into place: a reader sees one ply or the next, and a stray file of a writer
    that died mid-write is not an entry."""
    settings.ARENA = {**settings.ARENA, "LIVE_DIR": tmp_path / "live"}
    live.publish(8, 1, so_far(2))
    (tmp_path / "live" / ".m8-g1.123.456.tmp").write_text('{"actions": ["E3-')
    assert live.game(8, 1)["actions"] == so_far(2)["actions"]


def test_a_reader_never_misses_an_entry_while_it_is_rewritten(settings, tmp_path):
    """Ply after ply replaces the file while another thread reads it as fast as it can: every read is a whole
    entry, never none and never a step back."""
    import threading

    settings.ARENA = {**settings.ARENA, "LIVE_DIR": tmp_path / "live"}
    live.publish(9, 1, so_far(0))
    reads, done = [], threading.Event()

    def reader():
        while not done.is_set():
            entry = live.game(9, 1)
            reads.append(None if entry is None else len(entry["actions"]))

    watcher = threading.Thread(target=reader)
    watcher.start()
    try:
        for plies in range(1, 400):
            live.publish(9, 1, so_far(plies))
    finally:
        done.set()
        watcher.join()
    assert len(reads) > 100 and None not in reads
    assert reads == sorted(reads)


def test_old_entries_are_pruned_as_games_start(settings, tmp_path):
    settings.ARENA = {**settings.ARENA, "LIVE_DIR": tmp_path / "live"}
    live.publish(1, 1, so_far(4))
    stale = tmp_path / "live" / "m1-g1.json"
    hour_ago = time.time() - live.KEEP_SECONDS - 60
    os.utime(stale, (hour_ago, hour_ago))
    live.publish(2, 1, so_far(0))
    assert not stale.exists() and live.game(2, 1) is not None


@pytest.mark.slow
def test_this_module_on_postgresql():
    rerun_on_postgresql(__file__, "the live channel", "arena_live_channel")
