"""Real Celery workers and beat on a private Redis and database: exactly-once results under failure."""

from __future__ import annotations

import random
import time

import pytest

pytestmark = pytest.mark.slow


def assert_all_finished_once(state: dict, expected_matches: int) -> None:
    assert state["statuses"] == {"finished": expected_matches}, state
    assert state["games"] == 2 * expected_matches, state
    assert state["matches_with_wrong_game_count"] == [], state
    assert state["finished_without_games"] == [], state
    assert state["rating_changes"] == 2 * state["games"], state


def assert_ratings_replay(cluster, state: dict) -> None:
    replayed = cluster.harness("replay")
    assert replayed["differ"] == [], replayed
    assert replayed["games"] == state["games"]
    assert replayed["total_rated_games"] == 2 * state["games"]


def test_two_hundred_matches_on_two_workers_finish_once_and_ratings_equal_a_serial_replay(cluster):
    seeded = cluster.harness("seed", "--matches", "200", "--bots", "10", "--tc", "move:2000")
    assert len(seeded["matches"]) == 200
    state = cluster.wait_until_done(timeout=420, poll=2)
    assert_all_finished_once(state, 200)
    assert state["attempts"] == {"1": 200}, "no failure was injected, so every match took one attempt"
    assert_ratings_replay(cluster, state)
    log = cluster.log_text()
    assert "w1@" in log and "w2@" in log
    assert log.count(": finished") >= 200


def test_a_task_delivered_twice_is_counted_once(cluster):
    before = cluster.harness("status")
    match_id = cluster.harness("seed", "--matches", "1")["matches"][0]
    cluster.harness("send", str(match_id), "--times", "3")
    state = cluster.wait_until_done(timeout=60, poll=0.5)
    total = sum(before["statuses"].values()) + 1
    assert_all_finished_once(state, total)
    assert state["attempts"].get("1", 0) == before["attempts"].get("1", 0) + 1
    assert f"match {match_id} is finished, not queued: a duplicate or late delivery, nothing done" \
        in cluster.log_text() or f"match {match_id} is running, not queued" in cluster.log_text()


def test_forged_and_corrupted_messages_change_nothing(cluster):
    cluster.harness("seed", "--matches", "1")
    cluster.wait_until_done(timeout=60, poll=0.5)
    before = cluster.harness("snapshot")
    forged = cluster.harness("forge")
    assert forged["finished_match"] is not None
    deadline = time.monotonic() + 30
    while "unknown match id" not in cluster.log_text() and time.monotonic() < deadline:
        time.sleep(0.5)
    time.sleep(2)
    assert cluster.harness("snapshot") == before
    log = cluster.log_text()
    assert "rejected task message: match id must be a positive integer, got '1; DROP TABLE" in log
    assert "rejected task message: match id must be a positive integer, got True" in log
    assert "rejected task message: run_match takes one match id" in log
    assert "match 999999999: unknown match id, nothing done" in log
    assert "workers.evil" in log  # Celery refuses an unregistered task by name
    assert "ContentDisallowed" in log or "disallowed" in log.lower()  # the pickle message
    # The workers survived all of it and still play.
    cluster.harness("seed", "--matches", "2")
    state = cluster.wait_until_done(timeout=60, poll=0.5)
    assert state["statuses"] == {"finished": sum(state["statuses"].values())}


def test_a_report_without_the_current_lease_changes_nothing(cluster):
    cluster.harness("seed", "--matches", "1")
    cluster.wait_until_done(timeout=60, poll=0.5)
    before = cluster.harness("snapshot")
    outcomes = cluster.harness("stale-report")
    assert outcomes["finished_match"] == "report-refused"
    assert outcomes["running_match_wrong_token"] == "report-refused"
    assert outcomes["running_match_state"] == "running"
    assert outcomes["running_match_games"] == 0
    assert outcomes["unknown_match"] == "unknown-match"
    state = cluster.wait_until_done(timeout=60, poll=0.5)  # the requeued match is then played normally
    assert_all_finished_once(state, sum(state["statuses"].values()))
    after = cluster.harness("snapshot")
    assert after["games"] == before["games"] + 2


def test_workers_killed_mid_match_leave_the_match_requeued_and_finished_once(cluster):
    before = cluster.harness("status")
    cluster.harness("seed", "--matches", "16", "--delay", "0.04", "--seed", "7")
    rng = random.Random(11)
    kills = 0
    for _ in range(4):
        time.sleep(rng.uniform(0.8, 2.5))
        name = rng.choice(sorted(cluster.workers))
        cluster.kill_worker(name)
        kills += 1
        time.sleep(rng.uniform(0.0, 0.5))
        cluster.start_worker(name)
    state = cluster.wait_until_done(timeout=240, poll=1)
    total = sum(before["statuses"].values()) + 16
    assert_all_finished_once(state, total)
    retried = sum(count for attempts, count in state["attempts"].items() if int(attempts) > 1)
    assert retried >= 1, state["attempts"]
    assert "lease expired after attempt" in cluster.log_text()
    assert_ratings_replay(cluster, state)


def test_redis_restarted_mid_run_loses_nothing(cluster):
    before = cluster.harness("status")
    cluster.harness("seed", "--matches", "40", "--seed", "3")
    start = sum(before["statuses"].values())
    deadline = time.monotonic() + 120
    while cluster.harness("status")["statuses"].get("finished", 0) < start + 8:
        assert time.monotonic() < deadline, "matches did not start"
        time.sleep(0.3)
    cluster.stop_redis()  # no persistence: every message still queued is gone
    time.sleep(2)
    cluster.start_redis()
    state = cluster.wait_until_done(timeout=300, poll=1, on_poll=cluster.restart_exited)
    assert_all_finished_once(state, start + 40)
    assert_ratings_replay(cluster, state)
    # The matches whose wake-ups were lost are played by workers still claiming (workers.playing.play_while_work)
    # or, once those are idle, after the dispatcher re-sends them (test_dispatching): either way, none is lost.
