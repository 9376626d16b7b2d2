"""Scoped throttles for uploads, writes and the auth endpoints. Reads are never throttled.

Rates: REST_FRAMEWORK's DEFAULT_THROTTLE_RATES (``THROTTLE_UPLOADS`` / ``THROTTLE_WRITES`` /
``THROTTLE_AUTH`` in the environment, docs/settings.md).
Anonymous requests count per client address (``client_address``); failed logins are also limited per
account by django-axes (config/settings.py, AXES_*), which takes its address from the same function.
"""

import ipaddress
import logging

from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle

from .public import CACHE_DOWN

log = logging.getLogger(__name__)


def client_address(request) -> str | None:
    """The address a request came from, as throttles and the login lockout count it.

    DRF's rule with ``NUM_PROXIES`` (``TRUSTED_PROXY_COUNT``): REMOTE_ADDR when no proxy of ours is in
    front, else the X-Forwarded-For entry our outermost proxy appended (entries left of it are whatever
    the client sent). Something that is not an IP address there means the count is set wrong; then
    REMOTE_ADDR, the one address nobody can forge.
    """
    address = BaseThrottle().get_ident(request)
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return request.META.get("REMOTE_ADDR")


class ArenaScopedThrottle(ScopedRateThrottle):
    def get_ident(self, request):
        return client_address(request)

    def get_rate(self):
        # DRF binds THROTTLE_RATES when the class is defined; the settings as they are now (reloaded when a
        # test overrides REST_FRAMEWORK) are read here.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        try:
            return super().allow_request(request, view)
        except CACHE_DOWN as error:  # the counts live in the cache: without it, writes go on uncounted
            log.warning("throttle %s: the cache does not answer (%s); request allowed", self.scope, error)
            return True
