"""``manage.py arena`` with nothing installed: SQLite, the filesystem broker, web + worker + beat as
children; SIGTERM (what Ctrl-C amounts to) stops every child and the command exits 0."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request

import pytest
from cluster import ROOT, alive, free_port, kill_arena

pytestmark = pytest.mark.slow


def test_arena_serves_the_api_docs_and_stops_all_children_on_sigterm(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(ARENA_VAR_DIR=str(tmp_path / "var"), MEDIA_ROOT=str(tmp_path / "media"), PYTHONUNBUFFERED="1",
               DJANGO_SETTINGS_MODULE="config.settings")
    out = open(tmp_path / "arena.log", "w+")
    children: dict[str, int] = {}
    arena = subprocess.Popen([sys.executable, "manage.py", "arena", "--no-seed", "--port", str(port)], cwd=ROOT,
                             env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert arena.poll() is None, (tmp_path / "arena.log").read_text()
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/docs/", timeout=2) as reply:
                    assert reply.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, (tmp_path / "arena.log").read_text()
                time.sleep(0.5)
        text = (tmp_path / "arena.log").read_text()
        assert f"http://127.0.0.1:{port}/api/docs/" in text and f"http://127.0.0.1:{port}/admin/" in text
        children = {name: int(pid) for name, pid in re.findall(r"started (\w+) \(pid (\d+)\)", text)}
        assert set(children) == {"web", "worker", "control", "beat"}
        time.sleep(2)
        assert all(alive(pid) for pid in children.values())
        os.kill(arena.pid, signal.SIGTERM)
        assert arena.wait(60) == 0, (tmp_path / "arena.log").read_text()
        assert not any(alive(pid) for pid in children.values())
        assert "arena: stopped cleanly" in (tmp_path / "arena.log").read_text()
    finally:
        kill_arena(arena, children)
