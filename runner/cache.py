"""Unpacked bots on the worker's disk: a cache with a size bound, least recently used out first."""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

STAGING_PREFIX = "unpack-"  # a tree being written
TRASH_PREFIX = ".gone-"  # a tree being removed
STALE_SECONDS = 3600  # a staging or trash directory this old was left by a process that died


def disk_bytes(path: Path) -> int:
    """What ``path`` (a file, or a directory and everything in it) takes on disk, in allocated blocks: a
    one-line file still costs a block, which is where small bots' bytes go."""
    try:
        total = path.lstat().st_blocks * 512
    except FileNotFoundError:
        return 0
    if path.is_dir() and not path.is_symlink():
        for parent, dirs, files in os.walk(path):
            for name in dirs + files:
                try:
                    total += os.lstat(os.path.join(parent, name)).st_blocks * 512
                except FileNotFoundError:
                    pass
    return total


class TreeCache:
    """``use`` a tree (filled on a miss), ``trim`` to the bound, ``remove`` a key.

    ``companions(key, tree)``: other files that belong to a tree (its build result) and go with it; their
    bytes count toward the bound too. ``wanted(keys)``: of these keys, those whose versions still exist;
    the others are dropped at the next trim (a worker whose disk the web process cannot reach learns of
    deleted versions this way).
    """

    def __init__(self, root: Path, max_bytes: int,
                 companions: Callable[[str, Path], list[Path]] | None = None,
                 wanted: Callable[[list[str]], Iterable[str]] | None = None) -> None:
        self.root = Path(root)
        self.max_bytes = max_bytes
        self.companions = companions or (lambda key, tree: [])
        self.wanted = wanted

    # --- locks -----------------------------------------------------------------------------------

    def _lock(self, key: str, exclusive: bool, wait: bool) -> int | None:
        """An fd holding the lock of ``key`` (created if need be), or None when ``wait`` is False and
        someone else holds it."""
        path = self.root / f"{key}.lock"
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
            try:
                fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | (0 if wait else fcntl.LOCK_NB))
            except OSError as error:
                os.close(fd)
                if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    return None
                raise
            try:
                same = os.stat(path).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)  # removed (and maybe made again) while we waited: lock the file that is there now

    def _drop(self, key: str, fd: int) -> int:
        """Under ``key``'s exclusive lock (``fd``): move the tree away, remove it, its companions and the
        lock file; the bytes freed."""
        tree = self.root / key
        freed = 0
        if tree.is_dir():
            for companion in self._companions(key, tree):
                freed += disk_bytes(companion)
                companion.unlink(missing_ok=True)
            trash = Path(tempfile.mkdtemp(prefix=TRASH_PREFIX, dir=self.root))
            os.rename(tree, trash / key)  # atomic: a reader sees the whole tree or none
            freed += disk_bytes(trash)
            shutil.rmtree(trash, ignore_errors=True)
        (self.root / f"{key}.lock").unlink(missing_ok=True)
        os.close(fd)
        return freed

    def _companions(self, key: str, tree: Path) -> list[Path]:
        try:
            return list(self.companions(key, tree))
        except Exception:  # an unreadable tree has no companions we can name: its bytes are its own
            return []

    # --- the three operations --------------------------------------------------------------------

    @contextmanager
    def use(self, key: str, fill: Callable[[Path], None]) -> Iterator[Path]:
        """The tree ``key``, made by ``fill(directory)`` when absent, and safe from eviction until the
        block ends. An exception from ``fill`` leaves nothing behind and goes on to the caller."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd = self._lock(key, exclusive=False, wait=True)
        made = False
        try:
            tree = self.root / key
            if tree.is_dir():
                os.utime(tree)  # the last use, which eviction orders by
            else:
                staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.root))
                try:
                    fill(staging)
                    try:
                        os.rename(staging, tree)
                        made = True
                    except OSError:
                        if not tree.is_dir():  # not another user of the same key filling it first: a real error
                            raise
                finally:
                    shutil.rmtree(staging, ignore_errors=True)
        except BaseException:
            os.close(fd)
            self.remove(key)  # the lock file of a tree never made; nothing if another holds it
            raise
        try:
            if made:
                self.trim(keep=key)
            yield tree
        finally:
            os.close(fd)

    def remove(self, key: str) -> bool:
        """Remove ``key``'s tree now unless it is in use (then it stays, for eviction later)."""
        if not (self.root / f"{key}.lock").exists() and not (self.root / key).exists():
            return True
        self.root.mkdir(parents=True, exist_ok=True)
        fd = self._lock(key, exclusive=True, wait=False)
        if fd is None:
            return False
        self._drop(key, fd)
        return True

    def entries(self) -> list[tuple[str, float, int]]:
        """(key, last use, bytes with companions) of each tree, least recently used first."""
        rows = []
        if not self.root.is_dir():
            return rows
        for path in self.root.iterdir():
            if not path.is_dir() or path.name.startswith((STAGING_PREFIX, TRASH_PREFIX)) or path.name == "builds":
                continue
            try:
                used = path.stat().st_mtime
            except FileNotFoundError:
                continue
            size = disk_bytes(path) + sum(disk_bytes(c) for c in self._companions(path.name, path))
            rows.append((path.name, used, size))
        return sorted(rows, key=lambda row: row[1])

    def size(self) -> int:
        return sum(row[2] for row in self.entries())

    def trim(self, keep: str | None = None) -> int:
        """Drop the trees of deleted versions, then the least recently used, until the cache is within
        its bound; trees in use (and ``keep``) stay. The bytes the cache still takes."""
        self._sweep()
        rows = self.entries()
        try:
            wanted = set(self.wanted([row[0] for row in rows])) if self.wanted is not None else None
        except Exception:  # the database out of reach: the bound still holds, orphans wait for the next trim
            wanted = None
        total = sum(row[2] for row in rows)
        for key, _, size in rows:
            orphan = wanted is not None and key not in wanted
            if key == keep or not (orphan or total > self.max_bytes):
                continue
            fd = self._lock(key, exclusive=True, wait=False)
            if fd is not None:
                self._drop(key, fd)
                total -= size
        return total

    def _sweep(self) -> None:
        """Staging and trash directories left by a process that died mid-way."""
        old = time.time() - STALE_SECONDS
        for path in self.root.glob(f"{STAGING_PREFIX}*"):
            if path.stat().st_mtime < old:
                shutil.rmtree(path, ignore_errors=True)
        for path in self.root.glob(f"{TRASH_PREFIX}*"):
            shutil.rmtree(path, ignore_errors=True)
