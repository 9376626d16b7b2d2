"""The operators' app: the admin, its dashboard and the manage.py commands."""

from django.apps import AppConfig


class OpsConfig(AppConfig):
    name = "ops"
    verbose_name = "Operations"
