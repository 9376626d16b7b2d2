"""Opening suites in the admin: the suites and their openings, read only (the generator makes them); an opening is
retired or brought back through the balance service's actions."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, Q
from django.urls import reverse
from django.utils.html import format_html

from tournaments.models import Opening, OpeningSuite
from tournaments.services.openings_balance import set_opening_retired


class ReadOnly:
    """Rows the generator (the suite) or the balance rule (retirement) writes, never a form."""

    def has_add_permission(self, request, obj=None):
        return False

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]


@admin.register(OpeningSuite)
class OpeningSuiteAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["id", "name", "game", "ruleset", "plies", "ladder", "opening_count", "retired_count", "balance",
                    "created_at"]
    list_filter = ["game", "ladder"]
    search_fields = ["name"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(
            _openings=Count("openings"), _retired=Count("openings", filter=Q(openings__retired_at__isnull=False)))

    @admin.display(description="openings", ordering="_openings")
    def opening_count(self, suite):
        return suite._openings

    @admin.display(description="retired", ordering="_retired")
    def retired_count(self, suite):
        return suite._retired

    @admin.display(description="balance page")
    def balance(self, suite):
        return format_html('<a href="{}">balance</a>', reverse("web:opening-suite", args=[suite.game, suite.name]))


@admin.register(Opening)
class OpeningAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["id", "suite", "number", "is_retired", "retired_at", "retired_reason"]
    list_filter = ["suite__game", "suite", ("retired_at", admin.EmptyFieldListFilter)]
    search_fields = ["suite__name", "position", "retired_reason"]
    list_select_related = ["suite"]
    actions = ["retire_openings", "bring_back_openings"]

    @admin.display(description="retired", boolean=True, ordering="retired_at")
    def is_retired(self, opening):
        return opening.retired_at is not None

    @admin.action(description="Retire the selected openings (never dealt again; their games stay)")
    def retire_openings(self, request, queryset):
        self._set_retired(request, queryset, True, "Retired")

    @admin.action(description="Bring the selected openings back (dealt again; the balance rule may retire them "
                              "again after their next match)")
    def bring_back_openings(self, request, queryset):
        self._set_retired(request, queryset, False, "Brought back")

    def _set_retired(self, request, queryset, retired: bool, verb: str) -> None:
        openings = list(queryset)
        for opening in openings:
            set_opening_retired(opening, retired)
        self.message_user(request, f"{verb} {len(openings)} opening(s).", messages.SUCCESS)
