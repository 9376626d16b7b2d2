"""Run inside the cluster's environment (its own database and Redis) by the worker tests and the benchmark.

    python tests/workers/harness.py seed --matches 200 [--delay 0.05] [--tc move:2000]
    python tests/workers/harness.py status | snapshot | replay
    python tests/workers/harness.py trickle --matches 40 [--interval 0.5] | timings <first_match_id>
    python tests/workers/harness.py bare <first_match_id> --matches N | in-process [--profile FILE] [--breakdown]
    python tests/workers/harness.py send <match_id> [--times 2]
    python tests/workers/harness.py forge
    python tests/workers/harness.py stale-report
    python tests/workers/harness.py burst --matches 50 --uploads 10 --seconds 40 [--late-names]
    python tests/workers/harness.py waits <first_match_id>
    python tests/workers/harness.py cut-off-report     (stops itself: see cut_off_report)
    python tests/workers/harness.py scavenge-locked [--hold 3]
    python tests/workers/harness.py late-report        (reports once told to on stdin)
    python tests/workers/harness.py contend | light | shares --since EPOCH --ids JSON   (benchmarks/fairness.py)
    python tests/workers/harness.py window --matches N [--times 30]   (benchmarks/claim_cost.py)
    python tests/workers/harness.py wakeups --kinds challenge,tournament,sprt,ladder --matches 20 [--api]

Each command prints one JSON object on its last line of stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import uuid
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402
from django.db import transaction  # noqa: E402
from django.db.models import Count, F  # noqa: E402

from ratings.models import Rating, RatingChange  # noqa: E402
from ratings.services import replay, rules_from_settings  # noqa: E402
from tests import support  # noqa: E402
from tournaments.models import BotVersion, Game, Match  # noqa: E402
from tournaments.selectors import rated_game_rows  # noqa: E402
from tournaments.services import create_bot, create_match, create_player, update_bot, upload_version  # noqa: E402

BOT_SOURCE = (Path(__file__).with_name("instant_bot.py")).read_text()


def ready_version(owner, name: str, delay: float) -> BotVersion:
    # Unique content per version: the bot cache is keyed by checksum, one file name per checksum.
    if "DELAY = 0.0" not in BOT_SOURCE:  # else every bot would answer at once, whatever it was asked to take
        raise RuntimeError("tests/workers/instant_bot.py no longer says DELAY = 0.0")
    source = BOT_SOURCE.replace("DELAY = 0.0", f"DELAY = {delay!r}") + f"# {name}\n"
    version = support.ready_version(create_bot(owner, "tafl9", name), f"{name}.py", source.encode())
    return BotVersion.objects.select_related("bot").get(pk=version.pk)


def seed(args) -> dict:
    tag = uuid.uuid4().hex[:6]
    owners = [create_player(f"owner{tag}{i}", None) for i in range(4)]
    versions = [ready_version(owners[i % 4], f"instant{tag}{i}", args.delay) for i in range(args.bots)]
    rng = random.Random(args.seed)
    ids = []
    for _ in range(args.matches):
        a, b = rng.sample(versions, 2)
        while a.bot.owner_id == b.bot.owner_id:  # two bots of one owner would play unrated
            a, b = rng.sample(versions, 2)
        ids.append(create_match(a, b, time_control=args.tc, games=args.games, rated=True).pk)
    return {"matches": ids}


def status(args) -> dict:
    statuses = dict(Counter(Match.objects.values_list("status", flat=True)))
    wrong = list(Match.objects.annotate(n=Count("games")).filter(n__gt=0).exclude(n=F("games_per_match"))
                 .values_list("pk", flat=True))
    finished_without_games = list(Match.objects.filter(status="finished", games__isnull=True)
                                  .values_list("pk", flat=True))
    return {
        "statuses": statuses,
        "games": Game.objects.count(),
        "rating_changes": RatingChange.objects.count(),
        "matches_with_wrong_game_count": wrong,
        "finished_without_games": finished_without_games,
        "attempts": dict(Counter(Match.objects.values_list("attempts", flat=True))),
        "failures": list(Match.objects.exclude(failure_reason="").values_list("pk", "status", "failure_reason")[:50]),
    }


def replay_check(args) -> dict:
    """Serial replay of every rated game in the order applied, compared with the stored ratings."""
    table, changes, count = replay(rated_game_rows(), rules_from_settings())
    stored = {(r.bot_id, r.game): (r.elo, r.games, r.wins, r.draws, r.losses) for r in Rating.objects.all()}
    replayed = {key: (s.elo, s.games, s.wins, s.draws, s.losses) for key, s in table.items()}
    differ = [str(key) for key in set(stored) | set(replayed)
              if key not in stored or key not in replayed
              or abs(stored[key][0] - replayed[key][0]) > 1e-6 or stored[key][1:] != replayed[key][1:]]
    return {"games": count, "bots": len(stored), "differ": differ,
            "total_rated_games": sum(v[1] for v in stored.values())}


def send(args) -> dict:
    from workers.tasks import run_match

    for _ in range(args.times):
        run_match.apply_async(args=[args.match_id])
    return {"sent": args.times}


def snapshot(args=None) -> dict:
    return {"matches": sorted(Match.objects.values_list("pk", "status", "attempts", "score_a", "score_b")),
            "games": Game.objects.count(), "rating_changes": RatingChange.objects.count(),
            "ratings": sorted(Rating.objects.values_list("bot_id", "elo"))}


def forge(args) -> dict:
    """Publish messages no honest producer sends: wrong serializer, broken body, bad ids, unknown task."""
    from config.celery import app

    finished = Match.objects.filter(status="finished").values_list("pk", flat=True).first()
    queue = app.conf.task_default_queue
    with app.producer_or_acquire() as producer:
        def publish(body, task="workers.run_match", serializer="json", content_type=None, args_=None):
            headers = {"lang": "py", "task": task, "id": str(uuid.uuid4()), "argsrepr": "", "kwargsrepr": ""}
            kwargs = dict(routing_key=queue, exchange="", headers=headers, declare=[app.amqp.queues[queue]])
            if content_type:
                producer.publish(body, content_type=content_type, content_encoding="binary", **kwargs)
            else:
                producer.publish(body, serializer=serializer, **kwargs)

        import pickle

        publish(pickle.dumps(((finished,), {}, {})), content_type="application/x-python-serialize")
        publish(b"{not json", content_type="application/json")
        publish([["1; DROP TABLE tournaments_match"], {}, {}])
        publish([[-5], {}, {}])
        publish([[10**30], {}, {}])
        publish([[True], {}, {}])
        publish([[999999999], {}, {}])
        publish([[finished, "extra"], {"lease_token": "forged"}, {}])
        publish([[finished], {}, {}], task="workers.evil")
        publish([[finished], {}, {}])  # a well-formed duplicate of a finished match
    return {"forged": 10, "finished_match": finished}


def stale_report(args) -> dict:
    """Reports without the current lease: for a finished match, and for a running one held by another lease."""
    from play.claimed import report
    from tournaments.services import claim_match, requeue_match
    from workers.playing import play_hinted

    finished = Match.objects.filter(status="finished").values_list("pk", flat=True).first()
    record = {"winner": "white", "reason": "resign", "plies": 3}
    outcomes = {"finished_match": report(finished, uuid.uuid4(), [record, record])}
    a, b = BotVersion.objects.filter(status="ready").order_by("pk")[:2]
    fresh = create_match(a, b, time_control="move:2000", games=2, rated=True)
    token = claim_match(fresh.pk, "harness")  # before any dispatcher sees it queued
    outcomes["running_match_wrong_token"] = report(fresh.pk, uuid.uuid4(), [record, record])
    outcomes["running_match_state"] = Match.objects.filter(pk=fresh.pk).values_list("status", flat=True).first()
    outcomes["running_match_games"] = Game.objects.filter(match_id=fresh.pk).count()
    requeue_match(fresh.pk, token, reason="harness done")
    outcomes["unknown_match"] = play_hinted(10**12, "harness")
    return outcomes


def cut_off_report(args) -> dict:
    """A worker about to report a match between two rated bots: it prints the bots, waits for a line on
    stdin, then claims a fresh match and reports it with ``finish_match``. The test holds the bots'
    rating rows locked meanwhile and stops this process (SIGSTOP) while ``finish_match`` waits for
    them: once they are free, it is a worker cut off inside its report, holding the match's row."""
    from ratings.services import lock_ratings
    from tournaments.services import claim_match, finish_match

    versions = list(BotVersion.objects.filter(status="ready").select_related("bot").order_by("pk")[:2])
    bots = [version.bot_id for version in versions]
    with transaction.atomic():
        lock_ratings("tafl9", bots)  # their rating rows exist, so there is something to lock
    print(json.dumps({"bots": bots}), flush=True)
    sys.stdin.readline()
    with transaction.atomic():  # claimed before anyone sees it queued
        match = create_match(*versions, time_control="move:2000", games=2, rated=True)
        token = claim_match(match.pk, "cut-off")
    record = {"winner": "white", "reason": "resign", "plies": 3}
    return {"match": match.pk, "report": finish_match(match.pk, token, [record, record]).value}


