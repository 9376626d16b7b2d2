"""Server time of the site's pages over the large arena of ``benchmarks/api_latency.py`` (PostgreSQL).

    python3 benchmarks/web.py                 # 1,000 bots, 1,000,000 games (loads once, reuses after)
    python3 benchmarks/web.py --games 20000 --database arena_bench_web_small   # a quick run

Times the home, leaderboard, bot and game pages through the full Django stack (middleware, views, templates)
against a bare Django view rendering a constant template, in the same run. "warm" rows are what visitors get
most of the time, the page kept rendered in the cache (``web.pagecache``); "cold" rows empty the cache before
each request, so they time the queries and the templates; "player" rows are a logged-in player's, always built.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import api_latency as api_bench  # noqa: E402 - the data set and its loader are the API benchmark's

urlpatterns: list = []


def build_urlconf() -> None:
    from django.shortcuts import render
    from django.urls import include, path

    def bare(request):
        return render(request, "web/bench_constant.html", {"title": "constant"})

    urlpatterns[:] = [path("bare/", bare), path("api/", include("api.urls")), path("", include("web.urls"))]


def write_constant_template() -> None:
    """The bare view's template: the site's base page with a constant body (same layout, no data)."""
    from django.conf import settings

    folder = Path(settings.VAR_DIR) / "bench-templates" / "web"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "bench_constant.html").write_text(
        '{% extends "web/base.html" %}{% block content %}<h1>{{ title }}</h1><p>A constant page.</p>{% endblock %}')
    settings.TEMPLATES[0]["DIRS"] = [folder.parent, *settings.TEMPLATES[0]["DIRS"]]


def measure(args) -> None:
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import override_settings

    from ratings.models import Rating
    from tournaments.models import Bot, Game

    call_command("collectstatic", interactive=False, verbosity=0)  # DEBUG off: the hashed files' manifest
    write_constant_template()
    build_urlconf()
    rng = random.Random(args.seed + 2)
    busiest = Rating.objects.filter(game="tafl9").order_by("-games").values_list("bot_id", flat=True).first()
    bot_id = busiest or Bot.objects.order_by("id").values_list("id", flat=True).first()
    last_game = Game.objects.order_by("-id").values_list("id", flat=True).first()
    game_id = rng.randint(max(1, last_game // 2), last_game)
    pages = [("home", "/"), ("leaderboard tafl9", "/leaderboard/tafl9/"), ("bot page", f"/bots/{bot_id}/"),
             ("game page", f"/games/{game_id}/")]
    visitor, player = Client(), Client()
    player.force_login(get_user_model().objects.order_by("id").first())
    with override_settings(ROOT_URLCONF=__name__, DEBUG=False):
        constant = api_bench.time_endpoint(visitor, "/bare/", args.requests)
        rows = []
        for label, url in pages:
            rows.append((f"{label}, warm", url, *api_bench.time_endpoint(visitor, url, args.requests)))
            rows.append((f"{label}, cold", url, *api_bench.time_endpoint(visitor, url, args.requests, cache.clear)))
            rows.append((f"{label}, player", url, *api_bench.time_endpoint(player, url, args.requests)))
    print(f"\nserver time over {args.requests} requests each (ms), through django.test.Client; 'const' is a bare "
          f"Django view rendering a constant template on the site's base page (p50 {constant[0]:.2f}, "
          f"p95 {constant[1]:.2f})")
    print(f"  {'page':28} {'p50':>7} {'p95':>7} {'p50/const':>9} {'p95/const':>9}  url")
    for label, url, p50, p95 in rows:
        print(f"  {label:28} {p50:7.2f} {p95:7.2f} {p50 / constant[0]:9.2f} {p95 / constant[1]:9.2f}  {url}")


def main(argv=None) -> None:
    args = api_bench.parse_args(argv)
    api_bench.prepare_database(args)
    api_bench.setup_django(args)
    from tournaments.models import Game

    loaded = Game.objects.count()
    if loaded != args.games - args.games % 2:
        if loaded:
            raise SystemExit(f"{args.database} holds {loaded} games, not {args.games}: run with --reload")
        print(f"loading {args.bots} bots and {args.games} games into {args.database} ...", flush=True)
        api_bench.load(args)
        from django.db import connection

        from tournaments.services.ratings import recompute_ratings

        recompute_ratings(history=True)  # the ratings and every change (the bot page's chart)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    else:
        print(f"{args.database} already holds {loaded} games; reusing them (--reload to load again)")
    measure(args)


if __name__ == "__main__":
    main()
