"""Games being played now, for their watchers: the worker publishes the game so far as it goes (``Game``), the live
page of a running match reads it. Nothing here is the source of truth (the database is, once the match is
finished); a channel that does not answer only means nobody can watch, never a slower or failed match."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from pathlib import Path

from django.conf import settings
from django.core.cache import cache, caches

from knobs import arena
from knobs.cache import CACHE_DOWN, keep, kept

log = logging.getLogger(__name__)

KEEP_SECONDS = 3600  # a live entry outlives its match's lease by far; the finished match replaces it
SHOWN = ("game", "ruleset", "settings", "initial", "actions", "times", "winner", "reason", "plies", "final",
         "white", "black", "tc")
# Caches that live in one process: the live games go through files instead.
PER_PROCESS = ("django.core.cache.backends.locmem.LocMemCache", "django.core.cache.backends.dummy.DummyCache")


def _key(match_id: int, number: int | None = None) -> str:
    return f"m{match_id}" if number is None else f"m{match_id}-g{number}"


def _via_files() -> bool:
    return settings.CACHES["default"]["BACKEND"] in PER_PROCESS


def publish(match_id: int, number: int, record: dict, store=cache) -> None:
    """The game ``number`` of the match so far, record-shaped (``initial``, ``actions``, ``times``; ``winner``
    and ``reason`` once it is over). Only the referee's fields: never what the bots wrote (stderr, log).
    Each game keeps its own entry, so a watcher of game 1 still sees how it ended while game 2 is played.
    Never raises: whatever goes wrong is logged, and the match goes on unwatched. ``store``: the cache to write to
    (by default the calling thread's)."""
    shown = {key: record[key] for key in SHOWN if key in record}
    starting = not shown.get("actions")
    try:
        if _via_files():
            _write(_key(match_id, number), shown)
            if starting:  # the match's current game changes only when a game starts
                _write(_key(match_id), number)
                _prune()
        else:
            store.set_many({f"live:{_key(match_id)}": number, f"live:{_key(match_id, number)}": shown}, KEEP_SECONDS)
    except Exception as error:  # noqa: BLE001 — a watcher's channel must never fail the match it watches
        log.warning("live match %s: game %s not published (%s)", match_id, number, error)


# How often a game's plies reach its watchers at most: the plies between are published together. The live page
# looks every 0.25 s (web.streams), so a watcher sees no difference; a game of instant bots writes its entry a
# few times instead of once a ply.
PLY_SECONDS = 0.1


class Game:
    """One game's live entry while the runner plays it (``runner.match.play_game``'s ``on_ply`` is ``ply``).

    The start (both names, no ply yet) is published at once and the finished record by ``over``; the plies
    between go from a thread of their own at most every ``PLY_SECONDS``, the latest first: the game loop
    only hands them over, and never waits for the channel. Use it as a context manager: the thread ends with
    the block, the game over or not."""

    def __init__(self, match_id: int, number: int, start: dict):
        self.match_id, self.number, self.start = match_id, number, start
        self._latest: tuple[list, list] | None = None
        # Django keeps a cache object per thread, and the Redis one its own connections: the plies' thread, new for
        # each game, would open a Redis connection each game. It writes through the game loop's thread's cache
        # instead, whose connections last (redis-py's pool is thread-safe).
        self._cache = caches["default"]
        self._wake, self._stopped = threading.Event(), threading.Event()
        self._thread = threading.Thread(target=self._publish_plies, name=f"live-m{match_id}-g{number}", daemon=True)

    def __enter__(self) -> Game:
        publish(self.match_id, self.number, {**self.start, "actions": [], "times": [], "plies": 0})
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop()

    def ply(self, actions: list[str], times: list[int]) -> None:
        self._latest = (list(actions), list(times))  # copies: the runner goes on appending to its lists
        self._wake.set()

    def over(self, record: dict) -> None:
        """The finished game: published after every ply before it, so nothing older can overwrite it."""
        self._stop()
        publish(self.match_id, self.number, record)

    def _stop(self) -> None:
        self._stopped.set()
        self._wake.set()
        if self._thread.is_alive():
            self._thread.join()

    def _publish_plies(self) -> None:
        while True:
            self._wake.wait()
            if self._stopped.is_set():
                return
            self._wake.clear()
            actions, times = self._latest
            publish(self.match_id, self.number, {**self.start, "actions": actions, "times": times,
                                                 "plies": len(actions)}, self._cache)
            self._stopped.wait(PLY_SECONDS)  # the plies played meanwhile go together in the next write


def current(match_id: int) -> int | None:
    """The number of the game the match is playing (or played last), or None."""
    return _read(_key(match_id))


def game(match_id: int, number: int) -> dict | None:
    """Game ``number`` of the match as far as it went, or None."""
    return _read(_key(match_id, number))


def _read(key: str):
    try:
        if _via_files():
            return _read_file(_directory() / f"{key}.json")
        return cache.get(f"live:{key}")
    except (*CACHE_DOWN, ValueError) as error:
        log.warning("live games: %s not read (%s)", key, error)
        return None


def _read_file(path: Path):
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        return None


def _directory() -> Path:
    return Path(arena.LIVE_DIR)


def _write(key: str, value) -> None:
    path = _directory() / f"{key}.json"
    # A name of this writer's own, then an atomic rename: readers never see a file being written.
    temporary = path.with_name(f".{key}.{os.getpid()}.{threading.get_ident()}.tmp")
    data = json.dumps(value, separators=(",", ":")).encode()
    try:
        temporary.write_bytes(data)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(data)
    # A rename over the old entry: a reader finds the old entry or the new one, never none. (On ext4 it waits
    # for the new file's data to reach the disk, auto_da_alloc: 0.25 ms a ply here at p50, more on a busy disk;
    # an unlink first would be cheaper but leave a moment with no entry, and a reader would see the game vanish.)
    os.replace(temporary, path)


def _prune() -> None:
    """Entries of games over for more than KEEP_SECONDS go (run as each game starts: one directory listing)."""
    too_old = time.time() - KEEP_SECONDS
    with os.scandir(_directory()) as entries:
        for entry in entries:
            try:
                if entry.stat().st_mtime < too_old:
                    os.unlink(entry.path)
            except FileNotFoundError:  # another worker pruned it first
                pass


# A finished game's replay for the live viewer (web.boards.replay of its stored record): computed once, kept like
# any game record (it never changes), so a watcher polling a finished game costs a cache read, not a replay.
# Each process's own cache is enough here: the stored record is in the database every process reads.
REPLAY_SECONDS = 24 * 3600


def kept_replay(game_id: int) -> dict | None:
    return kept(f"live:replay:{game_id}")


def keep_replay(game_id: int, body: dict) -> None:
    keep(f"live:replay:{game_id}", body, REPLAY_SECONDS)