def scavenge_locked(args) -> dict:
    """The scavenger meets a match whose lease has run out while its worker holds the row, reporting
    late: the worker keeps it ``--hold`` seconds, then renews its lease (it is alive after all)."""
    import threading
    import time
    from datetime import timedelta

    from django.db import connection

    from tournaments.services import claim_match, heartbeat, requeue_expired_matches

    versions = list(BotVersion.objects.filter(status="ready").select_related("bot").order_by("pk")[:2])
    with transaction.atomic():  # claimed before anyone sees it queued
        match = create_match(*versions, time_control="move:2000", games=2, rated=True)
        token = claim_match(match.pk, "late-worker")
    # The scavenger looks from a moment past the lease's end. Running the lease out for real before the row
    # is held would hand the match to the cluster's own scavengers (every second), a race this test lost.
    later = Match.objects.values_list("lease_expires_at", flat=True).get(pk=match.pk) + timedelta(seconds=1)
    locked = threading.Event()

    def late_worker():
        try:
            with transaction.atomic():
                Match.objects.select_for_update().get(pk=match.pk)
                locked.set()
                time.sleep(args.hold)
                heartbeat(match.pk, token)
        finally:
            connection.close()

    worker = threading.Thread(target=late_worker)
    worker.start()
    locked.wait()
    started = time.monotonic()
    requeued = requeue_expired_matches(now=later)
    seconds = time.monotonic() - started
    worker.join()
    status = Match.objects.filter(pk=match.pk).values_list("status", flat=True).first()
    return {"match": match.pk, "requeued": match.pk in requeued, "seconds": seconds, "status": status}


