"""The live page in the quick start's arrangement, in a real browser: SQLite in a file, the embedded filesystem
broker, no Redis and no CACHE_URL, the web server (runserver) and a Celery worker in SEPARATE processes. The worker
plays a two-game match between slow bots; the browser on the live page sees the game advance ply by ply through
its Server-Sent Events, both bots' names from the first look, and then the match's second game."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import Site

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SLOW_MS = 250  # per move, so that a watcher polling every 100 ms sees the plies one by one

SEED = f"""
import io, zipfile
from django.core.files.uploadedfile import SimpleUploadedFile
from tournaments.models import BotVersion
from tournaments.services import create_bot, create_match, create_player, upload_version
from workers.dispatching import dispatch_queued

versions = []
for owner, name in (("ada", "slow-north"), ("grace", "slow-south")):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.write("tests/bots/flexbot.py", "flexbot.py")
        archive.writestr("bot.toml", 'run = "python3 flexbot.py slow:{SLOW_MS}"\\n')
    bot = create_bot(create_player(username=owner, password=owner + "-pass-1815"), "tafl9", name)
    version = upload_version(bot, SimpleUploadedFile("bot.zip", buffer.getvalue()))
    BotVersion.objects.filter(pk=version.pk).update(status="ready")
    versions.append(BotVersion.objects.get(pk=version.pk))
