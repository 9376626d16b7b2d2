"""Celery settings that keep a lost or repeated message harmless, and per-match time limits."""

from __future__ import annotations

import pytest

from engines.core import BadSettings


def test_json_only_late_ack_and_one_message_at_a_time():
    from config.celery import app

    conf = app.conf
    assert conf.accept_content == ["json"] and conf.task_serializer == "json"
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1
    assert set(conf.beat_schedule) == {"scavenge-expired-leases", "dispatch-queued-matches", "schedule-ranked-ladder",
                                       "fit-ratings"}
    assert conf.task_routes["workers.scavenge"]["queue"] == "arena.control"
    assert conf.beat_schedule["fit-ratings"] == {"task": "ratings.fit", "schedule": 300.0}  # ARENA_RATING_FIT_SECONDS
    app.loader.import_default_modules()  # what a worker does at start: autodiscovery included
    assert "ratings.fit" in app.tasks


def test_the_refit_after_a_rated_match_goes_to_the_housekeeping_queue():
    from config.celery import app

    app.loader.import_default_modules()
    assert "ratings.refit" in app.tasks
    assert app.conf.task_routes["ratings.refit"]["queue"] == "arena.control"  # never behind a backlog of matches
    assert "fit-ratings" in app.conf.beat_schedule  # the beat's refit stays, as the safety net


def test_time_limits_grow_with_the_time_control_and_stop_at_the_cap(settings):
    from play.limits import match_time_limits, visibility_timeout

    short = match_time_limits("tafl9", "move:100", 2)
    long = match_time_limits("tafl9", "move:1000", 2)
    assert short.soft < long.soft < long.hard
    assert match_time_limits("tafl9", "move:1000", 4).soft > long.soft
    assert match_time_limits("tafl9", "clock:60000+500", 2).soft > match_time_limits("tafl9", "clock:1000+0", 2).soft
    settings.ARENA = {**settings.ARENA, "MAX_MATCH_SECONDS": 600}
    capped = match_time_limits("tafl9", "move:60000", 100)
    assert capped.hard <= 600 < visibility_timeout()


def test_a_bad_time_control_is_refused_by_name():
    from play.limits import match_time_limits

    with pytest.raises(BadSettings, match="bad time control"):
        match_time_limits("tafl9", "hourglass:5", 2)


@pytest.mark.parametrize("raw", ["7", 7.0, True, 0, -3, 2**63, None, [1]])
def test_task_ids_must_be_positive_integers(raw, caplog):
    from workers.tasks import checked_id

    assert checked_id(raw, "match") is None
    assert "rejected task message" in caplog.text


def test_a_plain_id_passes():
    from workers.tasks import checked_id

    assert checked_id(42, "match") == 42


def test_the_redis_visibility_timeout_is_above_the_longest_task():
    import json
    import os
    import subprocess
    import sys

    from play.limits import match_time_limits

    # The settings as a Redis deployment loads them, even with a visibility timeout set too short.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "CELERY_BROKER_URL": "redis://127.0.0.1:1/0",
           "CELERY_VISIBILITY_TIMEOUT": "60"}
    code = "from config.celery import app; import json; print(json.dumps(app.conf.broker_transport_options))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    longest = match_time_limits("tafl9", "move:60000", 100).hard
    assert json.loads(out.splitlines()[-1])["visibility_timeout"] > longest


def test_a_message_with_extra_arguments_is_rejected_before_any_lookup(caplog):
    from workers.tasks import run_match, smoke_test

    assert run_match(1, "extra") is None
    assert smoke_test(1, lease_token="forged") is None
    assert "rejected task message: run_match takes one match id" in caplog.text
    assert "rejected task message: smoke_test takes one bot version id" in caplog.text


@pytest.mark.django_db
@pytest.mark.slow
def test_a_smoke_test_of_an_unknown_version_does_nothing(caplog):
    from workers.tasks import smoke_test

    assert smoke_test(10**9) is None
    assert "smoke test: unknown bot version 1000000000, nothing done" in caplog.text
