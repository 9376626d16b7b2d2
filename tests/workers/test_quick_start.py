"""The quick start finishes: ``manage.py arena --exit-after-demo`` on the embedded stack (SQLite, the
filesystem broker, one match worker) plays all four demo tournaments within 20 minutes, and a version
uploaded while the worker plays a match is smoke-tested within 30 s. (The ranked ladder keeps its guaranteed
share of the one worker, ARENA_LADDER_SHARE, half: the demo's 24 matches take about twice as long as when
they went before every ladder match, 21 of them in 600 s on CI's machine.)

The bounds are timeouts that catch starvation (a demo match waiting behind the ladder for as long as
the ladder refills, an upload waiting behind matches) with a wide margin; they are not speed targets.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from cluster import ROOT, free_port

pytestmark = pytest.mark.slow

DEMO_SECONDS = 1200
SMOKE_SECONDS = 30
BOT = (ROOT / "tests" / "bots" / "random_bot.py").read_bytes()


def wait_for(predicate, seconds: float, what: str, log: Path):
    deadline = time.monotonic() + seconds
    while not (found := predicate()):
        assert time.monotonic() < deadline, f"{what} not within {seconds} s\n{log.read_text()[-4000:]}"
        time.sleep(0.5)
    return found


def test_the_demo_tournaments_finish_and_an_upload_is_tested_while_a_match_is_played(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(ARENA_VAR_DIR=str(tmp_path / "var"), MEDIA_ROOT=str(tmp_path / "media"), PYTHONUNBUFFERED="1",
               DJANGO_SETTINGS_MODULE="config.settings", ARENA_BOT_CACHE_DIR=str(tmp_path / "bots"))
    log = tmp_path / "arena.log"
    arena = subprocess.Popen(
        [sys.executable, "manage.py", "arena", "--exit-after-demo", "--demo-timeout", str(DEMO_SECONDS),
         "--port", str(port)], cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT,
        start_new_session=True)
    api = f"http://127.0.0.1:{port}/api"
    try:
        wait_for(lambda: "Arena running" in log.read_text(), 300, "the arena's start (migrate, seed)", log)
        token = wait_for(lambda: _token(api), 60, "the web server", log)
        headers = {"Authorization": f"Token {token}"}
        wait_for(lambda: "claimed by" in log.read_text(), 120, "a match being played", log)
        bot = requests.post(f"{api}/bots/", json={"name": "newcomer", "game": "tafl9"}, headers=headers, timeout=30)
        assert bot.status_code == 201, bot.text
        uploaded = time.monotonic()
        version = requests.post(f"{api}/bots/{bot.json()['id']}/versions/", headers=headers, timeout=30,
                                files={"file": ("newcomer.py", BOT, "text/x-python")})
        assert version.status_code == 201, version.text

        def judged():
            reply = requests.get(f"{api}/versions/{version.json()['id']}/", headers=headers, timeout=30).json()
            return reply if reply["status"] != "pending" else None

        verdict = wait_for(judged, SMOKE_SECONDS, "the smoke test of a new upload", log)
        print(f"smoke-tested in {time.monotonic() - uploaded:.1f} s")
        assert verdict["status"] == "ready", verdict
        assert arena.wait(DEMO_SECONDS + 60) == 0, log.read_text()[-4000:]
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGKILL)
            arena.wait(10)
    text = log.read_text()
    ended = dict(re.findall(r"demo: '(Demo round-robin: [\w-]+)' ended after (\d+) s", text))
    print(ended)
    assert set(ended) == {f"Demo round-robin: {game}" for game in ("tafl9", "fidchell-1", "fidchell-2", "shatra")}
    assert all(int(seconds) <= DEMO_SECONDS for seconds in ended.values()), ended
    assert "demo finished" in text


def _token(api: str) -> str | None:
    try:
        reply = requests.post(f"{api}/auth/token/", json={"username": "alice", "password": "alice-demo"}, timeout=5)
    except requests.ConnectionError:
        return None
    return reply.json()["token"] if reply.status_code == 200 else None
