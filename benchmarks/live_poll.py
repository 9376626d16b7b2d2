"""What one poll of the live viewer costs (``web.views.match_live_json``), and one ply published by the worker
(``play.live.publish``, the quick start's files), in a throwaway SQLite arena.

    python3 benchmarks/live_poll.py                  # a random shatra game of up to 300 plies
    python3 benchmarks/live_poll.py --game tafl9 --plies 60

Times, through the full Django stack, polls of a game in progress (replayed through the referee each time, from
the live cache) and of a finished game (replayed once from its stored record, then kept), against
``web.boards.replay`` of the same record called directly.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(call, repeat: int) -> float:
    """The median milliseconds of ``call()``."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="shatra")
    parser.add_argument("--plies", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--quick", action="store_true",  # tests/test_benchmarks.py runs it so
                        help="the smallest run (20 plies, 3 polls each): that it runs, not its figures")
    args = parser.parse_args()
    if args.quick:
        args.plies, args.repeat = 20, 3
    var = tempfile.mkdtemp(prefix="arena-live-bench-")
    os.environ.update(ARENA_VAR_DIR=var, DATABASE_URL=f"sqlite:///{var}/bench.sqlite3", DEBUG="1",
                      DJANGO_SETTINGS_MODULE="config.settings", THROTTLE_LIVE="1000000/minute")
    os.environ.pop("CACHE_URL", None)
    import django

    django.setup()
    from django.core.management import call_command
    from django.test import Client

    call_command("migrate", verbosity=0)
    from engines import get_game
    from engines.record import record_of_play
    from play import live
    from tests.api.conftest import make_bot, ready_version
    from tournaments.models import Game
    from tournaments.services import claim_match, create_match, create_player
    from web import boards

    rng = random.Random(18)
    position, actions = get_game(args.game).initial(), []
    while len(actions) < args.plies and position.outcome() is None:
        action = rng.choice(position.legal_moves())
        actions.append(action)
        position = position.play(action)
    record = record_of_play(get_game(args.game).initial(), actions)
    a = ready_version(make_bot(create_player("ada", "lovelace-1815"), "a", game=args.game))
    b = ready_version(make_bot(create_player("grace", "hopper-1906"), "b", game=args.game))
    match = create_match(a, b, games=2, rated=False, time_control="move:200")
    claim_match(match.pk, "bench")
    in_progress = {key: value for key, value in record.items() if key not in ("winner", "reason")}
    live.publish(match.pk, 2, in_progress)
    Game.objects.create(match=match, number=1, white=a, black=b, record=record, winner=record.get("winner", "none"),
                        reason=record.get("reason", "bench"), plies=len(actions), duration=1.0)
    client = Client()

    def poll(number: int, since: int | None = None):
        url = f"/matches/{match.pk}/live/{number}.json" + ("" if since is None else f"?since={since}")
        response = client.get(url)
        assert response.status_code == 200, response.content

    print(f"{args.game} game of {len(actions)} plies, median of {args.repeat} (ms)")
    published = [(lambda plies: lambda: live.publish(match.pk, 2, {**in_progress, "actions": actions[:plies],
                                                                   "plies": plies}))(n) for n in range(len(actions))]
    spent = sorted(timed(publish, 1) for publish in published)  # each ply once, as the worker publishes them
    print(f"  publish a ply (worker side), median {statistics.median(spent):8.2f}  worst {spent[-1]:.2f}")
    print(f"  web.boards.replay directly          {timed(lambda: boards.replay(record), args.repeat):8.2f}")
    print(f"  poll, game in progress (whole)      {timed(lambda: poll(2), args.repeat):8.2f}")
    print(f"  poll, game in progress (?since=N-1) {timed(lambda: poll(2, len(actions) - 1), args.repeat):8.2f}")
    poll(1)  # the first poll of a finished game replays it and keeps the result
    print(f"  poll, finished game (whole, kept)   {timed(lambda: poll(1), args.repeat):8.2f}")
    print(f"  poll, finished game (?since=N-1)    {timed(lambda: poll(1, len(actions) - 1), args.repeat):8.2f}")


if __name__ == "__main__":
    main()
