"""Query-string filters for the list endpoints (django-filter)."""

from __future__ import annotations

import django_filters as filters
from django import forms
from django.db.models import Q

from tournaments.models import GAME_CHOICES, Bot, BotVersion, Game, Match, Tournament

MAX_ID = 2**63 - 1  # the largest id a database column holds; larger ones are bad input, not a crash


class IdField(forms.IntegerField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class IdFilter(filters.NumberFilter):
    field_class = IdField


def versions_of_bot(bot_id: int) -> list[int]:
    return list(BotVersion.objects.filter(bot_id=bot_id).values_list("id", flat=True))


class BotFilter(filters.FilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES)
    owner = IdFilter(field_name="owner_id")
    owner_name = filters.CharFilter(field_name="owner__username")
    name = filters.CharFilter(lookup_expr="icontains")

    class Meta:
        model = Bot
        fields = ["game", "owner", "owner_name", "name", "is_public", "is_retired"]


class BotVersionFilter(filters.FilterSet):
    status = filters.ChoiceFilter(choices=BotVersion.Status.choices)

    class Meta:
        model = BotVersion
        fields = ["status", "is_disabled", "is_active"]


class MatchFilter(filters.FilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES)
    status = filters.ChoiceFilter(choices=Match.Status.choices)
    tournament = IdFilter(field_name="tournament_id")
    bot = IdFilter(method="filter_bot", label="Matches in which this bot played")
    version = IdFilter(method="filter_version", label="Matches in which this version played")
    created_after = filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = Match
        fields = ["game", "status", "rated", "tournament", "bot", "version", "created_after", "created_before"]

    def filter_bot(self, queryset, name, value):
        # The bot's few version ids first: then two indexed id lookups, not an OR across joins.
        ids = versions_of_bot(value)
        return queryset.filter(Q(version_a_id__in=ids) | Q(version_b_id__in=ids))

    def filter_version(self, queryset, name, value):
        return queryset.filter(Q(version_a_id=value) | Q(version_b_id=value))


class GameFilter(filters.FilterSet):
    game = filters.ChoiceFilter(field_name="match__game", choices=GAME_CHOICES)
    match = IdFilter(field_name="match_id")
    winner = filters.ChoiceFilter(choices=Game._meta.get_field("winner").choices)
    reason = filters.CharFilter()
    bot = IdFilter(method="filter_bot", label="Games in which this bot played")
    created_after = filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="gte")
    created_before = filters.IsoDateTimeFilter(field_name="created_at", lookup_expr="lt")

    class Meta:
        model = Game
        fields = ["game", "match", "winner", "reason", "bot", "created_after", "created_before"]

    def filter_bot(self, queryset, name, value):
        ids = versions_of_bot(value)
        return queryset.filter(Q(white_id__in=ids) | Q(black_id__in=ids))


class TournamentFilter(filters.FilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES)
    status = filters.ChoiceFilter(choices=Tournament.Status.choices)
    organiser = IdFilter(field_name="organiser_id")

    class Meta:
        model = Tournament
        fields = ["game", "status", "organiser", "rated"]
