"""The domain's app: at start-up, registers the deployment checks and keeps each user's compared name."""

from django.apps import AppConfig
from django.contrib.auth import get_user_model
from django.db.models.signals import post_save


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Bots, matches and tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # lazy: apps.py loads before the models; ready() runs once they are (the Django way to register checks)
        from tournaments import checks  # noqa: F401  lazy: registers the deployment checks, see above
        from tournaments.services.players import keep_name_key  # lazy: the models load first, see above

        # Every saved user keeps their name's compared form (tournaments.models.PlayerName), on every path.
        post_save.connect(keep_name_key, sender=get_user_model(), dispatch_uid="tournaments.player_name")