def late_report(args) -> dict:
    """A worker that has played a match and beats its lease (a minute): it prints the match, waits for a
    line on stdin, then reports as a worker does (``play.claimed.report``)."""
    from datetime import timedelta

    from django.utils import timezone

    from play.claimed import report
    from tournaments.services import claim_match

    versions = list(BotVersion.objects.filter(status="ready").select_related("bot").order_by("pk")[:2])
    with transaction.atomic():  # claimed before anyone sees it queued
        match = create_match(*versions, time_control="move:2000", games=2, rated=True)
        token = claim_match(match.pk, "late-reporter")
        # state: time passes (a minute of the heartbeats a live worker sends while it waits to report)
        Match.objects.filter(pk=match.pk).update(lease_expires_at=timezone.now() + timedelta(seconds=60))
    print(json.dumps({"match": match.pk}), flush=True)
    sys.stdin.readline()
    record = {"winner": "black", "reason": "resign", "plies": 5}
    return {"match": match.pk, "report": report(match.pk, token, [record, record])}


def trickle(args) -> dict:
    """Create and send one match every ``--interval`` seconds, as a steady trickle of uploads would."""
    import time

    from workers.dispatching import send_match

    versions = list(BotVersion.objects.filter(status="ready").select_related("bot").order_by("pk"))
    rng = random.Random(args.seed)
    ids = []
    for _ in range(args.matches):
        a, b = rng.sample(versions, 2)
        while a.bot.owner_id == b.bot.owner_id:
            a, b = rng.sample(versions, 2)
        match = create_match(a, b, time_control=args.tc, games=args.games, rated=True)
        send_match(match.pk)
        ids.append(match.pk)
        time.sleep(args.interval)
    return {"matches": ids}


