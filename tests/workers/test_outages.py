"""Outages the workers must ride out on a cluster with a PostgreSQL server of its own: the database
restarted mid-run, a worker cut off past its lease, and a long run of random SIGKILLs."""

from __future__ import annotations

import json
import os
import random
import signal
import time
from pathlib import Path

import pytest
from test_cluster import assert_ratings_replay

pytestmark = pytest.mark.slow


def assert_finished_once_since(before: dict, state: dict, matches: int, games_each: int = 2) -> None:
    """Every match finished, ``matches`` more than ``before``, each with its games, each game rated once."""
    finished = before["statuses"].get("finished", 0) + matches
    assert state["statuses"] == {"finished": finished}, state
    assert state["games"] == before["games"] + matches * games_each, state
    assert state["rating_changes"] == 2 * state["games"], state
    assert state["matches_with_wrong_game_count"] == [] and state["finished_without_games"] == [], state


def wait_for_finished(cluster, count: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while cluster.harness("status")["statuses"].get("finished", 0) < count:
        assert time.monotonic() < deadline, f"fewer than {count} matches finished after {timeout}s"
        time.sleep(0.3)


def test_postgres_restarted_mid_run_loses_nothing_and_the_workers_recover(own_pg_cluster):
    cluster = own_pg_cluster
    before = cluster.harness("status")
    start = sum(before["statuses"].values())
    workers = {name: proc.pid for name, proc in cluster.workers.items()}
    cluster.harness("seed", "--matches", "40", "--delay", "0.02", "--seed", "5")
    wait_for_finished(cluster, start + 6)
    cluster.postgres.stop()  # immediate: every connection cut, as if it crashed
    time.sleep(5)  # longer than the lease: leases run out while nobody can write
    cluster.postgres.start()
    restarted_at = cluster.sql("SELECT now()")[0][0]
    state = cluster.wait_until_done(timeout=240, poll=1)
    assert_finished_once_since(before, state, 40)
    assert_ratings_replay(cluster, state)
    # The same worker processes, never restarted, went on playing after the database came back.
    assert {name: proc.pid for name, proc in cluster.workers.items()} == workers
    assert all(proc.poll() is None for proc in cluster.workers.values())
    after = {worker.split("@")[0] for (worker,) in cluster.sql(
        "SELECT worker_id FROM tournaments_match WHERE started_at > %s", restarted_at)}
    assert after == {"w1", "w2"}, after


def settled_with_bots(cluster) -> dict:
    """The status once nothing is open, with bots seeded if there were none."""
    if not cluster.harness("status")["statuses"]:
        cluster.harness("seed", "--matches", "1")
    return cluster.wait_until_done(timeout=60, poll=0.5)


def wait_for(predicate, timeout: float, what: str, poll: float = 0.05):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, f"{what}: not after {timeout}s"
        time.sleep(poll)


def match_row(cluster, match_id: int) -> tuple:
    return cluster.sql("SELECT status, worker_id, attempts FROM tournaments_match WHERE id = %s", match_id)[0]


def test_a_report_made_while_postgres_restarts_is_stored_once_it_is_back(own_pg_cluster):
    """The games are played and the lease is held: a database down for a moment at report time costs
    a wait, not the match (before, the records were dropped and the match played again)."""
    cluster = own_pg_cluster
    before = settled_with_bots(cluster)
    reporter = cluster.harness_in_background("late-report")
    try:
        line = reporter.stdout.readline()
        assert line, reporter.communicate()[1][-3000:]
        cluster.postgres.stop()
        reporter.stdin.write("report\n")
        reporter.stdin.flush()
        time.sleep(2)
        cluster.postgres.start()
        stdout, stderr = reporter.communicate(timeout=60)
    finally:
        if reporter.poll() is None:
            reporter.kill()
    assert reporter.returncode == 0, stderr[-3000:]
    outcome = json.loads(stdout.strip().splitlines()[-1])
    assert outcome["report"] == "finished", outcome
    assert "the database is unreachable" in stderr
    state = cluster.wait_until_done(timeout=60, poll=0.5)
    assert_finished_once_since(before, state, 1)
    assert match_row(cluster, outcome["match"]) == ("finished", "late-reporter", 1)
    assert_ratings_replay(cluster, state)


def test_a_worker_cut_off_past_its_lease_loses_the_match_and_its_late_report_is_refused(own_pg_cluster):
    cluster = own_pg_cluster
    before = cluster.harness("status")
    # One slow game (half a second per action), so that the worker is caught in the middle of it.
    match_id = cluster.harness("seed", "--matches", "1", "--games", "1", "--delay", "0.5", "--seed", "8")["matches"][0]
    status, worker, _ = wait_for(lambda: (row := match_row(cluster, match_id))[0] == "running" and row,
                                 timeout=60, what="the match was not claimed")
    cut_off, player = worker.split("@")[0], int(worker.rsplit(":", 1)[1])
    # Once its bots run, the game is under way (paused before it, the worker would find the lease gone
    # and play nothing, rather than report).
    wait_for(lambda: Path(f"/proc/{player}/task/{player}/children").read_text().split(), timeout=30,
             what="the game did not start", poll=0.02)
    cluster.pause_worker(cut_off)  # no database, no broker: it cannot beat, report or acknowledge
    try:
        status, worker, attempts = wait_for(lambda: (row := match_row(cluster, match_id))[0] == "finished" and row,
                                            timeout=60, what="another worker did not play the match")
        assert worker.split("@")[0] != cut_off and attempts == 2
    finally:
        cluster.resume_worker(cut_off)
    log = cluster.dir / f"{cut_off}.log"
    try:
        wait_for(lambda: f"match {match_id}: report refused" in log.read_text(), timeout=60,
                 what="the cut-off worker did not report, or did not log the refusal")
    except AssertionError as error:
        lines = [line for line in log.read_text().splitlines() if "workers.scavenge" not in line
                 and "workers.dispatch" not in line]
        raise AssertionError("\n".join([str(error), *lines[-80:]])) from None
    state = cluster.wait_until_done(timeout=60, poll=0.5)
    assert_finished_once_since(before, state, 1, games_each=1)
    assert_ratings_replay(cluster, state)
    text = log.read_text()
    assert f"match {match_id}: heartbeat refused, the lease is no longer ours" in text
    assert f"match {match_id}: the lease was lost while playing; the report will be refused" in text


def test_a_worker_cut_off_inside_its_report_holds_up_nobody_past_its_lease(own_pg_cluster):
    """A worker paused (or cut off) inside ``finish_match`` holds the match's row and its bots' ratings:
    the server must end its transaction once it has been silent for a lease, or the scavenger (and
    every report on those bots) waits behind it until it comes back. Its report then changes nothing."""
    import psycopg

    cluster = own_pg_cluster
    before = cluster.harness("status")
    cluster.harness("seed", "--matches", "4", "--seed", "12")  # bots, and matches to play meanwhile
    cut_off = cluster.harness_in_background("cut-off-report")
    try:
        line = cut_off.stdout.readline()
        assert line, cut_off.communicate()[1][-3000:]
        bots = json.loads(line)["bots"]
        with psycopg.connect(f"{cluster.pg_url}/{cluster.db_name}") as blocker:
            blocker.execute("SELECT 1 FROM ratings_rating WHERE bot_id = ANY(%s) FOR UPDATE", [bots])
            cut_off.stdin.write("report\n")
            cut_off.stdin.flush()
            wait_for(lambda: cluster.sql("SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                         "AND query LIKE '%%ratings_rating%%'"),
                     timeout=30, what="finish_match never waited for the ratings")
            os.kill(cut_off.pid, signal.SIGSTOP)  # stopped inside finish_match, the match's row locked
        # The blocker is gone: the report's statement completes, and its session sits idle in transaction.
        match_id = cluster.sql("SELECT id FROM tournaments_match WHERE worker_id = 'cut-off'")[0][0]
        status, worker, attempts = wait_for(lambda: (row := match_row(cluster, match_id))[0] == "finished" and row,
                                            timeout=45, what="the match held by the cut-off report was not replayed",
                                            poll=0.2)
        assert worker != "cut-off" and attempts == 2
        state = cluster.wait_until_done(timeout=60, poll=0.5)
    finally:
        os.kill(cut_off.pid, signal.SIGCONT)
        _, stderr = cut_off.communicate(timeout=60)
    assert cut_off.returncode != 0 and "OperationalError" in stderr, "the server should have ended its transaction"
    assert "terminating connection due to idle-in-transaction timeout" in cluster.postgres.log_text()
    assert cluster.harness("status") == state
    assert_finished_once_since(before, state, 5)
    assert_ratings_replay(cluster, state)


def test_the_scavenger_neither_waits_for_a_locked_match_nor_requeues_a_renewed_lease(own_pg_cluster):
    """A worker reporting late holds its match's row, its lease run out; it then renews the lease. The
    scavenger skips the row at once (waiting would keep its own worker from playing, for as long
    as the holder stays silent) and the live worker's match stays running."""
    cluster = own_pg_cluster
    before = settled_with_bots(cluster)
    outcome = cluster.harness("scavenge-locked", "--hold", "3")
    assert outcome["seconds"] < 1.5, outcome
    assert not outcome["requeued"] and outcome["status"] == "running", outcome
    state = cluster.wait_until_done(timeout=60, poll=0.5)  # its lease runs out for good: replayed
    assert_finished_once_since(before, state, 1)
    assert_ratings_replay(cluster, state)


def test_a_hundred_sigkills_over_three_hundred_matches_lose_nothing_and_count_nothing_twice(own_pg_cluster):
    cluster = own_pg_cluster
    before = cluster.harness("status")
    start = sum(before["statuses"].values())
    began = time.monotonic()
    cluster.harness("seed", "--matches", "300", "--bots", "10", "--seed", "21")
    rng = random.Random(2026)
    whole = hit = 0
    for kill in range(100):
        # Spread over the run: the k-th kill once 2.5 k matches are done, at a random moment after that.
        wait_for(lambda kill=kill: finished(cluster) >= start + 2.5 * kill, 120, "the run stalled", poll=0.05)
        time.sleep(rng.uniform(0.0, 0.4))
        name = rng.choice(sorted(cluster.workers))
        hit += any(cluster.sql("SELECT 1 FROM tournaments_match WHERE status = 'running' AND worker_id LIKE %s",
                               f"%:{pid}") for pid in cluster.players(name))
        if kill % 5 == 0:  # the whole worker: main process, pool child, bots; started again at once
            cluster.kill_worker(name)
            cluster.start_worker(name)
            whole += 1
        else:  # the process playing: the worker forks a new one
            cluster.kill_player(name)
    print(f"soak: kills done after {time.monotonic() - began:.0f}s, {finished(cluster) - start} matches finished")
    state = cluster.wait_until_done(timeout=240, poll=1)
    print(f"soak: all done after {time.monotonic() - began:.0f}s")
    assert_finished_once_since(before, state, 300)
    assert_ratings_replay(cluster, state)
    retried = sum(count for attempts, count in state["attempts"].items() if int(attempts) > 1)
    print(f"soak: 100 kills ({whole} whole workers, {hit} holding a match), {retried} matches replayed, "
          f"attempts {state['attempts']}")
    assert retried >= 20, state["attempts"]


def finished(cluster) -> int:
    return cluster.sql("SELECT count(*) FROM tournaments_match WHERE status = 'finished'")[0][0]
