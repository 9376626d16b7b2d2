"""API latency and rating recompute over a large arena, in PostgreSQL.

    python3 benchmarks/api_latency.py                 # 1,000 bots, 1,000,000 games (loads once, reuses after)
    python3 benchmarks/api_latency.py --games 20000   # a quick run
    python3 benchmarks/api_latency.py --reload        # drop the bench database and load again
    python3 benchmarks/api_latency.py --quick         # the smallest run, loaded afresh into arena_bench_quick
    python3 benchmarks/api_latency.py --no-recompute --cache-url redis://127.0.0.1:6379/14   # the cache on Redis

Loads players, bots, versions, finished rated matches (two games each) and their games with COPY into
a separate database (default ``arena_bench_api`` on 127.0.0.1:5432, user postgres), builds the ratings
with ``recompute_ratings``, then times each endpoint through the full Django stack (middleware, DRF,
serializers) against two bare DRF ``APIView``s measured in the same run: one returning a constant, and one per
endpoint fetching the same rows with the same queries but none of the API's machinery. Public pages are kept
rendered in the cache (``api.public``): the plain rows are hits, the "cache cold" rows empty the
cache before each request, so they time the queries, serializers and rendering too.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAME_IDS = ("tafl9", "fidchell-1", "fidchell-2", "shatra")
REASONS = {"tafl9": ["escape", "king-captured", "timeout"], "fidchell-1": ["path", "captures", "timeout"],
           "fidchell-2": ["path", "captures", "crash"], "shatra": ["checkmate", "timeout", "illegal-move"]}
SQUARES = [f"{c}{r}" for c in "ABCDEFGHI" for r in range(1, 10)]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1_000_000, help="games to load (two per match)")
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--requests", type=int, default=200, help="timed requests per endpoint")
    parser.add_argument("--database", default="arena_bench_api",
                        help="a database of its own (other benchmarks use arena_bench)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--reload", action="store_true", help="drop and load the database again")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-recompute", action="store_true", help="only the latencies (ratings already built)")
    parser.add_argument("--cache-url", default="", help="the cache a deployment sets as CACHE_URL, e.g. "
                        "redis://127.0.0.1:6379/14 (default: this process's memory)")
    parser.add_argument("--quick", action="store_true", help="the smallest run, loaded afresh (400 games, 8 bots, "
                        "10 requests): that it runs, not its figures (tests/test_benchmarks.py)")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.bots, args.players, args.requests, args.reload = 400, 8, 4, 10, True
        if args.database == parser.get_default("database"):  # never drop the large data set for a quick run
            args.database = "arena_bench_quick"
    if args.games < 2 or args.bots < 8 or args.players < 1 or args.requests < 10:
        parser.error("need --games >= 2, --bots >= 8, --players >= 1, --requests >= 10")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        parser.error("the benchmark only talks to a database on loopback")
    return args


def prepare_database(args) -> None:
    import psycopg

    with psycopg.connect(f"host={args.host} user=postgres dbname=postgres", autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [args.database]).fetchone()
        if exists and args.reload:
            conn.execute(f'DROP DATABASE "{args.database}" WITH (FORCE)')
            exists = None
        if not exists:
            conn.execute(f'CREATE DATABASE "{args.database}"')


def setup_django(args) -> None:
    os.environ["DATABASE_URL"] = f"postgres://postgres@{args.host}:5432/{args.database}"
    os.environ["DEBUG"] = "0"  # no query log, production templates and error pages
    os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-0123456789abcdef")
    os.environ["ALLOWED_HOSTS"] = "testserver"
    os.environ.setdefault("SECURE_SSL_REDIRECT", "0")  # the test client speaks plain HTTP, as behind a TLS proxy
    if args.cache_url:
        os.environ["CACHE_URL"] = args.cache_url
    os.environ.setdefault("DATABASE_CONN_MAX_AGE", "600")  # persistent connections, as a deployment runs
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def copy_rows(cursor, table: str, columns: list[str], lines) -> None:
    """COPY text-format lines (already tab-separated and escaped) in large chunks."""
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        buffer = io.StringIO()
        for n, line in enumerate(lines, 1):
            buffer.write(line)
            if n % 20000 == 0:
                copy.write(buffer.getvalue())
                buffer = io.StringIO()
        copy.write(buffer.getvalue())


def ts(moment: datetime) -> str:
    return moment.isoformat()


def fake_record(rng, game_id: str, white: str, black: str, winner: str, reason: str, plies: int) -> str:
    actions = [f"{rng.choice(SQUARES)}-{rng.choice(SQUARES)}" for _ in range(plies)]
    record = {"game": game_id, "ruleset": f"{game_id}/1", "settings": {}, "initial": "start", "actions": actions,
              "winner": winner, "reason": reason, "plies": plies, "white": white, "black": black,
              "tc": "move:1000"}
    return json.dumps(record, separators=(",", ":")).replace("\\", "\\\\")


def load(args) -> None:
    from django.contrib.auth.hashers import make_password
    from django.db import connection

    rng = random.Random(args.seed)
    now = datetime.now(UTC).replace(microsecond=0)
    start = now - timedelta(days=365)
    password = make_password(None)
    matches = args.games // 2
    step = (now - start) / max(matches, 1)
    with connection.cursor() as django_cursor:
        cursor = django_cursor.cursor
        t0 = time.perf_counter()
        copy_rows(cursor, "auth_user", ["id", "password", "is_superuser", "username", "first_name", "last_name",
                                        "email", "is_staff", "is_active", "date_joined"],
                  (f"{i}\t{password}\tf\tplayer{i}\t\t\tplayer{i}@example.org\tf\tt\t{ts(start)}\n"
                   for i in range(1, args.players + 1)))
        bot_game = {}
        bot_lines = []
        for bot in range(1, args.bots + 1):
            game_id = GAME_IDS[bot % len(GAME_IDS)]
            bot_game[bot] = game_id
            owner = rng.randint(1, args.players)
            bot_lines.append(f"{bot}\t{owner}\t{game_id}\tbot-{bot}\tbenchmark bot {bot}\tt\tf\t{ts(start)}\n")
        copy_rows(cursor, "tournaments_bot",
                  ["id", "owner_id", "game", "name", "description", "is_public", "open_to_tournaments", "created_at"],
                  bot_lines)
        # Version id == bot id: one ready version per bot.
        copy_rows(cursor, "tournaments_botversion",
                  ["id", "bot_id", "number", "file", "filename", "kind", "sha256", "size", "uploaded_at", "status",
                   "reject_reason", "checked_at", "is_disabled"],
                  (f"{b}\t{b}\t1\tbots/{b}/1/bot.py\tbot.py\tpy\t{rng.getrandbits(256):064x}\t1234\t{ts(start)}\t"
                   f"ready\t\t{ts(start)}\tf\n" for b in range(1, args.bots + 1)))
        by_game = {g: [b for b in bot_game if bot_game[b] == g] for g in GAME_IDS}
        print(f"  players, bots, versions: {time.perf_counter() - t0:.1f} s", flush=True)

        game_row = 0
        t0 = time.perf_counter()
        plan = []
        for match_id in range(1, matches + 1):
            game_id = GAME_IDS[match_id % len(GAME_IDS)]
            a, b = rng.sample(by_game[game_id], 2)
            created = start + step * match_id
            plan.append((match_id, game_id, a, b, created))

        def match_rows():
            for match_id, game_id, a, b, created in plan:
                finished = created + timedelta(seconds=90)
                yield (f"{match_id}\t{game_id}\t{a}\t{b}\t\\N\t\\N\tt\tmove:1000\t2\t{game_id}/1\tfinished\t1\t1\t"
                       f"{ts(created)}\t{ts(created)}\t{ts(finished)}\tworker-{match_id % 7}\t\\N\t{ts(finished)}\t"
                       f"\\N\t1\t\t10\n")

        copy_rows(cursor, "tournaments_match",
                  ["id", "game", "version_a_id", "version_b_id", "tournament_id", "round", "rated", "time_control",
                   "games_per_match", "ruleset", "status", "score_a", "score_b", "created_at", "started_at",
                   "finished_at", "worker_id", "lease_token", "heartbeat_at", "lease_expires_at", "attempts",
                   "failure_reason", "priority"], match_rows())
        print(f"  {matches} matches: {time.perf_counter() - t0:.1f} s", flush=True)

        t0 = time.perf_counter()

        def game_rows():
            nonlocal game_row
            for match_id, game_id, a, b, created in plan:
                for number, (white, black) in ((1, (a, b)), (2, (b, a))):
                    game_row += 1
                    winner = rng.choice(("white", "black", "white", "black", "none"))
                    reason = "draw" if winner == "none" else rng.choice(REASONS[game_id])
                    plies = rng.randint(10, 40)
                    record = fake_record(rng, game_id, f"bot-{white}", f"bot-{black}", winner, reason, plies)
                    moment = created + timedelta(seconds=45 * number)
                    yield (f"{game_row}\t{match_id}\t{number}\t{white}\t{black}\t{record}\t{winner}\t{reason}\t"
                           f"{plies}\t{rng.uniform(5, 60):.2f}\t{ts(moment)}\n")

        copy_rows(cursor, "tournaments_game",
                  ["id", "match_id", "number", "white_id", "black_id", "record", "winner", "reason", "plies",
                   "duration", "created_at"], game_rows())
        print(f"  {game_row} games: {time.perf_counter() - t0:.1f} s", flush=True)
        for table in ("auth_user", "tournaments_bot", "tournaments_botversion", "tournaments_match",
                      "tournaments_game"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                           f"(SELECT COALESCE(MAX(id), 1) FROM {table}))")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def time_endpoint(client, url: str, count: int, before=None) -> tuple[float, float]:
    """p50 and p95 of ``count`` GETs; ``before`` (untimed) runs ahead of each, e.g. to empty the cache."""
    for _ in range(5):  # warm caches and connections
        response = client.get(url)
        if response.status_code != 200:
            raise SystemExit(f"GET {url} answered {response.status_code}: {response.content[:300]!r}")
    samples = []
    for _ in range(count):
        if before is not None:
            before()
        t0 = time.perf_counter()
        client.get(url)
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples), percentile(samples, 0.95)


# The URLconf the benchmark serves: the real API plus the bare endpoint to compare with.
urlpatterns: list = []


def build_urlconf() -> None:
    """The real API, a bare endpoint answering a constant, and for each timed endpoint a bare ``APIView``
    that runs the same queries (same rows, same joins, same plan) and returns them as ``.values()`` dicts:
    what is left between the two is the API's own machinery (serializers, permissions, filters, pagination)."""
    from django.contrib.auth.models import AnonymousUser
    from django.db.models import F, Q
    from django.urls import include, path
    from rest_framework.permissions import AllowAny
    from rest_framework.response import Response
    from rest_framework.views import APIView

    from api import rows, selectors
    from ratings.models import Rating, RatingChange
    from tournaments.models import BotVersion

    anonymous = AnonymousUser()

    def bare(fetch):
        class Bare(APIView):
            permission_classes = [AllowAny]

            def get(self, request, **kwargs):
                return Response(fetch(**kwargs))

        return Bare.as_view()

    def leaderboard(game):
        board = selectors.leaderboard_rows(game)  # the API's query (fitted ratings joined), as plain dicts
        return {"count": board.count(), "results": list(board[:50])}

    def bot_page(pk):
        bot = selectors.bots_visible_to(anonymous).filter(pk=pk).values(
            "id", "name", "game", "description", "is_public", "owner__username", "owner_id", "created_at").get()
        bot["versions"] = list(BotVersion.objects.filter(bot_id=pk).order_by("-number").values(
            "id", "bot_id", "number", "filename", "kind", "sha256", "size", "uploaded_at", "status",
            "checked_at", "is_disabled"))
        bot["ratings"] = list(Rating.objects.filter(bot_id=pk).values(
            "game", "elo", "games", "wins", "draws", "losses", "updated_at"))
        return bot

    def matches(bot=None):
        page = selectors.matches_visible_to(anonymous).order_by("-created_at", "-id")
        if bot is not None:
            ids = list(BotVersion.objects.filter(bot_id=bot).values_list("id", flat=True))
            page = page.filter(Q(version_a_id__in=ids) | Q(version_b_id__in=ids))
        return {"results": list(page.values(*rows.MATCH_COLUMNS)[:26])}

    def game_record(pk):
        return selectors.games_visible_to(anonymous, with_record=True).filter(pk=pk).values(
            *rows.GAME_COLUMNS, "record").get()

    def rating_history(pk):
        selectors.bots_visible_to(anonymous).filter(pk=pk).values("id").get()
        return {"results": list(RatingChange.objects.filter(bot_id=pk).annotate(match_id=F("played__match_id"))
                                .order_by("-played_id").values("id", "played_id", "match_id", "before", "after",
                                                               "delta", "k", "score", "created_at")[:101])}

    urlpatterns[:] = [
        path("api/", include("api.urls")),
        path("bare/", bare(lambda: {"ok": True})),
        path("bare/leaderboard/<str:game>/", bare(leaderboard)),
        path("bare/bots/<int:pk>/", bare(bot_page)),
        path("bare/matches/", bare(matches)),
        path("bare/matches/bot/<int:bot>/", bare(matches)),
        path("bare/games/<int:pk>/", bare(game_record)),
        path("bare/bots/<int:pk>/rating-history/", bare(rating_history)),
    ]