def machine_busy() -> float:
    """CPU seconds every process on the machine has spent so far (``/proc/stat``: all but idle and iowait), so that a
    phase's CPU counts the bots, PostgreSQL and Redis beside the process that plays."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def bare(args) -> dict:
    """Play the games of queued matches ``match_id``.. (``--matches``) through the bare runner, the very bots and
    seeds a worker would use, nothing stored: the baseline of ``benchmarks/throughput.py``'s side by side. Also
    the bots' thinking a move as the runner timed it (what they were seeded to take, and the pipes)."""
    import time

    from runner import match as runner_match
    from tournaments import referee

    matches = list(Match.objects.filter(pk__gte=args.match_id, status="queued").order_by("pk")
                   .select_related("version_a__bot", "version_b__bot")[:args.matches])
    sandbox = referee.open_sandbox()
    games, plies, thinking, started, busy = 0, 0, 0.0, time.monotonic(), machine_busy()
    for match in matches:
        with referee.loaded_versions(match.version_a, match.version_b) as (bot_a, bot_b):
            for number in range(1, match.games_per_match + 1):
                white, black = (bot_a, bot_b) if number % 2 else (bot_b, bot_a)
                record = runner_match.play_game(match.game, white, black, tc=match.time_control, sandbox=sandbox,
                                                limits=referee.limits(), seed=match.pk * 1000 + number)
                games, plies, thinking = games + 1, plies + record["plies"], thinking + sum(record["thinking"].values())
    return {"games": games, "matches": len(matches), "seconds": time.monotonic() - started,
            "cpu_seconds": machine_busy() - busy, "ms_a_move": 1000 * thinking / max(1, plies)}


def in_process(args) -> dict:
    """Play every queued match as one worker does (``play_while_work``), in this process, without a broker; with
    ``--profile FILE`` under cProfile (the stats written there); with ``--breakdown``, the milliseconds a match
    spends in each step of the worker's path (``Steps``)."""
    import cProfile
    import time

    from workers import playing

    before, matches_before = Game.objects.count(), Match.objects.filter(status="finished").count()
    profile = cProfile.Profile() if args.profile else None
    steps = Steps() if args.breakdown else None
    started, busy = time.monotonic(), machine_busy()
    if profile:
        profile.enable()
    while playing.play_while_work("in-process:1", 3600) != playing.NOTHING:  # as a worker's wake-up does
        pass
    if profile:
        profile.disable()
        profile.dump_stats(args.profile)
    seconds, cpu_seconds = time.monotonic() - started, machine_busy() - busy
    result = {"games": Game.objects.count() - before, "seconds": seconds, "cpu_seconds": cpu_seconds,
              "matches": Match.objects.filter(status="finished").count() - matches_before}
    if steps:
        steps.undo()
        matches = max(1, result["matches"])
        shown = {step: 1000 * spent / matches for step, spent in steps.spent.items()}
        result["ms_per_match"] = {**shown, "the rest": 1000 * seconds / matches - sum(shown.values())}
    return result


class Steps:
    """Exclusive wall time per step of a worker's path, on its main thread (a step's time excludes the steps it
    calls: the reactions are not counted twice, inside the report's commit). The live plies published from the
    live thread are left out: they run beside the game."""

    def __init__(self):
        import threading
        import time
        from collections import Counter

        from play import live
        from runner import match as runner_match
        from tournaments import events
        from tournaments.services import matches, uploads

        self.spent, self._stack, self._undo = Counter(), [], []
        for step, module, name in [
                ("claim", uploads, "claim_smoke_test"), ("claim", matches, "claim_next_match"),
                ("plan", matches, "begin"), ("games: the runner", runner_match, "play_game"),
                ("live: start and end of each game", live, "publish"), ("report", matches, "finish_match"),
                ("reactions after commit", events, "deliver")]:
            original = getattr(module, name)

            def timed(*args, _step=step, _original=original, **kwargs):
                if threading.current_thread() is not threading.main_thread():
                    return _original(*args, **kwargs)
                self._stack.append(0.0)  # the time of the steps this one calls
                began = time.perf_counter()
                try:
                    return _original(*args, **kwargs)
                finally:
                    took = time.perf_counter() - began
                    inner = self._stack.pop()
                    self.spent[_step] += took - inner
                    if self._stack:
                        self._stack[-1] += took

            setattr(module, name, timed)
            self._undo.append((module, name, original))

    def undo(self) -> None:
        for module, name, original in self._undo:
            setattr(module, name, original)


