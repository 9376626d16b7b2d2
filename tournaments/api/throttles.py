"""Scoped throttles for uploads, writes and the auth endpoints. Reads are never throttled.

Rates: REST_FRAMEWORK's DEFAULT_THROTTLE_RATES (``THROTTLE_UPLOADS`` / ``THROTTLE_WRITES`` /
``THROTTLE_AUTH`` in the environment), each overridden by ``settings.ARENA_THROTTLE_RATES`` when set.
"""

import logging

from django.conf import settings
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle

from .public import CACHE_DOWN

log = logging.getLogger(__name__)


class ArenaScopedThrottle(ScopedRateThrottle):
    def get_rate(self):
        rates = {**api_settings.DEFAULT_THROTTLE_RATES, **getattr(settings, "ARENA_THROTTLE_RATES", {})}
        return rates.get(self.scope)

    def allow_request(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        try:
            return super().allow_request(request, view)
        except CACHE_DOWN as error:  # the counts live in the cache: without it, writes go on uncounted
            log.warning("throttle %s: the cache does not answer (%s); request allowed", self.scope, error)
            return True
