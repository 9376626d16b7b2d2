"""The operator's admin: every model with useful columns, searches and filters, no N+1 on the lists."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import admin as auth_admin
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from api import services
from engines import RefereeError
from engines.core import Termination
from ops.admin.paging import LargeTableAdmin
from ops.dashboard import dashboard_view
from tournaments import services as app_services
from tournaments.models import Bot, BotVersion, Game, Match, Tournament, TournamentEntrant

admin.site.index_template = "admin/arena/index.html"
admin.site.site_header = "Tabula Arena"
_admin_urls = admin.site.get_urls


def _admin_urls_with_dashboard():
    """/admin/dashboard/ lives inside the admin site, behind its staff login."""
    from django.urls import path


    return [path("dashboard/", admin.site.admin_view(dashboard_view), name="dashboard")] + _admin_urls()


admin.site.get_urls = _admin_urls_with_dashboard


def _run_for_each(modeladmin, request, rows, action, verb: str) -> None:
    """Apply a service to every selected row; report successes and each refusal with its reason."""
    done = 0
    for row in rows:
        try:
            action(row)
        except (ValidationError, RefereeError) as exc:
            text = "; ".join(exc.messages) if isinstance(exc, ValidationError) else str(exc)
            modeladmin.message_user(request, f"{row}: {text}", messages.WARNING)
        else:
            done += 1
    if done:
        modeladmin.message_user(request, f"{verb} {done} of {len(rows)}.", messages.SUCCESS)


class BotVersionInline(admin.TabularInline):
    model = BotVersion
    fk_name = "bot"
    fields = ["number", "filename", "kind", "size", "status", "reject_reason", "is_disabled", "is_active",
              "uploaded_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True


@admin.register(Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ["id", "name", "game", "owner", "is_public", "is_retired", "pinned_version", "version_count",
                    "created_at"]
    list_filter = ["game", "is_public", "is_retired"]
    search_fields = ["name", "owner__username", "description"]
    list_select_related = ["owner", "pinned_version"]
    raw_id_fields = ["owner"]
    # Retiring and pinning cancel queued matches and check the version: actions and the versions' page do them.
    readonly_fields = ["is_retired", "pinned_version"]
    date_hierarchy = "created_at"
    inlines = [BotVersionInline]
    actions = ["retire_bots", "bring_back_bots"]

    @admin.action(description="Retire the selected bots (they leave the ladder; games and ratings stay)")
    def retire_bots(self, request, queryset):
        _run_for_each(self, request, list(queryset), lambda bot: app_services.set_retired(bot, True), "Retired")

    @admin.action(description="Bring the selected bots back from retirement")
    def bring_back_bots(self, request, queryset):
        _run_for_each(self, request, list(queryset), lambda bot: app_services.set_retired(bot, False), "Brought back")

    def delete_model(self, request, bot):
        """Through the service: a bot with rated games or tournament entries is kept, and the admin says why."""
        try:
            app_services.delete_bot(bot)
        except ValidationError as exc:
            self.message_user(request, f"{bot}: {'; '.join(exc.messages)}", messages.ERROR)

    def delete_queryset(self, request, queryset):
        _run_for_each(self, request, list(queryset), app_services.delete_bot, "Deleted")

    def response_delete(self, request, obj_display, obj_id):
        if Bot.objects.filter(pk=obj_id).exists():  # refused: back to the bot, with the reason shown
            from django.http import HttpResponseRedirect
            from django.urls import reverse

            return HttpResponseRedirect(reverse("admin:tournaments_bot_change", args=[obj_id]))
        return super().response_delete(request, obj_display, obj_id)

    def get_queryset(self, request):
        from django.db.models import Count

        return super().get_queryset(request).annotate(_versions=Count("versions"))

    @admin.display(description="versions", ordering="_versions")
    def version_count(self, bot):
        return bot._versions


@admin.register(BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ["id", "bot", "bot_game", "owner", "number", "kind", "size", "status", "is_disabled",
                    "is_active", "short_reason", "uploaded_at"]
    list_filter = ["status", "is_disabled", "is_active", "kind", "bot__game"]
    search_fields = ["bot__name", "bot__owner__username", "sha256", "filename"]
    list_select_related = ["bot__owner"]
    readonly_fields = ["bot", "number", "file", "original", "filename", "kind", "sha256", "size", "uploaded_at",
                       "status", "reject_reason", "checked_at", "is_disabled", "is_active"]
    date_hierarchy = "uploaded_at"
    actions = ["disable_versions", "enable_versions", "deactivate_versions", "activate_versions", "pin_versions",
               "unpin_versions"]

    def has_add_permission(self, request):
        return False  # versions come from uploads, which the services check

    @admin.display(description="game", ordering="bot__game")
    def bot_game(self, version):
        return version.bot.game

    @admin.display(description="owner", ordering="bot__owner__username")
    def owner(self, version):
        return version.bot.owner

    @admin.display(description="reject reason")
    def short_reason(self, version):
        return version.reject_reason[:80]

    @admin.action(description="Disable the selected versions (they stop playing)")
    def disable_versions(self, request, queryset):
        _run_for_each(self, request, list(queryset), services.disable_version, "Disabled")

    @admin.action(description="Enable the selected versions again")
    def enable_versions(self, request, queryset):
        _run_for_each(self, request, list(queryset), services.enable_version, "Enabled")

    @admin.action(description="Deactivate the selected versions (the owner's switch: no new pairings)")
    def deactivate_versions(self, request, queryset):
        _run_for_each(self, request, list(queryset), lambda v: app_services.set_version_active(v, False),
                      "Deactivated")

    @admin.action(description="Activate the selected versions again")
    def activate_versions(self, request, queryset):
        _run_for_each(self, request, list(queryset), lambda v: app_services.set_version_active(v, True), "Activated")

    @admin.action(description="Pin the selected versions: each plays for its bot on the ladder")
    def pin_versions(self, request, queryset):
        _run_for_each(self, request, list(queryset), lambda v: app_services.pin_version(v.bot, v.pk), "Pinned")

    @admin.action(description="Unpin the selected versions' bots: their newest ready version plays")
    def unpin_versions(self, request, queryset):
        _run_for_each(self, request, list(queryset), lambda v: app_services.pin_version(v.bot, None), "Unpinned")


class GameInline(admin.TabularInline):
    model = Game
    fields = ["number", "white", "black", "winner", "reason", "plies", "duration", "white_thinking",
              "black_thinking", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("white__bot", "black__bot")


@admin.register(Match)
class MatchAdmin(LargeTableAdmin, admin.ModelAdmin):
    list_display = ["id", "game", "version_a", "version_b", "status", "rated", "score_a", "score_b",
                    "tournament", "worker_id", "attempts", "heartbeat_at", "created_at"]
    list_filter = ["status", "game", "rated", "created_at"]
    search_fields = ["=id", "version_a__bot__name", "version_b__bot__name", "worker_id", "failure_reason"]
    list_select_related = ["version_a__bot", "version_b__bot", "tournament"]
    # charged_to: empty, a hand-made match is played in the ladder's share; the estimate is create_match's.
    raw_id_fields = ["version_a", "version_b", "tournament", "charged_to"]
    readonly_fields = ["lease_token", "heartbeat_at", "lease_expires_at", "worker_id", "attempts",
                       "started_at", "finished_at", "created_at", "cost_seconds"]
    actions = ["requeue_matches"]
    inlines = [GameInline]

    @admin.action(description="Requeue the selected matches")
    def requeue_matches(self, request, queryset):
        _run_for_each(self, request, list(queryset), services.requeue_by_operator, "Requeued")


class RunnerReasonFilter(admin.SimpleListFilter):
    """Games ended by the runner (timeout, crash, ...): a fixed list, no DISTINCT over the whole table."""

    title = "ended by the runner"
    parameter_name = "runner_reason"

    def lookups(self, request, model_admin):
        return [(t.value, t.value) for t in sorted(Termination) if t.by_runner]

    def queryset(self, request, queryset):
        return queryset.filter(reason=self.value()) if self.value() else queryset


@admin.register(Game)
class GameAdmin(LargeTableAdmin, admin.ModelAdmin):
    list_display = ["id", "match", "number", "white", "black", "winner", "reason", "plies", "duration",
                    "white_thinking", "black_thinking", "created_at"]
    list_filter = ["winner", RunnerReasonFilter, "match__game", "created_at"]
    search_fields = ["=id", "=match__id", "white__bot__name", "black__bot__name"]
    list_select_related = ["match", "white__bot", "black__bot"]
    raw_id_fields = ["match", "white", "black"]


class EntrantInline(admin.TabularInline):
    model = TournamentEntrant
    fields = ["seed", "version", "added_at"]
    readonly_fields = ["added_at"]
    raw_id_fields = ["version"]
    extra = 0


class TournamentForm(forms.ModelForm):
    """A draft's format and its settings pass the checks the API and the site apply (beside each field)."""

    class Meta:
        model = Tournament
        fields = "__all__"  # noqa: DJ007  (the admin shows every column; get_readonly_fields limits them)

    def clean(self):
        data = super().clean()
        if self.instance.pk and self.instance.status != Tournament.Status.DRAFT:
            return data  # its settings are read-only
        try:
            app_services.check_format_settings(
                data.get("format"), data.get("game"), data.get("games_per_pairing") or 0,
                champion=data.get("champion"), seeding=data.get("seeding"),
                tiebreak_pairs=data.get("tiebreak_pairs"), rounds=data.get("rounds"),
                bye_points=data.get("bye_points"), late_entry_points=data.get("late_entry_points"))
        except ValidationError as error:
            for field, texts in error.message_dict.items():
                self.add_error(field if field in self.fields else None, texts)
        return data


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = ["id", "name", "game", "format", "rounds", "organiser", "status", "official", "games_per_pairing",
                    "double_round", "entrant_count", "created_at", "started_at", "finished_at"]
    list_filter = ["status", "format", "game", "official"]
    # Official (rated) is changed by the actions, through the service: a draft only, so that no running
    # tournament has some matches rated and some not.
    readonly_fields = ["official"]
    # Once started, what the pairings were made from stays as it was (a Swiss's rounds, a knockout's seeding).
    FROZEN = ["format", "game", "time_control", "games_per_pairing", "double_round", "rounds", "bye_points",
              "late_entry_points", "champion", "seeding", "tiebreak_pairs"]
    actions = ["mark_official", "mark_unofficial"]
    search_fields = ["name", "organiser__username"]
    list_select_related = ["organiser"]
    raw_id_fields = ["organiser", "champion"]
    fieldsets = [
        (None, {"fields": ["name", "organiser", "game", "status", "official", "time_control", "games_per_pairing",
                           "opening_suite", "tiebreaks", "started_at", "finished_at"]}),
        ("Format", {"fields": ["format", "double_round", "rounds", "bye_points", "late_entry_points", "champion",
                               "seeding", "tiebreak_pairs"],
                    "description": "Round robin: double round. Swiss: rounds, a bye's and a late entrant's missed "
                                   "round's points, seeding. Gauntlet: the champion. Knockout: seeding, tie-break "
                                   "pairs. Editable while a draft."}),
    ]

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.status != Tournament.Status.DRAFT:
            return self.readonly_fields + self.FROZEN
        return self.readonly_fields
    date_hierarchy = "created_at"
    inlines = [EntrantInline]

    def get_queryset(self, request):
        from django.db.models import Count

        return super().get_queryset(request).annotate(_entrants=Count("entrants"))

    @admin.display(description="entrants", ordering="_entrants")
    def entrant_count(self, tournament):
        return tournament._entrants

    @admin.action(description="Mark the selected draft tournaments official (their games are rated)")
    def mark_official(self, request, queryset):
        _run_for_each(self, request, list(queryset),
                      lambda t: app_services.change_tournament(t, request.user, official=True), "Marked official")

    @admin.action(description="Mark the selected draft tournaments unofficial (unrated)")
    def mark_unofficial(self, request, queryset):
        _run_for_each(self, request, list(queryset),
                      lambda t: app_services.change_tournament(t, request.user, official=False), "Marked unofficial")


