"""The Celery app: one for the web process, the workers and beat."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("arena")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks(["workers", "hooks"])  # ratings.fit is among them (workers.tasks): it reads the games