def window(args) -> dict:
    """Fill the fair-share window with ``--matches`` ended matches more (spread over its settled part, charged to
    the seeded owners in turn), then time ``claim_accounts`` ``--times`` times each way: as the workers run it (the
    settled part's sum kept for a few seconds) and with that sum taken at every claim (as before it was kept)."""
    import statistics
    import time
    from datetime import timedelta

    from django.core.cache import cache
    from django.db import connection
    from django.utils import timezone

    from knobs import arena
    from tournaments.services import worker_time

    model = Match.objects.order_by("pk").first()
    owners = sorted({m.charged_to_id for m in Match.objects.filter(status="queued")})
    now, span = timezone.now(), arena.FAIR_SHARE_WINDOW_SECONDS - worker_time.SETTLING_SECONDS - 60
    ended = []
    for i in range(args.matches):
        started = now - timedelta(seconds=worker_time.SETTLING_SECONDS + 30 + span * i / max(1, args.matches))
        ended.append(Match(game=model.game, version_a_id=model.version_a_id, version_b_id=model.version_b_id,
                           time_control=model.time_control, games_per_match=2, status="finished", rated=False,
                           charged_to_id=owners[i % len(owners)], started_at=started,
                           finished_at=started + timedelta(seconds=0.05)))
    Match.objects.bulk_create(ended, batch_size=5000)  # state: bulk (ended matches, as workers leave them)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tournaments_match")

    def median_ms(fresh_sum: bool) -> float:
        spent = []
        for _ in range(args.times):
            if fresh_sum:
                cache.delete(worker_time.SETTLED_KEY)
            began = time.perf_counter()
            worker_time.claim_accounts()
            spent.append(1000 * (time.perf_counter() - began))
        return statistics.median(spent)

    worker_time.claim_accounts()  # the first sum, kept
    kept = median_ms(False)
    return {"ended": Match.objects.filter(status="finished").count(), "kept": kept, "every_claim": median_ms(True)}


def timings(args) -> dict:
    """Epoch seconds (created, started, finished) of matches with id >= ``match_id``."""
    rows = Match.objects.filter(pk__gte=args.match_id or 0, status="finished").order_by("pk").values_list(
        "created_at", "started_at", "finished_at")
    return {"rows": [[c.timestamp(), s.timestamp(), f.timestamp()] for c, s, f in rows],
            "games": Game.objects.filter(match_id__gte=args.match_id or 0).count()}


def late_names() -> None:
    """Make this process's filesystem-broker messages sort after every other one, as a message written
    just before the host's uptime gains a digit in milliseconds does (kombu names each message
    ``<monotonic ms>_<uuid>`` and takes them in string order): all nines, as many digits as now."""
    import time

    from kombu.transport import filesystem

    digits = len(str(int(time.monotonic() * 1000)))
    filesystem.monotonic = lambda: (10**digits - 1) / 1000


