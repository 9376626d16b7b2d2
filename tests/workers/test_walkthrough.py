"""The README's "Your first bot, rated in ten minutes" works as written: its commands, read from the README's
``sh walkthrough`` block (so they cannot drift from what the test runs), run against ``manage.py arena`` (what
``./arena up`` starts) with the demo on the ladder, and the bot they upload is smoke-tested and rated within
the ten minutes the heading promises."""

from __future__ import annotations

import json
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

TEN_MINUTES = 600
BLOCK = re.compile(r"^```sh walkthrough\n(.*?)^```$", re.MULTILINE | re.DOTALL)


def walkthrough(readme: str) -> str:
    [block] = BLOCK.findall(readme)
    return block


def test_the_walkthrough_is_one_block_that_says_where_the_site_is():
    script = walkthrough((ROOT / "README.md").read_text(encoding="utf-8"))
    assert script.startswith("ARENA=http://127.0.0.1:8000/api")
    for step in ("auth/register/", "auth/token/", "runner check", "/versions/", "rating"):
        assert step in script, step


def test_a_first_bot_is_rated_within_ten_minutes_by_the_readmes_commands(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
    env.update(ARENA_VAR_DIR=str(tmp_path / "var"), MEDIA_ROOT=str(tmp_path / "media"), PYTHONUNBUFFERED="1",
               DJANGO_SETTINGS_MODULE="config.settings", ARENA_BOT_CACHE_DIR=str(tmp_path / "bots"))
    log = tmp_path / "arena.log"
    arena = subprocess.Popen([sys.executable, "manage.py", "arena", "--port", str(port)], cwd=ROOT, env=env,
                             stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_for(lambda: "Arena running" in log.read_text(), 300, "the arena's start (migrate, seed)", log)
        _wait_for(lambda: _answers(f"http://127.0.0.1:{port}/api/"), 60, "the web server", log)  # the site is up
        # The reader's shell: the project's python first on PATH (". .venv/bin/activate"), this checkout's
        # packages importable, the port the test's server listens on.
        script = walkthrough((ROOT / "README.md").read_text(encoding="utf-8")).replace(
            "127.0.0.1:8000", f"127.0.0.1:{port}")
        shell = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                 "PYTHONPATH": str(ROOT)}
        started = time.monotonic()
        done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path, env=shell,
                              capture_output=True, text=True, timeout=TEN_MINUTES)
        took = time.monotonic() - started
        print(f"the walkthrough took {took:.0f} s\n{done.stdout[-3000:]}")
        assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}\n{log.read_text()[-3000:]}"
        assert "all checks passed" in done.stdout
        bot_id = int(re.search(r"/bots/(\d+)/\s*$", done.stdout).group(1))
        bot = requests.get(f"http://127.0.0.1:{port}/api/bots/{bot_id}/", timeout=30).json()
        assert bot["name"] == "my-first-bot" and [v["status"] for v in bot["versions"]] == ["ready"]
        assert bot["rating"] is not None and bot["rating"]["games"] >= 1, json.dumps(bot)[:2000]
    finally:
        if arena.poll() is None:
            os.killpg(arena.pid, signal.SIGTERM)
            try:
                arena.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(arena.pid, signal.SIGKILL)
                arena.wait(10)


def _wait_for(predicate, seconds: float, what: str, log: Path):
    deadline = time.monotonic() + seconds
    while not (found := predicate()):
        assert time.monotonic() < deadline, f"{what} not within {seconds} s\n{log.read_text()[-4000:]}"
        time.sleep(0.5)
    return found


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=5).status_code == 200
    except requests.ConnectionError:
        return False
