"""Scoped throttles for uploads, writes and the auth endpoints. Reads are never throttled.

Rates: ``settings.ARENA_THROTTLE_RATES`` when set, else REST_FRAMEWORK's DEFAULT_THROTTLE_RATES
(``THROTTLE_UPLOADS`` / ``THROTTLE_WRITES`` in the environment), else the defaults below.
"""

from django.conf import settings
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

DEFAULT_RATES = {
    "uploads": "30/hour",
    "writes": "600/hour",
    "auth": "60/hour",
}


class ArenaScopedThrottle(ScopedRateThrottle):
    def get_rate(self):
        rates = {**DEFAULT_RATES, **(api_settings.DEFAULT_THROTTLE_RATES or {}),
                 **getattr(settings, "ARENA_THROTTLE_RATES", {})}
        return rates.get(self.scope)

    def allow_request(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        return super().allow_request(request, view)