def burst(args) -> dict:
    """At random moments over ``--seconds``: ``--matches`` tournament matches and ``--uploads`` new
    versions, each with its wake-up, as starting a tournament and uploading do."""
    import time

    from tournaments.models import Tournament
    from tournaments.services import create_tournament
    from tournaments.services.matches import create_match as queue_match
    from workers.dispatching import send_match, send_smoke_test

    if args.late_names:
        late_names()
    versions = list(BotVersion.objects.filter(status="ready").select_related("bot").order_by("pk"))
    organiser = versions[0].bot.owner
    cup = create_tournament(organiser, name=f"Burst {uuid.uuid4().hex[:6]}", game="tafl9", time_control=args.tc)
    # state: bulk (a running cup whose matches arrive at random moments, as a big cup's rounds would: its start
    # would queue them all at once, which is not the load measured here)
    Tournament.objects.filter(pk=cup.pk).update(status=Tournament.Status.RUNNING)
    rng = random.Random(args.seed)
    events = sorted([(rng.uniform(0, args.seconds), "match") for _ in range(args.matches)]
                    + [(rng.uniform(0, args.seconds), "upload") for _ in range(args.uploads)])
    start = time.monotonic()
    matches, uploads = [], []
    for at, kind in events:
        time.sleep(max(0.0, start + at - time.monotonic()))
        if kind == "match":
            a, b = rng.sample(versions, 2)
            match = queue_match(a, b, time_control=args.tc, games=args.games, rated=False, tournament=cup)
            send_match(match.pk)
            matches.append(match.pk)
        else:
            owner = rng.choice(versions).bot.owner
            name = f"upload{uuid.uuid4().hex[:8]}"
            bot = create_bot(owner, "tafl9", name)
            source = BOT_SOURCE + f"# {name}\n"
            version = upload_version(bot, SimpleUploadedFile(f"{name}.py", source.encode(), "text/x-python"))
            send_smoke_test()
            uploads.append(version.pk)
    return {"matches": matches, "uploads": uploads}


def waits(args) -> dict:
    """How the burst's work waited: for each of its matches, how many newer matches of its priority
    started first, and how many of a lower priority started while it was queued; for each upload, how
    many newer uploads were tested first; and what is still open."""
    from tournaments.models import Match as M

    ids, uploads = set(args.ids["matches"]), set(args.ids["uploads"])
    rows = list(M.objects.filter(started_at__isnull=False).values_list("pk", "priority", "created_at", "started_at"))
    overtaken, lower, open_ = {}, {}, []
    for pk, priority, created, started in rows:
        if pk not in ids:
            continue
        overtaken[pk] = sum(1 for _, p, c, s in rows if p == priority and c > created and s < started)
        lower[pk] = sum(1 for _, p, c, s in rows if p < priority and created < s < started)
    open_ = list(M.objects.filter(pk__in=ids).exclude(status="finished").values_list("pk", "status"))
    tested = list(BotVersion.objects.filter(pk__in=uploads, smoke_started_at__isnull=False)
                  .values_list("pk", "uploaded_at", "smoke_started_at"))
    upload_overtaken = {pk: sum(1 for _, u, s in tested if u > uploaded and s < started)
                        for pk, uploaded, started in tested}
    upload_wait = {pk: (started - uploaded).total_seconds() for pk, uploaded, started in tested}
    statuses = dict(Counter(BotVersion.objects.filter(pk__in=uploads).values_list("status", flat=True)))
    return {"open": open_, "overtaken": max(overtaken.values(), default=0),
            "lower_started_meanwhile": max(lower.values(), default=0),
            "upload_overtaken": max(upload_overtaken.values(), default=0),
            "upload_wait_s": max(upload_wait.values(), default=0.0), "upload_statuses": statuses,
            "ladder_started": M.objects.filter(priority=M.Priority.LADDER, started_at__isnull=False).count(),
            "ladder_queued": M.objects.filter(priority=M.Priority.LADDER, status="queued").count()}


