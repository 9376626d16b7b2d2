"""Cursor pagination for the large tables (matches, games): stable under inserts, O(page) at any depth."""

from django.core.exceptions import ValidationError
from rest_framework.pagination import CursorPagination, PageNumberPagination


def _bounded_int(request, name: str, maximum: int) -> int | None:
    """The query parameter ``name`` as an integer in 1..maximum; None when absent; a 400 otherwise."""
    raw = request.query_params.get(name)
    if raw is None:
        return None
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= maximum:
        raise ValidationError({name: [f"must be a whole number from 1 to {maximum}"]})
    return int(raw)


PAGE_FIELDS = {
    "count": "How many rows there are in all, on every page.",
    "next": "The address of the next page; null on the last.",
    "previous": "The address of the previous page; null on the first.",
    "results": "This page's rows.",
}


class StrictPageSize:
    page_size_query_param = "page_size"

    def get_page_size(self, request):
        return _bounded_int(request, self.page_size_query_param, self.max_page_size) or self.page_size

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        for name, prop in paginated["properties"].items():
            prop["description"] = PAGE_FIELDS[name]
        return paginated

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_size_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page_size)
                parameter["description"] = (f"Rows per page, from 1 to {self.max_page_size} "
                                            f"(default {self.page_size}).")
            elif parameter["name"] == getattr(self, "cursor_query_param", None):
                parameter["description"] = ("The page to read: an opaque value taken from a previous page's "
                                            "`next` or `previous` link; a value not made here is a 404.")
        return parameters


class NewestFirstCursor(StrictPageSize, CursorPagination):
    ordering = ("-created_at", "-id")
    page_size = 25  # a page of matches is serialized with both versions' bots: keep the default page short
    max_page_size = 200


class SmallPages(StrictPageSize, PageNumberPagination):
    page_size = 50
    max_page_size = 200
    max_page = 2**31 - 1  # any page past the last is a 404; a number beyond this is bad input
    last_page_strings = ()  # the schema says an integer: "last" is not one

    def get_page_number(self, request, paginator):
        return _bounded_int(request, self.page_query_param, self.max_page) or 1

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_page)
                parameter["description"] = "The page to read, from 1; a page past the last is a 404."
        return parameters


class NewestChangeFirstCursor(StrictPageSize, CursorPagination):
    """A bot's rating history, newest game first; no COUNT over thousands of changes."""

    ordering = ("-played_id",)
    page_size = 100
    max_page_size = 500
