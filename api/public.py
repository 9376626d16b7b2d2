"""Public reads answered from the cache as rendered JSON: what many readers see alike is queried, serialized and
rendered once, then served as stored bytes (no query, no serializer, no renderer) until it expires."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from django.core.cache import cache
from django.db import transaction
from django.http import HttpResponse, HttpResponseNotModified
from rest_framework.response import Response

from engines import GAME_IDS
from knobs.cache import CACHE_DOWN, keep
from tournaments.selectors import is_insider

log = logging.getLogger(__name__)

LIVE_SECONDS = 5
RECORD_SECONDS = 24 * 3600
GENERATION = "api:public:generation"
HOME = "home"  # the site's home page: top bots, matches being played, recent results, open tournaments
MATCHES = "matches"  # the lists of matches and games

EVERYONE, OUTSIDERS, ANONYMOUS = "everyone", "outsiders", "anonymous"


@dataclass(frozen=True)
class Page:
    """What a view builds on a miss: its data (once kept, the data rendered as JSON bytes), whether every reader
    of the audience may share it, and for OUTSIDERS the owners of the bots it shows."""

    content: object
    shareable: bool = True
    owners: tuple[int, ...] = ()
    etag: str = ""
    cache_control: str = ""


# This process's last generation, and per set of scopes their last stamps: a hit costs one cache round trip.
_seen: dict = {"generation": None}


def bot_scope(bot_id: int) -> str:
    return f"bot:{int(bot_id)}"


def leaderboard_scope(game: str) -> str:
    return f"leaderboard:{game if game in GAME_IDS else '-'}"  # an unknown game's 404 is never kept


def serve(request, name: str, audience: str, seconds: int, build: Callable[[], Page],
          scopes: tuple[str, ...] = ()) -> HttpResponse:
    """The page ``name`` (unique per URL and audience) from the cache, or built, rendered and kept until it
    expires, the generation moves or one of its ``scopes`` is forgotten."""
    if not _may_share(request, audience):
        return _answer(request, build())
    try:
        generation, page = _lookup(name, scopes)
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
    keep(_key(name, generation), page, seconds)
    return _answer(request, page)


def url_name(request, prefix: str) -> str:
    """A page name for the whole URL, host included (pages link to themselves)."""
    return prefix + ":" + hashlib.blake2b(request.build_absolute_uri().encode(), digest_size=16).hexdigest()


def forget_all(**_) -> None:
    """Start a new generation once the current transaction commits (a signal receiver, hence ``**_``)."""
    transaction.on_commit(lambda: cache.set(GENERATION, time.time_ns(), None))


def forget(*scopes: str) -> None:
    """New stamps for these scopes: every kept page that shows one of them is rebuilt at its next read. Called
    after the change committed (a reaction); a cache that does not answer is logged (pages then lag by at most
    LIVE_SECONDS, as they expire)."""
    if not scopes:
        return
    now = time.time_ns()
    try:
        cache.set_many({_scope_key(scope): now for scope in scopes}, SCOPE_SECONDS)
    except CACHE_DOWN as error:
        log.warning("public pages: could not forget %s (%s)", scopes, error)


# A scope's stamp outlives by far every page that carries it (live pages, LIVE_SECONDS). A scope never forgotten
# reads as stamp 0, so reads never write (a read of any bot id, real or not, adds no key to the cache).
SCOPE_SECONDS = RECORD_SECONDS


def _scope_key(scope: str) -> str:
    return f"api:public:scope:{scope}"


def stamp(scopes: tuple[str, ...], found: dict) -> str:
    """The scopes' current stamps as one string for a page key, from ``found`` (a get_many that asked for
    their keys)."""
    return ".".join(str(found.get(_scope_key(scope), 0)) for scope in scopes)


def scope_keys(scopes: tuple[str, ...]) -> list[str]:
    return [_scope_key(scope) for scope in scopes]


def _may_share(request, audience: str) -> bool:
    """Only JSON in the default form is kept (the browsable API and ``indent=`` are rendered each time)."""
    if request.accepted_media_type != "application/json" or request.accepted_renderer.format != "json":
        return False
    user = request.user
    return audience != ANONYMOUS or not user.is_authenticated


def _key(name: str, generation) -> str:
    return f"api:public:{generation}:{name}"


def _lookup(name: str, scopes: tuple[str, ...] = ()) -> tuple[str, Page | None]:
    """The current generation (with the scopes' stamps) and the page kept under it; one round trip unless
    they moved since this process last read them."""
    seen = _seen["generation"]
    guess = f"{seen}:{_seen.get(scopes, '')}" if scopes else seen
    keys = [GENERATION, *scope_keys(scopes)] + ([] if seen is None else [_key(name, guess)])
    found = cache.get_many(keys)
    generation = found.get(GENERATION)
    if generation is None:  # first use, or evicted: a fresh value never names an older generation's pages
        cache.add(GENERATION, time.time_ns(), None)
        generation = cache.get(GENERATION)
    _seen["generation"] = generation
    current = generation
    if scopes:
        stamps = stamp(scopes, found)
        if len(_seen) > SEEN_MOST:  # one entry per scope set: bounded by the bots read, kept bounded anyway
            _seen.clear()
            _seen["generation"] = generation
        _seen[scopes] = stamps
        current = f"{generation}:{stamps}"
    if current == guess:
        return current, found.get(_key(name, guess))
    return current, cache.get(_key(name, current))


SEEN_MOST = 10_000


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
