"""Deployment checks (``manage.py check --deploy``)."""

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.caches, deploy=True)
def shared_cache(app_configs, **kwargs):
    """Public pages, their generation and the throttle counts live in the cache: one per process is only
    right for a single web process (the quick start)."""
    backend = settings.CACHES["default"]["BACKEND"]
    if backend.endswith("LocMemCache"):
        return [Warning("the cache is this process's memory: with more than one web process, a bot made private "
                        "stays on the others' kept pages and throttles count per process",
                        hint="set CACHE_URL to a Redis shared by every web process (docker-compose.yml does)",
                        id="arena.W001")]
    return []
