"""Query parameters, strict: a parameter an endpoint does not read is a 400 naming it. Ignored, a misspelt or
unsupported filter (``/api/games/?tournamnet=5``) answered the whole list as if it had applied."""

from __future__ import annotations

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import SAFE_METHODS
from rest_framework.settings import api_settings

FORMAT = api_settings.URL_FORMAT_OVERRIDE  # "format"
PAGE_PARAMETERS = ("page_query_param", "page_size_query_param", "cursor_query_param")


class FormatChoice(DefaultContentNegotiation):
    """``?format=`` picks one of the view's renderers; an unknown one is bad input, named."""

    def filter_renderers(self, renderers, format):
        chosen = [renderer for renderer in renderers if renderer.format == format]
        if not chosen:
            known = ", ".join(sorted({renderer.format for renderer in renderers}))
            raise ValidationError({FORMAT: [f"unknown format {format!r}: this endpoint answers in {known}"]})
        return chosen


class KnownQueryParameters:
    """Refuses, with one 400 naming each, the query parameters the endpoint does not read (see the module)."""

    content_negotiation_class = FormatChoice
    extra_query_parameters: dict[str, frozenset[str]] = {}  # action -> names its own code reads on a GET

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        method = request.method.lower()
        if method not in self.http_method_names or not hasattr(self, method):
            return  # the method is not allowed here: dispatch answers its 405, which says more
        known = self.known_query_parameters()
        unknown = sorted(set(request.query_params) - known)
        if unknown:
            reads = ", ".join(sorted(known - {FORMAT})) or "no query parameter"
            raise ValidationError({name: [f"unknown query parameter: this endpoint reads {reads}"]
                                   for name in unknown})

    def known_query_parameters(self) -> set[str]:
        known = {FORMAT}
        action = getattr(self, "action", None)
        if self.request.method not in SAFE_METHODS or action == "retrieve":
            return known
        known |= self.extra_query_parameters.get(action, frozenset())
        for backend in getattr(self, "filter_backends", ()):
            if issubclass(backend, DjangoFilterBackend) and getattr(self, "filterset_class", None) is not None:
                known |= set(self.filterset_class.base_filters)
            elif issubclass(backend, OrderingFilter):
                known.add(backend.ordering_param)
        paginator = self.paginator if hasattr(self, "pagination_class") else None
        if paginator is not None:
            known |= {getattr(paginator, name) for name in PAGE_PARAMETERS if getattr(paginator, name, None)}
        return known
