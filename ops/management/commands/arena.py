"""``manage.py arena``: the whole service on one machine (migrate, seed, the web server, two Celery workers
and beat as child processes), stopped cleanly on Ctrl-C or SIGTERM."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connection
from django.db.models import Q

from runner.sandbox import sweep_workdirs
from tournaments.models import Match, Tournament
from tournaments.services import matches as match_services
from workers.dispatching import dispatch_queued

STOP_GRACE_S = 20
WORKER_NAMES = ("arena", "control")  # the -n of the two workers: the worker ids of the matches they hold


class Command(BaseCommand):
    help = "Migrate, seed, and run the web server, one Celery worker and beat until Ctrl-C."

    def add_arguments(self, parser):
        parser.add_argument("--port", type=int, default=8000, help="web server port on 127.0.0.1 (default 8000)")
        parser.add_argument("--gunicorn", action="store_true", help="serve with gunicorn instead of runserver")
        parser.add_argument("--no-seed", action="store_true", help="skip `manage.py seed`")
        parser.add_argument("--trusted-sandbox", action="store_true",
                            help="run the (trusted) reference bots without bubblewrap, in the seed and the worker")
        parser.add_argument("--exit-after-demo", action="store_true",
                            help="play the demo tournaments to the end, then stop everything and exit 0")
        parser.add_argument("--demo-timeout", type=float, default=1800.0,
                            help="seconds --exit-after-demo waits before giving up with exit code 1")

    def handle(self, *args, **options):
        port = options["port"]
        if not 1 <= port <= 65535:
            raise CommandError(f"--port must be from 1 to 65535, got {port}")
        # One person's own laptop: its worker plays the demo's rated games even where it cannot put each bot in
        # cgroups of its own (not root); the dashboard still says so. A shared arena keeps the rule on.
        env = {"ARENA_RATED_NEEDS_ISOLATION": "0", **os.environ, "PYTHONUNBUFFERED": "1"}
        if options["trusted_sandbox"]:
            env["ARENA_SANDBOX_TRUSTED"] = "1"
        self.stdout.write("== migrate")
        call_command("migrate", interactive=False, verbosity=0)
        if not options["no_seed"]:
            self.stdout.write("== seed")
            call_command("seed", trusted_sandbox=options["trusted_sandbox"], stdout=self.stdout)
        dispatch_queued()  # the demo's matches get their wake-ups now, not at beat's first round
        connection.close()
        sweep_workdirs()  # bot folders an earlier run left: not this run's to report at its stop
        children = Children(self.stdout, env)
        stopping = {"signal": None}

        def on_signal(signum, frame):
            stopping["signal"] = signum

        signal.signal(signal.SIGINT, on_signal)
        signal.signal(signal.SIGTERM, on_signal)
        try:
            children.start("web", web_command(port, options["gunicorn"]))
            children.start("worker", [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork",
                                      "--concurrency", "1", "-n", f"{WORKER_NAMES[0]}@%h", "-X", "arena.hooks",
                                      "--loglevel", "INFO"])
            children.start("control", [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork",
                                       "--concurrency", "1", "-n", f"{WORKER_NAMES[1]}@%h",
                                       "-Q", "arena.control,arena.hooks", "--loglevel", "INFO"])
            children.start("beat", [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
                                    "--schedule", str(Path(settings.VAR_DIR) / "celerybeat-schedule")])
            self.print_urls(port, settings.CELERY_BROKER_URL)
            code = self.supervise(children, stopping, options)
        finally:
            forced = children.stop_all()
            forced += clean_up_after_workers()
        if code:
            raise CommandError("stopped: " + {1: "a child process died or the demo timed out"}.get(code, str(code)))
        if forced:
            raise CommandError("stopped, not cleanly: " + "; ".join(forced))
        self.stdout.write("arena: stopped cleanly")

    def print_urls(self, port: int, broker: str) -> None:
        base = f"http://127.0.0.1:{port}"
        self.stdout.write(f"\nArena running (broker {broker.split('@')[-1]}):")
        self.stdout.write(f"  the site:  {base}/   (leaderboards, bots, games with their replays)")
        self.stdout.write(f"  API docs:  {base}/api/docs/")
        self.stdout.write(f"  admin:     {base}/admin/   (demo login: admin / admin; dashboard at /admin/dashboard/)")
        self.stdout.write("  Ctrl-C stops the web server, the workers and beat.\n")

    def supervise(self, children: Children, stopping: dict, options) -> int:
        started = time.monotonic()
        last_report = 0.0
        ended: set[str] = set()
        while stopping["signal"] is None:
            dead = children.dead()
            if dead:
                self.stderr.write(f"arena: {dead} exited unexpectedly; stopping")
                return 1
            if options["exit_after_demo"]:
                for name in sorted(set(ended_tournaments()) - ended):
                    self.stdout.write(f"demo: {name!r} ended after {time.monotonic() - started:.0f} s")
                    ended.add(name)
                done, progress = demo_progress()
                if time.monotonic() - last_report > 10:
                    self.stdout.write(f"demo: {progress}")
                    last_report = time.monotonic()
                if done:
                    self.stdout.write(f"demo finished: {progress}")
                    return 0
                if time.monotonic() - started > options["demo_timeout"]:
                    self.stderr.write(f"arena: demo not finished after {options['demo_timeout']:.0f}s: {progress}")
                    return 1
            time.sleep(1)
        self.stdout.write(f"arena: signal {stopping['signal']}, stopping children")
        return 0


def clean_up_after_workers() -> list[str]:
    """Once every child is gone: the matches our workers still held go back to the queue (nobody plays them any
    more; the attempt is not the match's failure) and the bot folders left behind are removed. What was done, one
    phrase each; nothing after a clean stop."""
    done = []
    host = socket.gethostname()
    held = Q()
    for name in WORKER_NAMES:
        held |= Q(worker_id__startswith=f"{name}@{host}:")
    try:
        for match_id, token in Match.objects.filter(held, status=Match.Status.RUNNING).values_list("pk",
                                                                                                   "lease_token"):
            if match_services.requeue_match(match_id, token, "its worker was killed at the arena's stop",
                                            counted=False):
                done.append(f"match {match_id} was left running: requeued")
    finally:
        connection.close()
    swept = sweep_workdirs()
    if swept:
        done.append(f"{swept} bot folder(s) were left behind: removed")
    return done


def web_command(port: int, gunicorn: bool) -> list[str]:
    if gunicorn:
        return [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
                "--workers", "2"]
    return [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]


def ended_tournaments() -> list[str]:
    try:
        return list(Tournament.objects.filter(status__in=[Tournament.Status.FINISHED, Tournament.Status.CANCELLED])
                    .values_list("name", flat=True))
    finally:
        connection.close()


def demo_progress() -> tuple[bool, str]:
    """Whether every demo tournament has ended, and a one-line summary."""
    try:
        open_tournaments = Tournament.objects.filter(status__in=[Tournament.Status.DRAFT, Tournament.Status.RUNNING])
        running = open_tournaments.count()
        matches = Match.objects.filter(tournament__isnull=False)
        finished = matches.filter(status__in=[Match.Status.FINISHED, Match.Status.FAILED]).count()
        total = matches.count()
        ever = Tournament.objects.count()
    finally:
        connection.close()
    return (ever > 0 and running == 0), f"{finished}/{total} tournament matches done, {running} tournaments open"


class Children:
    """Child processes, each in its own session so that a terminal's Ctrl-C reaches only us."""

    def __init__(self, out, env):
        self.out, self.env = out, env
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, name: str, argv: list[str]) -> None:
        self.procs[name] = subprocess.Popen(argv, cwd=settings.BASE_DIR, env=self.env, start_new_session=True)
        self.out.write(f"started {name} (pid {self.procs[name].pid})")

    def dead(self) -> str | None:
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                return f"{name} (exit code {proc.returncode})"
        return None

    def stop_all(self, grace: float = STOP_GRACE_S) -> list[str]:
        """SIGTERM to each child's main process, then ``grace`` seconds for all of them to end by themselves (a
        worker gives its match back, ``workers.playing``). A child still running then is killed with its whole
        process group, and so is anything left in the group of one that ended. What had to be killed, one phrase
        each, also written out as it happens: nothing after a clean stop."""
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        deadline = time.monotonic() + grace
        killed = []
        for name, proc in self.procs.items():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
                stopped = True
            except subprocess.TimeoutExpired:
                stopped = False
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # leftovers: pool processes, a build
            except ProcessLookupError:  # the group is empty: the child and all it started have ended
                left = False
            else:
                left = True
            proc.wait(10)
            if not stopped:
                killed.append(f"killed {name} (pid {proc.pid}): still running {grace:.0f} s after SIGTERM")
            elif left:
                killed.append(f"killed what {name} (pid {proc.pid}) left running in its process group")
            else:
                continue
            self.out.write(f"arena: {killed[-1]}")
        return killed
