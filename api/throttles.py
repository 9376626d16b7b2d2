"""Scoped throttles, one set for every door: the API's views and the site's forms count in the same buckets
(``refusal`` is the site's way in). Reads are never throttled."""

import ipaddress
import logging

from rest_framework.exceptions import Throttled
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle

from knobs.cache import CACHE_DOWN

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


def lockout_message() -> str:
    """What a login refused by django-axes is told, on the site, the API and the admin (AXES_* settings)."""
    from django.conf import settings

    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return (f"too many failed logins ({settings.AXES_FAILURE_LIMIT} allowed) for this account from this address, "
            f"or from this address: logins from here are refused for {minutes} minutes after the last failure "
            "(from any other address they are not)")


REFUSED = "too many "  # how every throttle's refusal begins (the site answers 429 for it)
PERIODS = {1: "second", 60: "minute", 3600: "hour", 86400: "day"}


class ArenaScopedThrottle(ScopedRateThrottle):
    """A refusal says which limit was reached and how much of it is used (a 429 with Retry-After)."""

    def get_ident(self, request):
        return client_address(request)

    def get_cache_key(self, request, view):
        self._request = request  # for explain(): whose count it was
        return super().get_cache_key(request, view)

    def get_rate(self):
        # DRF binds THROTTLE_RATES when the class is defined; the settings as they are now (reloaded when a
        # test overrides REST_FRAMEWORK) are read here.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return True
        try:
            allowed = super().allow_request(request, view)
        except CACHE_DOWN as error:  # the counts live in the cache: without it, writes go on uncounted
            log.warning("throttle %s: the cache does not answer (%s); request allowed", self.scope, error)
            return True
        if not allowed:
            raise Throttled(wait=self.wait(), detail=self.explain())
        return True

    def explain(self) -> str:
        """The refusal's text, after a refused ``allow_request``: the limit and the use."""
        who = "this account" if _signed_in(self._request) else "this address"
        period = PERIODS.get(self.duration, f"{self.duration} seconds")
        # DRF's Throttled adds when to try again ("Expected available in N seconds.").
        return (f"{REFUSED}{self.scope} requests: the limit is {self.num_requests} per {period} "
                f"and {who} has made {len(self.history)}.")


def _signed_in(request) -> bool:
    user = getattr(request, "user", None)
    return bool(user and user.is_authenticated)


class _Door:
    """A stand-in for a DRF view: the one thing a scoped throttle asks of it."""

    def __init__(self, scope: str):
        self.throttle_scope = scope


def refusal(request, scope: str) -> Throttled | None:
    """The site's forms use the API's throttles: counts this request against ``scope`` (a write, whatever its
    method) and returns the refusal (its ``detail`` to show beside the form, its ``wait`` for Retry-After), or
    None when allowed."""
    throttle = ArenaScopedThrottle()
    try:
        throttle.allow_request(_Counted(request), _Door(scope))
    except Throttled as refused:
        return refused
    return None


class _Counted:
    """The request as the throttle sees it: a write, so that it is counted (the live view's GET polls too)."""

    method = "POST"

    def __init__(self, request):
        self._request = request

    def __getattr__(self, name):
        return getattr(self._request, name)
