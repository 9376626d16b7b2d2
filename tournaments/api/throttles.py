"""Scoped throttles for uploads and writes; rates come from settings.ARENA_THROTTLE_RATES when set."""

from django.conf import settings
from rest_framework.throttling import ScopedRateThrottle

DEFAULT_RATES = {
    "uploads": "30/hour",
    "writes": "300/hour",
    "auth": "60/hour",
}


class ArenaScopedThrottle(ScopedRateThrottle):
    """A scoped throttle that applies to writes only, so reading stays free."""

    def get_rate(self):
        rates = {**DEFAULT_RATES, **getattr(settings, "ARENA_THROTTLE_RATES", {})}
        return rates.get(self.scope)

    def allow_request(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return super().allow_request(request, view)
