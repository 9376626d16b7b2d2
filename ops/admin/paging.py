"""Counting the tables that grow with every match (matches, games, rating changes) for the admin's lists."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.db import connections
from django.utils.functional import cached_property


class LargeTablePaginator(Paginator):
    """Django's paginator, except for the unfiltered list of a large table on PostgreSQL: that is counted from
    the planner's estimate (``pg_class.reltuples``, kept by autovacuum), since ``COUNT(*)`` reads every row
    (seconds at ten million games) for a number the operator reads as "about". A filtered or searched list, a
    table below ``EXACT_BELOW`` rows and SQLite are counted exactly."""

    EXACT_BELOW = 100_000

    @cached_property
    def count(self) -> int:
        queryset = self.object_list
        if hasattr(queryset, "query") and not queryset.query.where:
            connection = connections[queryset.db]
            if connection.vendor == "postgresql":
                with connection.cursor() as cursor:
                    cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass",
                                   [queryset.model._meta.db_table])
                    row = cursor.fetchone()
                if row and row[0] >= self.EXACT_BELOW:
                    return int(row[0])
        return super().count


class LargeTableAdmin:
    """For a table that grows with every match: one count a page (not Django's second, of the whole table) and
    that one estimated when the list is unfiltered."""

    paginator = LargeTablePaginator
    show_full_result_count = False
