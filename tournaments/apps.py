from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Bots, matches and tournaments"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from tournaments import checks  # noqa: F401  (registers the deployment checks)
        from tournaments.api import public
        from tournaments.models import Bot, BotVersion

        # A bot's name, visibility, retirement and pinned version, and its versions' switches, show on public pages
        # kept in the cache: any change starts them afresh (services save these rows, never update them in bulk).
        post_save.connect(public.forget_all, sender=Bot, dispatch_uid="public-pages-bot-saved")
        post_delete.connect(public.forget_all, sender=Bot, dispatch_uid="public-pages-bot-deleted")
        post_save.connect(public.forget_all, sender=BotVersion, dispatch_uid="public-pages-version-saved")
