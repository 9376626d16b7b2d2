from django.apps import AppConfig


class WorkersConfig(AppConfig):
    name = "workers"
    verbose_name = "Match workers"
    default_auto_field = "django.db.models.BigAutoField"
