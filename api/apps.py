"""The REST API's app: at start-up, ties the kept public pages to the Bot tables and subscribes the events'
reactions."""

from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class ApiConfig(AppConfig):
    name = "api"
    verbose_name = "REST API"

    def ready(self):
        # lazy: apps.py loads before the models; ready() runs once they are (the Django way to wire signals)
        from api import public, reactions  # lazy: see above
        from tournaments.models import Bot, BotVersion  # lazy: see above

        # A bot's name, visibility, retirement and pinned version, and its versions' switches, show on public pages
        # kept in the cache: any change starts them afresh (services save these rows, never update them in bulk).
        post_save.connect(public.forget_all, sender=Bot, dispatch_uid="public-pages-bot-saved")
        post_delete.connect(public.forget_all, sender=Bot, dispatch_uid="public-pages-bot-deleted")
        post_save.connect(public.forget_all, sender=BotVersion, dispatch_uid="public-pages-version-saved")
        # What follows each domain event once it commits (wake a worker, forget the pages it changed, refit), in
        # every process. A worker's "forget" reaches the web's kept pages only through a shared cache (CACHE_URL);
        # without one (the quick start) the web's copy of such a page lags by at most public.LIVE_SECONDS.
        reactions.connect()