match = create_match(*versions, games=2, rated=False, time_control="move:5000")
dispatch_queued()  # its wake-up waits in the broker's directory for the worker, as `manage.py arena` sends it
print("MATCH", match.pk)
"""


class QuickStart:
    """The embedded stack in a temporary directory: migrate, seed one match, then runserver and a worker."""

    def __init__(self, directory: Path):
        from tests.workers.cluster import free_port

        self.dir, self.port = directory, free_port()
        self.env = {name: value for name, value in os.environ.items()
                    if name not in ("DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "CI_CELERY_EAGER")}
        self.env.update(DJANGO_SETTINGS_MODULE="config.settings", ARENA_VAR_DIR=str(directory / "var"),
                        MEDIA_ROOT=str(directory / "media"), ARENA_BOT_CACHE_DIR=str(directory / "bots"),
                        ARENA_SANDBOX_TRUSTED="1", ARENA_RATED_NEEDS_ISOLATION="0", PYTHONUNBUFFERED="1",
                        PYTHONPATH=str(ROOT))
        self.children: list[subprocess.Popen] = []

    def manage(self, *argv: str) -> str:
        done = subprocess.run([sys.executable, "manage.py", *argv], cwd=ROOT, env=self.env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        return done.stdout

    def start(self, name: str, argv: list[str]) -> None:
        log = open(self.dir / f"{name}.log", "ab")
        self.children.append(subprocess.Popen(argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                              start_new_session=True))

    def status(self, match_id: int) -> str:
        with sqlite3.connect(self.dir / "var" / "arena.sqlite3", timeout=30) as db:
            return db.execute("SELECT status FROM tournaments_match WHERE id = ?", (match_id,)).fetchone()[0]

    def listening(self) -> bool:
        """Whether the web server accepts connections yet (the worker may start the match before it does)."""
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
        except OSError:
            return False
        return True

    def logs(self) -> str:
        return "\n".join(path.read_text(errors="replace")[-3000:] for path in sorted(self.dir.glob("*.log")))

    def stop(self) -> None:
        for child in self.children:  # only the processes started here, each in its own session
            try:
                os.killpg(child.pid, signal.SIGTERM)
                child.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait(10)
            except ProcessLookupError:
                pass


def test_a_separate_workers_game_advances_live_and_the_page_moves_to_game_2(browser, tmp_path):
    stack = QuickStart(tmp_path)
    stack.manage("migrate", "--noinput", "-v", "0")
    match_id = int(stack.manage("shell", "-c", SEED).split("MATCH")[-1])
    stack.start("web", [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{stack.port}"])
    stack.start("worker", [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork",
                           "--concurrency", "1", "-n", "live@%h", "--without-gossip", "--without-mingle",
                           "--loglevel", "INFO"])
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    site = Site(context.new_page(), f"http://127.0.0.1:{stack.port}", "live-quick-start")
    requests = []
    site.page.on("request", lambda request: requests.append(request.url))
    try:
        deadline = time.monotonic() + 60
        while stack.status(match_id) != "running" or not stack.listening():
            assert time.monotonic() < deadline, "the worker never started the match, or the site\n" + stack.logs()
            time.sleep(0.2)
        site.open(f"/matches/{match_id}/live/")
        seen = watch(site.page, tmp_path / "var" / "live" / f"m{match_id}-g1.json", time.monotonic() + 240)
        site.check("live-game-2")
        errors = list(site.errors)
    finally:
        context.close()
        stack.stop()
    first = seen[0]
    assert (first["white"], first["black"]) == ("slow-north", "slow-south"), first  # from the first look
    game_1 = [look for look in seen if look["number"] == "1"]
    shown = sorted({look["max"] for look in game_1})
    assert len(shown) >= 5, (shown, stack.logs())  # ply after ply, not a jump to the end
    # Each ply the worker had published was on the page within a second.
    for look in game_1:
        caught_up = [later["t"] for later in game_1 if later["t"] >= look["t"] and later["max"] >= look["published"]]
        if look["t"] + 1.0 < game_1[-1]["t"]:
            assert caught_up and caught_up[0] - look["t"] <= 1.0, (look, game_1)
    second = next(look for look in seen if look["number"] == "2")
    assert (second["white"], second["black"]) == ("slow-south", "slow-north")  # colours swap in game 2
    assert any("/live/events" in url for url in requests)
    assert not [url for url in requests if url.endswith(".json") or ".json?" in url], "it polled: no stream"
    assert not errors, errors
    print(f"game 1 seen at {len(shown)} ply counts ({shown[0]}..{shown[-1]}), game 2 shown "
          f"{second['t'] - game_1[-1]['t']:.1f} s after game 1's last look")


def watch(page, published: Path, deadline: float) -> list[dict]:
    """What the page shows every 100 ms (and how many plies the worker had published then), until it shows game 2
    with a ply played in it."""
    script = """() => ({number: document.querySelector('[data-live-number]').textContent,
        white: document.querySelector('[data-live-white]').textContent,
        black: document.querySelector('[data-live-black]').textContent,
        max: Number(document.querySelector('[data-replay-slider]').max)})"""
    seen = []
    while True:
        try:
            actions = len(json.loads(published.read_bytes())["actions"])
        except FileNotFoundError:
            actions = 0
        look = {**page.evaluate(script), "t": time.monotonic(), "published": actions}
        seen.append(look)
        if look["number"] == "2" and look["max"] >= 1:
            return seen
        assert time.monotonic() < deadline, seen[-5:]
        page.wait_for_timeout(100)


@pytest.mark.django_db(transaction=True)
def test_where_the_stream_is_refused_the_page_polls_and_still_moves_on(site, player, other_player, monkeypatch):
    """A server that cannot hold a stream (503, as gunicorn's sync workers get): the page polls the JSON instead,
    follows the plies a publisher thread writes, and moves on to game 2 once game 1 is over and game 2 started."""
    import threading

    from django.conf import settings

    from play import live
    from tests.support import make_bot, ready_version
    from tests.web.test_live_events import game_so_far
    from tournaments.services import claim_match, create_match
    from web import streams

    monkeypatch.setattr(streams, "SLOTS", streams.Slots(0))
    match = create_match(ready_version(make_bot(player, "north")), ready_version(make_bot(other_player, "south")),
                         games=2, rated=False)
    claim_match(match.pk, "browser-test")
    live.publish(match.pk, 1, game_so_far(0))
    requests = []
    site.page.on("request", lambda request: requests.append(request.url))

    def worker():
        for plies in range(1, 9):
            time.sleep(0.4)
            live.publish(match.pk, 1, game_so_far(plies, over=plies == 8))
        time.sleep(1)
        for plies in range(0, 3):
            live.publish(match.pk, 2, game_so_far(plies, seed=3))
            time.sleep(0.4)

    publisher = threading.Thread(target=worker)
    site.open(f"/matches/{match.pk}/live/")
    publisher.start()
    try:
        seen = watch(site.page, Path(settings.ARENA["LIVE_DIR"]) / f"m{match.pk}-g1.json", time.monotonic() + 60)
    finally:
        publisher.join()
    assert len({look["max"] for look in seen if look["number"] == "1"}) >= 4
    assert (seen[-1]["white"], seen[-1]["black"]) == ("south", "north")
    assert any(url.endswith("/live/events?game=1&have=1") for url in requests)  # tried first
    assert any("/live/2.json" in url for url in requests)  # then polled, game 2 included
    site.forgive("503")
    site.forgive("404")  # game 2's JSON before it started
