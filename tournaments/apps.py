from django.apps import AppConfig


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Bots, matches and tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # lazy: apps.py loads before the models; ready() runs once they are (the Django way to register checks)
        from tournaments import checks  # noqa: F401  lazy: registers the deployment checks, see above
