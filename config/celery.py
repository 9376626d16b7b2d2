"""The Celery app: one for the web process, the workers and beat.

Everything that makes a lost or repeated message harmless is set here rather than left to the
environment: JSON only (a pickle message could run code), late acknowledgement with rejection on
worker loss (a crashed worker's message goes back to the queue), one message prefetched at a time
(a long match does not hold a second one hostage), and a Redis visibility timeout above the longest
match a task may run (otherwise Redis hands a running match to a second worker; celery #7651).
The database stays the source of truth: a message only says "look at match N".
"""

from __future__ import annotations

import os

from celery import Celery
from kombu import Exchange, Queue

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")

SAFETY = {
    "task_serializer": "json",
    "result_serializer": "json",
    "accept_content": ["json"],
    "event_serializer": "json",
    "task_acks_late": True,
    "task_reject_on_worker_lost": True,
    "worker_prefetch_multiplier": 1,
    "task_track_started": False,
    "task_ignore_result": True,
    "broker_connection_retry_on_startup": True,
    # Keep reconnecting to a restarted broker instead of giving up after 100 tries.
    "broker_connection_max_retries": None,
    "worker_hijack_root_logger": False,
    # Wake-ups for matches wait in "celery"; the periodic housekeeping and the smoke tests' wake-ups
    # have their own queue so that a long backlog of matches never delays them. Workers consume both;
    # the quick start adds a process for the housekeeping queue alone (workers.playing says why).
    "task_default_queue": "celery",
    # Each queue with its own exchange and key: a shared key would copy every message into both.
    "task_queues": (Queue("celery", Exchange("celery"), routing_key="celery"),
                    Queue("arena.control", Exchange("arena.control"), routing_key="arena.control")),
    "task_routes": {
        "workers.dispatch": {"queue": "arena.control"},
        "workers.scavenge": {"queue": "arena.control"},
        "workers.schedule_ladder": {"queue": "arena.control"},
        "workers.smoke_test": {"queue": "arena.control"},
        "ratings.fit": {"queue": "arena.control"},
        "workers.smoke_next": {"queue": "arena.control"},
    },
}
app.conf.update(SAFETY)
app.autodiscover_tasks(["workers"])  # ratings.fit is among them: it reads the games (tournaments)


@app.on_after_configure.connect
def _settle_broker(sender, **kwargs):
    """Visibility timeout and the beat schedule depend on Django settings, read once configured."""
    # lazy: config.celery loads with the config package, before the settings; no app loads before them
    from workers.schedule import beat_schedule, visibility_timeout  # lazy: after the settings (above)

    options = dict(sender.conf.broker_transport_options or {})
    if not str(sender.conf.broker_url or "").startswith("filesystem://"):
        options["visibility_timeout"] = max(int(options.get("visibility_timeout", 0)), visibility_timeout())
    sender.conf.broker_transport_options = options
    from django.conf import settings

    fit = {"fit-ratings": {"task": "ratings.fit", "schedule": float(settings.ARENA["RATING_FIT_SECONDS"])}}
    sender.conf.beat_schedule = {**beat_schedule(), **fit, **(sender.conf.beat_schedule or {})}
