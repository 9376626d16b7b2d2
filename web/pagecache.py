"""Pages that every visitor who is not logged in sees alike, kept rendered in the cache for a few seconds."""

from __future__ import annotations

import logging
from functools import wraps

from django.core.cache import cache
from django.http import HttpResponse

from api import public
from knobs.cache import CACHE_DOWN, keep

log = logging.getLogger(__name__)


def for_visitors(seconds: int, scopes=None):
    """Keep the view's page for visitors ``seconds``; ``scopes(**view_kwargs)`` names the scopes it shows."""
    def decorate(view):
        @wraps(view)
        def kept_view(request, *args, **kwargs):
            if request.method != "GET" or request.user.is_authenticated or "messages" in request.COOKIES:
                return view(request, *args, **kwargs)
            try:
                shown = tuple(scopes(**kwargs)) if scopes else ()
                found = cache.get_many([public.GENERATION, *public.scope_keys(shown)])
                key = f"web:page:{found.get(public.GENERATION)}:{public.stamp(shown, found)}:{request.get_full_path()}"
                content = cache.get(key)
            except CACHE_DOWN as error:  # a cache is a speed-up: without it, pages are built as asked
                log.warning("web pages: the cache does not answer (%s)", error)
                return view(request, *args, **kwargs)
            if content is not None:
                return HttpResponse(content)
            response = view(request, *args, **kwargs)
            if response.status_code == 200 and not response.cookies:
                keep(key, response.content, seconds)
            return response

        return kept_view

    return decorate
