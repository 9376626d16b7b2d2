"""Cursor pagination for the large tables (matches, games): stable under inserts, O(page) at any depth."""

from rest_framework.pagination import CursorPagination, PageNumberPagination


class NewestFirstCursor(CursorPagination):
    ordering = ("-created_at", "-id")
    page_size = 25  # a page of matches is serialized with both versions' bots: keep the default page short
    page_size_query_param = "page_size"
    max_page_size = 200


class SmallPages(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class NewestChangeFirstCursor(CursorPagination):
    """A bot's rating history, newest game first; no COUNT over thousands of changes."""

    ordering = ("-played_id",)
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 500