def contend(args) -> dict:
    """The contention of ``benchmarks/fairness.py``: ``--bots`` public ladder bots of as many owners; a hog
    with an unrated round robin of its own 8 bots (56 matches) and ``--matches`` challenges (its SPRT tests'
    open matches); two steady owners with ``--matches`` challenges each; and a light owner with one bot,
    who challenges later (``light``). Every match gets its wake-up."""
    from tournaments.services import add_entrant, create_tournament, start_tournament
    from workers.dispatching import send_match

    tag = uuid.uuid4().hex[:6]
    ladder = [ready_version(create_player(f"ladder{tag}{i}", None), f"ladder{tag}{i}", args.delay)
              for i in range(args.bots)]
    hog = create_player(f"hog{tag}", None)
    hog_bots = [ready_version(hog, f"hog{tag}{i}", args.delay) for i in range(8)]
    cup = create_tournament(hog, name=f"Hog cup {tag}", game="tafl9", time_control=args.tc, games_per_pairing=2)
    for version in hog_bots:
        add_entrant(cup, version)
    ids = [match.pk for match in start_tournament(cup)]
    owners = {"hog": hog.pk}
    loads = [("hog", hog_bots[0])]
    for name in ("steady1", "steady2"):
        owner = create_player(f"{name}{tag}", None)
        owners[name] = owner.pk
        loads.append((name, ready_version(owner, f"{name}{tag}", args.delay)))
    for _name, version in loads:
        ids += [create_match(version, ladder[n % len(ladder)], time_control=args.tc, games=2, rated=False).pk
                for n in range(args.matches)]
    light = create_player(f"light{tag}", None)
    owners["light"] = light.pk
    ready_version(light, f"light{tag}", args.delay)
    for match_id in ids:
        send_match(match_id)
    return {"owners": owners, "matches": len(ids)}


def light(args) -> dict:
    """The light owner's challenges, one every ``--interval`` seconds, each with its wake-up."""
    import time

    from workers.dispatching import send_match

    version = BotVersion.objects.filter(bot__name__startswith="light").select_related("bot").latest("pk")
    rivals = list(BotVersion.objects.filter(bot__name__startswith="ladder").select_related("bot"))
    ids = []
    for n in range(args.matches):
        match = create_match(version, rivals[n % len(rivals)], time_control=args.tc, games=2, rated=False)
        send_match(match.pk)
        ids.append(match.pk)
        time.sleep(args.interval)
    return {"matches": ids}


def shares(args) -> dict:
    """Worker-seconds per account (owner id, or "ladder") of the matches that finished after epoch
    ``--since``; the light owner's challenges' waits (created → started) and the mean match length."""
    from datetime import UTC, datetime

    since = datetime.fromtimestamp(args.since, tz=UTC)
    rows = Match.objects.filter(status="finished", finished_at__gte=since).values_list(
        "charged_to_id", "started_at", "finished_at")
    used: Counter = Counter()
    lengths = []
    for account, started, finished in rows:
        length = (finished - started).total_seconds()
        used["ladder" if account is None else str(account)] += length
        lengths.append(length)
    waits = [(started - created).total_seconds() for created, started in Match.objects.filter(
        pk__in=args.ids["matches"], started_at__isnull=False).values_list("created_at", "started_at")]
    return {"used": dict(used), "waits": waits, "mean_match_s": sum(lengths) / max(1, len(lengths)),
            "unstarted": len(args.ids["matches"]) - len(waits)}


def _wait_started(matches, then=None, seconds: float = 30.0) -> float:
    """Seconds from the first of ``matches`` (a queryset) being queued to its claim; then ``then()``, and a wait
    until every one has ended (the worker idle again). Fails when that takes over ``seconds`` (no wake-up came)."""
    import time

    deadline = time.monotonic() + seconds
    first = matches.order_by("created_at", "pk")

    def wait(until_done) -> None:
        while not until_done():
            if time.monotonic() > deadline:
                raise SystemExit(f"matches not played within {seconds} s: {list(matches.values_list('pk', 'status'))}")
            time.sleep(0.01)

    wait(lambda: first.values_list("started_at", flat=True)[0] is not None)
    if then is not None:
        then()
    wait(lambda: not matches.filter(status__in=["queued", "running"]).exists())
    created, started = first.values_list("created_at", "started_at")[0]
    return (started - created).total_seconds()


