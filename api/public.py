"""Public reads answered from the cache as rendered JSON: what many readers see alike is queried, serialized and
rendered once, then served as stored bytes (no query, no serializer, no renderer) until it expires.

Live pages (leaderboards, bot pages, lists, rating histories) are kept ``LIVE_SECONDS``, so they may lag a
finished game by that much; a game record, which never changes, ``RECORD_SECONDS``. Every key carries the cache's
generation, and any change to a bot (saved or deleted: its name, its visibility) starts a new one once the change
commits, so a bot made private or renamed shows at once everywhere, records included.

Three audiences: ``EVERYONE`` (the page is the same for every reader: leaderboards and rating histories of public
bots); ``OUTSIDERS`` (everyone but the bots' owners and staff, who see more: the bot page, and a game record, whose
bots' stderr and protocol logs only their owners read); ``ANONYMOUS`` (lists, whose rows depend on who asks).
A page kept for OUTSIDERS is what an outsider sees: an insider's page is built for them and never kept."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse, HttpResponseNotModified
from redis.exceptions import RedisError
from rest_framework.response import Response

from tournaments.selectors import is_insider

log = logging.getLogger(__name__)

LIVE_SECONDS = 5
RECORD_SECONDS = 24 * 3600
GENERATION = "api:public:generation"

EVERYONE, OUTSIDERS, ANONYMOUS = "everyone", "outsiders", "anonymous"
CACHE_DOWN = (RedisError, OSError)


@dataclass(frozen=True)
class Page:
    """What a view builds on a miss: its data (once kept, the data rendered as JSON bytes), whether every reader
    of the audience may share it, and for OUTSIDERS the owners of the bots it shows."""

    content: object
    shareable: bool = True
    owners: tuple[int, ...] = ()
    etag: str = ""
    cache_control: str = ""


_seen = {"generation": None}  # this process's last generation: a hit costs one cache round trip


def serve(request, name: str, audience: str, seconds: int, build: Callable[[], Page]) -> HttpResponse:
    """The page ``name`` (unique per URL and audience) from the cache, or built, rendered and kept."""
    if not _may_share(request, audience):
        return _answer(request, build())
    try:
        generation, page = _lookup(name)
    except CACHE_DOWN as error:  # a cache is a speed-up: without it, every page is built as it is asked for
        log.warning("public pages: the cache does not answer (%s); building %s", error, name)
        return _answer(request, build())
    if page is not None and not (audience == OUTSIDERS and is_insider(request.user, *page.owners)):
        return _answer(request, page)
    page = build()
    if not page.shareable or (audience == OUTSIDERS and is_insider(request.user, *page.owners)):
        return _answer(request, page)
    rendered = request.accepted_renderer.render(page.content, request.accepted_media_type, {"request": request})
    page = replace(page, content=rendered)
    try:
        cache.set(_key(name, generation), page, seconds)
    except CACHE_DOWN as error:
        log.warning("public pages: could not keep %s (%s)", name, error)
    return _answer(request, page)


def url_name(request, prefix: str) -> str:
    """A page name for the whole URL, host included (pages link to themselves)."""
    return prefix + ":" + hashlib.blake2b(request.build_absolute_uri().encode(), digest_size=16).hexdigest()


def forget_all(**_) -> None:
    """Start a new generation once the current transaction commits (a signal receiver, hence ``**_``)."""
    transaction.on_commit(lambda: cache.set(GENERATION, time.time_ns(), None))


def _may_share(request, audience: str) -> bool:
    """Only JSON in the default form is kept (the browsable API and ``indent=`` are rendered each time)."""
    if request.accepted_media_type != "application/json" or request.accepted_renderer.format != "json":
        return False
    user = request.user
    return audience != ANONYMOUS or not user.is_authenticated


def _key(name: str, generation) -> str:
    return f"api:public:{generation}:{name}"


def _lookup(name: str) -> tuple[int, Page | None]:
    """The current generation and the page kept under it; one round trip unless the generation moved."""
    seen = _seen["generation"]
    keys = [GENERATION] if seen is None else [GENERATION, _key(name, seen)]
    found = cache.get_many(keys)
    generation = found.get(GENERATION)
    if generation is None:  # first use, or evicted: a fresh value never names an older generation's pages
        cache.add(GENERATION, time.time_ns(), None)
        generation = cache.get(GENERATION)
    _seen["generation"] = generation
    if generation == seen:
        return generation, found.get(_key(name, seen))
    return generation, cache.get(_key(name, generation))


def _answer(request, page: Page) -> HttpResponse:
    """A kept page as its bytes; a page just built (or not to be kept) through DRF's renderers."""
    if page.etag and page.etag in request.headers.get("If-None-Match", ""):
        response = HttpResponseNotModified()
    elif isinstance(page.content, bytes):
        response = HttpResponse(page.content, content_type="application/json")
    else:
        response = Response(page.content)
    if page.etag:
        response["ETag"] = page.etag
    if page.cache_control:
        response["Cache-Control"] = page.cache_control
    return response
