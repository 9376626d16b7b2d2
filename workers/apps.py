"""The workers' app: at start-up, registers the Celery tasks in every process."""

from django.apps import AppConfig


class WorkersConfig(AppConfig):
    name = "workers"
    verbose_name = "Match workers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Registers the tasks in every process (web, worker, beat), so that workers.dispatching can send a
        # wake-up by its task's name.
        from . import tasks  # noqa: F401  # lazy: tasks import models, which load only once the registry is ready