def wakeups(args) -> dict:
    """Each kind of match, one at a time, created while the workers are idle through the same path as in
    service (``--api``: challenges as a player's POST /api/matches/), and nothing else sending wake-ups (run
    without beat): seconds from queued to running per kind."""
    import time

    from rest_framework.test import APIClient

    from api.services import request_match
    from tournaments.services import (
        add_entrant,
        create_tournament,
        request_version_test,
        start_tournament,
        stop_version_test,
    )
    from workers.ladder import fill_ladder

    tag = uuid.uuid4().hex[:6]
    staff = create_player(f"staff{tag}", None, is_staff=True)
    owners = [create_player(f"wake{tag}{i}", None) for i in range(2)]
    mine, theirs = (ready_version(owner, f"wake{tag}{i}", args.delay) for i, owner in enumerate(owners))
    for version in (mine, theirs):
        update_bot(version.bot, open_to_tournaments=True)  # staff enters them
    mine, theirs = (BotVersion.objects.select_related("bot").get(pk=version.pk) for version in (mine, theirs))
    client = APIClient()
    client.force_authenticate(owners[0])
    sprt_bot = ready_version(owners[0], f"sprt{tag}", args.delay).bot

    def challenge() -> float:
        if args.api:
            answer = client.post("/api/matches/", {"version_a": mine.pk, "version_b": theirs.pk,
                                                   "games_per_match": args.games, "time_control": args.tc},
                                 format="json")
            assert answer.status_code == 201, answer.content
            match_id = answer.json()["id"]
        else:
            match_id = request_match(owners[0], mine.pk, theirs.pk, games=args.games, time_control=args.tc).pk
        return _wait_started(Match.objects.filter(pk=match_id))

    def tournament() -> float:
        event = create_tournament(staff, name=f"wake {tag}", game="tafl9", time_control=args.tc,
                                  games_per_pairing=args.games, double_round=False)
        add_entrant(event, mine)
        add_entrant(event, theirs)
        start_tournament(event)
        return _wait_started(Match.objects.filter(tournament=event))

    def sprt() -> float:  # a new version of the bot against the one before; stopped once its first match starts
        support.ready_version(sprt_bot, f"sprt{tag}.py", BOT_SOURCE.encode() + f"# {time.time_ns()}\n".encode())
        test = request_version_test(sprt_bot)
        return _wait_started(test.matches.all(), then=lambda: stop_version_test(test))

    def ladder() -> float:
        return _wait_started(Match.objects.filter(pk__in=fill_ladder("tafl9", 1)))

    makers = {"challenge": challenge, "tournament": tournament, "sprt": sprt, "ladder": ladder}
    kinds = args.kinds.split(",")
    latencies: dict[str, list[float]] = {kind: [] for kind in kinds}
    for _ in range(args.matches):
        for kind in kinds:
            time.sleep(args.interval)  # the worker back at its broker, idle
            latencies[kind].append(makers[kind]())
    return {"latencies": latencies}


COMMANDS = {"wakeups": wakeups, "burst": burst, "waits": waits, "contend": contend, "light": light, "shares": shares,
            "trickle": trickle, "timings": timings, "window": window, "bare": bare, "in-process": in_process,
            "seed": seed, "status": status, "replay": replay_check,
            "snapshot": snapshot,
            "send": send, "forge": forge, "stale-report": stale_report, "cut-off-report": cut_off_report,
            "scavenge-locked": scavenge_locked, "late-report": late_report}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=sorted(COMMANDS))
    parser.add_argument("match_id", nargs="?", type=int)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--tc", default="move:2000")
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--times", type=int, default=1)
    parser.add_argument("--interval", type=float, default=0.3)
    parser.add_argument("--uploads", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--late-names", action="store_true")
    parser.add_argument("--ids", type=json.loads, default=None, help="JSON from burst (for waits)")
    parser.add_argument("--hold", type=float, default=3.0)
    parser.add_argument("--profile", default="", help="in-process: write cProfile stats to this file")
    parser.add_argument("--breakdown", action="store_true", help="in-process: milliseconds a match per step")
    parser.add_argument("--since", type=float, default=0.0)
    parser.add_argument("--kinds", default="challenge", help="wakeups: challenge,tournament,sprt,ladder")
    parser.add_argument("--api", action="store_true", help="wakeups: challenges through POST /api/matches/")
    args = parser.parse_args()
    print(json.dumps(COMMANDS[args.command](args), default=str))


if __name__ == "__main__":
    main()
