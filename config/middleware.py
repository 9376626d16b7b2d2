"""Middleware of the whole site (pages, API, admin): a bound on request bodies, the Content-Security-Policy, and
the API's JSON 404 where Django would answer its own HTML page."""

from __future__ import annotations

from django.conf import settings
from django.http import JsonResponse

from api.exceptions import api_not_found


class BodyLimitMiddleware:
    """Refuses a request body larger than ``REQUEST_MAX_BYTES`` before anything reads it.

    First in MIDDLEWARE: the CSRF check reads ``request.POST``, which parses a multipart body and spools its
    files to disk, so an anonymous 1 GiB POST was written out before being refused. Here only the declared
    Content-Length is looked at (413). A chunked body declares none; Django's WSGI handler would read it as empty
    anyway, so it is refused outright (411) rather than silently dropped.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        limit = settings.REQUEST_MAX_BYTES
        declared = request.META.get("CONTENT_LENGTH") or ""
        if "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower() and not declared:
            return _refuse(411, f"a request body must declare its Content-Length (at most {limit} bytes); "
                                "chunked bodies are not accepted")
        if declared:
            try:
                size = int(declared)
            except ValueError:
                return _refuse(400, f"Content-Length must be a number of bytes, got {declared[:40]!r}")
            if size > limit:
                return _refuse(413, f"the request body is {size} bytes; the limit is {limit} bytes "
                                    "(the largest upload allowed, with room for the form around it)")
        return self.get_response(request)


def _refuse(status: int, detail: str) -> JsonResponse:
    # Connection: close, so that a client still sending its body does not have it read as the next request.
    return JsonResponse({"detail": detail}, status=status, headers={"Connection": "close"})


class ContentSecurityPolicyMiddleware:
    """Sends ``CONTENT_SECURITY_POLICY`` with every response: scripts and styles only from the site's own files
    (no inline script, no inline style, no eval), so an injected tag runs nothing. Library pages that need inline
    code get theirs from ``CONTENT_SECURITY_POLICY_BY_PATH``. One fixed header per page needs no nonces, hence no
    library; a response that set its own policy keeps it."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        policy = settings.CONTENT_SECURITY_POLICY
        if policy:
            path = request.path_info
            policy = next((special for prefix, special in settings.CONTENT_SECURITY_POLICY_BY_PATH.items()
                           if path.startswith(prefix)), policy)
            response.headers.setdefault("Content-Security-Policy", policy)
        return response


class ApiNotFoundMiddleware:
    """An /api/ address no route matches (an id beyond the database's range, ``/api/bots/9223372036854775808/``,
    a misspelt path) is a 404 in the API's error shape, whatever DEBUG says: ``handler404`` (config/urls.py) only
    serves with DEBUG off, and with DEBUG on Django answers its HTML debug page where the schema promises JSON.
    Only an HTML 404 is replaced: the API's own 404s are JSON already and say more."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (response.status_code == 404 and request.path_info.startswith("/api/")
                and response.get("Content-Type", "").startswith("text/html")):
            return api_not_found(request)
        return response