def measure(args) -> None:
    from django.core.cache import cache
    from django.test import Client
    from django.test.utils import override_settings

    from ratings.models import Rating
    from tournaments.models import Bot, Game

    build_urlconf()
    rng = random.Random(args.seed + 1)
    busiest = Rating.objects.filter(game="tafl9").order_by("-games").values_list("bot_id", flat=True).first()
    bot_id = busiest or Bot.objects.order_by("id").values_list("id", flat=True).first()
    last_game = Game.objects.order_by("-id").values_list("id", flat=True).first()
    game_id = rng.randint(max(1, last_game // 2), last_game)
    # (label, url, bare url with the same data, untimed step before each request)
    endpoints = [
        ("leaderboard tafl9", "/api/leaderboard/tafl9/", "/bare/leaderboard/tafl9/", None),
        ("leaderboard tafl9, cache cold", "/api/leaderboard/tafl9/", "/bare/leaderboard/tafl9/", cache.clear),
        ("bot page", f"/api/bots/{bot_id}/", f"/bare/bots/{bot_id}/", None),
        ("bot page, cache cold", f"/api/bots/{bot_id}/", f"/bare/bots/{bot_id}/", cache.clear),
        ("page of matches", "/api/matches/", "/bare/matches/", None),
        ("page of matches, cache cold", "/api/matches/", "/bare/matches/", cache.clear),
        ("page of one bot's matches", f"/api/matches/?bot={bot_id}", f"/bare/matches/bot/{bot_id}/", None),
        ("game record", f"/api/games/{game_id}/", f"/bare/games/{game_id}/", None),
        ("game record, cache cold", f"/api/games/{game_id}/", f"/bare/games/{game_id}/", cache.clear),
        ("game record as text", f"/api/games/{game_id}/record.txt", f"/bare/games/{game_id}/", None),
        ("rating history of a bot", f"/api/bots/{bot_id}/rating-history/", f"/bare/bots/{bot_id}/rating-history/",
         None),
    ]
    client = Client()
    results = []
    with override_settings(ROOT_URLCONF=__name__):
        constant = time_endpoint(client, "/bare/", args.requests)
        for label, url, bare_url, before in endpoints:
            same_data = time_endpoint(client, bare_url, args.requests)
            results.append((label, url, *time_endpoint(client, url, args.requests, before), *same_data))
    print(f"\nlatency over {args.requests} requests each (ms), through django.test.Client; 'const' is a bare "
          f"APIView returning a constant (p50 {constant[0]:.2f}, p95 {constant[1]:.2f}); 'same' is a bare APIView "
          "running the same queries and returning the rows as .values() dicts")
    print(f"  {'endpoint':30} {'p50':>7} {'p95':>7} {'same p50':>9} {'p50/const':>9} {'p95/const':>9} "
          f"{'p50/same':>9} {'p95/same':>9}  url")
    for label, url, p50, p95, same50, same95 in results:
        print(f"  {label:30} {p50:7.2f} {p95:7.2f} {same50:9.2f} {p50 / constant[0]:9.2f} {p95 / constant[1]:9.2f} "
              f"{p50 / same50:9.2f} {p95 / same95:9.2f}  {url}")


def main(argv=None) -> None:
    args = parse_args(argv)
    prepare_database(args)
    setup_django(args)
    from django.db import connection

    from tournaments.models import Game
    from tournaments.services.ratings import recompute_ratings

    loaded = Game.objects.count()
    if loaded != args.games - args.games % 2:
        if loaded:
            raise SystemExit(f"{args.database} holds {loaded} games, not {args.games}: run with --reload")
        print(f"loading {args.bots} bots and {args.games} games into {args.database} ...", flush=True)
        t0 = time.perf_counter()
        load(args)
        print(f"  load total: {time.perf_counter() - t0:.1f} s", flush=True)
    else:
        print(f"{args.database} already holds {loaded} games; reusing them (--reload to load again)")

    runs = [("recompute_ratings(history=True), first: writes every rating change", {"history": True}),
            ("recompute_ratings(), the ratings replay", {}),
            ("recompute_ratings(history=True), again: checks every change", {"history": True})]
    for label, options in [] if args.no_recompute else runs:
        t0 = time.perf_counter()
        report = recompute_ratings(**options)
        elapsed = time.perf_counter() - t0
        print(f"{label}: {elapsed:.1f} s over {report.games} rated games (changes created "
              f"{report.changes_created}, fixed {report.changes_fixed}; ratings created {report.ratings_created}, "
              f"changed {report.ratings_changed})", flush=True)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE ratings_rating")
            cursor.execute("ANALYZE ratings_ratingchange")
    measure(args)


if __name__ == "__main__":
    main()