@admin.register(TournamentEntrant)
class TournamentEntrantAdmin(admin.ModelAdmin):
    list_display = ["id", "tournament", "seed", "version", "added_at"]
    list_filter = ["tournament__game", "tournament__status"]
    search_fields = ["tournament__name", "version__bot__name"]
    list_select_related = ["tournament", "version__bot"]
    raw_id_fields = ["tournament", "version"]


class _UnlikeName:
    """The admin's user forms refuse a name too like another user's, beside the field (the database would
    refuse it anyway, PlayerName's unique key, but as an error page)."""

    def clean_username(self):
        username = super().clean_username() if hasattr(super(), "clean_username") else self.cleaned_data["username"]
        if not username or self.has_error("username"):
            return username  # already refused (empty, or the same name in another case)
        try:
            app_services.check_user_name(username, self.instance.pk)
        except ValidationError as error:
            raise forms.ValidationError(error.message_dict["username"]) from None
        return username


class UserCreationForm(_UnlikeName, auth_forms.AdminUserCreationForm):
    pass


class UserChangeForm(_UnlikeName, auth_forms.UserChangeForm):
    pass


admin.site.unregister(get_user_model())


@admin.register(get_user_model())
class UserAdmin(auth_admin.UserAdmin):
    form = UserChangeForm
    add_form = UserCreationForm
