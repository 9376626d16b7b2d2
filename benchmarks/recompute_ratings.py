"""How long ``recompute_ratings`` takes on a large history (target: 1,000,000 games in 30 s on PostgreSQL).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_bench python3 benchmarks/recompute_ratings.py --games 1000000
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/arena_bench python3 benchmarks/recompute_ratings.py --quick

It migrates the database named by DATABASE_URL, fills it with GAMES rated games between BOTS bots
(written with COPY, their rating changes computed by the same replay), then times the recompute,
which must find the stored table reproduced. The database is emptied first: never point it at real data.
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def copy_rows(cursor, table: str, columns: list[str], rows) -> None:
    buffer = io.StringIO()
    for row in rows:
        buffer.write("\t".join("\\N" if v is None else str(v) for v in row) + "\n")
    buffer.seek(0)
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        while chunk := buffer.read(1 << 20):
            copy.write(chunk)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="the smallest run (400 games, 8 bots): that it runs, "
                        "not its figures (tests/test_benchmarks.py)")
    args = parser.parse_args()
    if args.quick:
        args.games, args.bots = 400, 8

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from ratings.models import Rating
    from ratings.services import replay, rules_from_settings
    from tournaments.models import Bot, BotVersion, Match
    from tournaments.services import create_player
    from tournaments.services.ratings import recompute_ratings

    if connection.vendor != "postgresql":
        sys.exit("set DATABASE_URL to a scratch PostgreSQL database")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    owner = create_player("bench", None)
    bots = [Bot.objects.create(owner=owner, game="tafl9", name=f"b{i}") for i in range(args.bots)]
    versions = [BotVersion.objects.create(bot=b, number=1, file="x", filename="x.py", kind="py", sha256="0" * 64,
                                          size=1, status="ready") for b in bots]
    rng = random.Random(1)
    now = timezone.now().isoformat()
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('tournaments_match', 'id'))")
        first_match = cursor.fetchone()[0] + 1
        cursor.execute("SELECT nextval(pg_get_serial_sequence('tournaments_game', 'id'))")
        first_game = cursor.fetchone()[0] + 1
        matches, games, game_rows = [], [], []
        for m in range(args.games // 2):
            a, b = rng.sample(versions, 2)
            mid = first_match + m
            matches.append(
                (mid, "tafl9", a.pk, b.pk, "true", Match.Priority.LADDER.value, "move:1000", 2, "finished", 1, 1,
                 now, now, 0, "", "", "")
            )
            for n, (white, black) in enumerate(((a, b), (b, a)), start=1):
                gid = first_game + len(games)
                winner = rng.choice(("white", "black", "none"))
                games.append((gid, mid, n, white.pk, black.pk, "{}", winner, "escape", 0, 0, now))
                game_rows.append((gid, "tafl9", white.bot_id, black.bot_id, winner))
        copy_rows(cursor, "tournaments_match",
                  ["id", "game", "version_a_id", "version_b_id", "rated", "priority", "time_control", "games_per_match",
                   "status", "score_a", "score_b", "created_at", "finished_at", "attempts", "ruleset", "worker_id",
                   "failure_reason"], matches)
        copy_rows(cursor, "tournaments_game",
                  ["id", "match_id", "number", "white_id", "black_id", "record", "winner", "reason", "plies",
                   "duration", "created_at"], games)
        cursor.execute("SELECT setval(pg_get_serial_sequence('tournaments_match', 'id'), %s)",
                       [first_match + len(matches)])
        cursor.execute("SELECT setval(pg_get_serial_sequence('tournaments_game', 'id'), %s)",
                       [first_game + len(games)])
        table, changes, _ = replay(game_rows, rules_from_settings())
        copy_rows(cursor, "ratings_ratingchange",
                  ["bot_id", "played_id", "before", "after", "delta", "k", "score", "created_at"],
                  ((bot, played, repr(v[0]), repr(v[1]), repr(v[1] - v[0]), v[2], v[3], now)
                   for (bot, played), v in changes.items()))
    Rating.objects.bulk_create([Rating(bot_id=bot, game=game, elo=s.elo, games=s.games, wins=s.wins,
                                       draws=s.draws, losses=s.losses) for (bot, game), s in table.items()])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"filled {len(games)} games, {len(changes)} rating changes in {time.perf_counter() - started:.1f} s")

    for history in (False, True):
        started = time.perf_counter()
        report = recompute_ratings(history=history)
        seconds = time.perf_counter() - started
        print(f"recompute_ratings(history={history}): {report.games} games in {seconds:.1f} s; "
              f"reproduced={report.reproduced}")
        if not report.reproduced:
            print(report)
            sys.exit(1)


if __name__ == "__main__":
    main()
