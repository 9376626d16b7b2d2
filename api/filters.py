"""Query-string filters for the list endpoints (django-filter), strict: a value the schema does not allow (an id
below 1, ``rated=maybe``, an empty ``game=``) is a 400 naming the parameter, never quietly ignored."""

from __future__ import annotations

import datetime

import django_filters as filters
from django import forms
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django_filters.fields import IsoDateTimeField
from drf_spectacular.utils import extend_schema_field
from rest_framework.filters import OrderingFilter

from tournaments.models import GAME_CHOICES, Bot, BotVersion, Game, Match, Tournament

MAX_ID = 2**63 - 1  # the largest id a database column holds; larger ones are bad input, not a crash


class IdField(forms.IntegerField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class IdFilter(filters.NumberFilter):
    field_class = IdField

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # An id in the schema (django-filter's number would say any float), with the label as its description.
        extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID, "description": self.label})(self)


class TrueOrFalseField(forms.Field):
    """``true`` or ``false``, as the schema's boolean is written in a query; anything else is refused
    (django-filter's own boolean reads an unknown word as "no filter")."""

    widget = forms.TextInput
    WORDS = {"true": True, "false": False}

    def to_python(self, value):
        if value in (None, ""):
            return None
        if value not in self.WORDS:
            raise ValidationError("must be true or false")
        return self.WORDS[value]


class TextFilter(filters.CharFilter):
    """Free text; a NUL is refused (Django's form field does), and the schema says so."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        extend_schema_field({"type": "string", "pattern": "^[^\\x00]*$", "description": self.label})(self)


class BooleanFilter(filters.BooleanFilter):
    field_class = TrueOrFalseField


class MomentField(IsoDateTimeField):
    """An ISO 8601 moment, turned to UTC here: PostgreSQL refuses offsets beyond ±15:59 that Python reads, and
    a moment past year 9999 once in UTC is bad input, not a crash."""

    def to_python(self, value):
        moment = super().to_python(value)
        if moment is None or moment.tzinfo is None:
            return moment
        try:
            return moment.astimezone(datetime.UTC)
        except OverflowError:
            raise ValidationError("must be a moment between the years 1 and 9999") from None


class MomentFilter(filters.IsoDateTimeFilter):
    field_class = MomentField


class StrictFilterSet(filters.FilterSet):
    """A parameter given empty (``?game=``) is refused unless it is free text, where empty is a value."""

    FILTER_DEFAULTS = {**filters.FilterSet.FILTER_DEFAULTS, models.BooleanField: {"filter_class": BooleanFilter}}

    def is_valid(self):
        valid = super().is_valid()
        for name, filter_ in self.filters.items():
            if name in self.data and self.data.get(name) == "" and not isinstance(filter_, filters.CharFilter):
                self.form.add_error(name, "must not be empty")
                valid = False
        return valid


class StrictOrdering(OrderingFilter):
    """DRF's ordering, but an unknown field is a 400 (DRF drops it in silence), and the schema lists the
    allowed values (each field, or ``-field`` for descending; several joined by commas)."""

    def get_ordering(self, request, queryset, view):
        if self.ordering_param not in request.query_params:
            return self.get_default_ordering(view)
        terms = request.query_params[self.ordering_param].split(",")
        valid = {name for name, _ in self.get_valid_fields(queryset, view, {"request": request})}
        if len(set(terms)) != len(terms) or not all(term.removeprefix("-") in valid for term in terms):
            allowed = ", ".join(sorted(valid))
            raise ValidationError({self.ordering_param: [
                f"order by one or more of {allowed} (each once, -field for descending), joined by commas"]})
        return terms

    def get_schema_operation_parameters(self, view):
        fields = list(getattr(view, "ordering_fields", None) or [])
        return [{
            "name": self.ordering_param, "required": False, "in": "query", "style": "form", "explode": False,
            "description": "Sort by these fields, in order; `-field` sorts descending.",
            "schema": {"type": "array", "items": {"type": "string", "enum": fields + [f"-{f}" for f in fields]},
                       "minItems": 1, "uniqueItems": True},
        }]


def versions_of_bot(bot_id: int) -> list[int]:
    return list(BotVersion.objects.filter(bot_id=bot_id).values_list("id", flat=True))


AFTER_LABEL = "Only those created at or after this moment (ISO 8601)."
BEFORE_LABEL = "Only those created before this moment (ISO 8601)."


class BotFilter(StrictFilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES, label="Only bots of this game.")
    owner = IdFilter(field_name="owner_id", label="Only bots of the player with this id.")
    owner_name = TextFilter(field_name="owner__username", label="Only bots of the player with this user name.")
    name = TextFilter(lookup_expr="icontains", label="Only bots whose name contains this, in any case.")
    is_public = BooleanFilter(label="Only public bots (true) or only private ones, which only their owner sees "
                                    "(false).")
    is_retired = BooleanFilter(label="Only bots their owner retired (true), or only those on the ladder (false).")

    class Meta:
        model = Bot
        fields = ["game", "owner", "owner_name", "name", "is_public", "is_retired"]


class BotVersionFilter(StrictFilterSet):
    status = filters.ChoiceFilter(choices=BotVersion.Status.choices, label="Only versions in this status.")
    is_disabled = BooleanFilter(label="Only versions an operator disabled (true), or only the others (false).")
    is_active = BooleanFilter(label="Only versions their owner keeps active (true), or only deactivated ones (false).")

    class Meta:
        model = BotVersion
        fields = ["status", "is_disabled", "is_active"]


class MatchFilter(StrictFilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES, label="Only matches of this game.")
    status = filters.ChoiceFilter(choices=Match.Status.choices, label="Only matches in this status.")
    rated = BooleanFilter(label="Only rated matches (true) or only unrated ones (false).")
    tournament = IdFilter(field_name="tournament_id", label="Only matches of the tournament with this id.")
    bot = IdFilter(method="filter_bot", label="Only matches in which the bot with this id played.")
    version = IdFilter(method="filter_version", label="Only matches in which the version with this id played.")
    created_after = MomentFilter(field_name="created_at", lookup_expr="gte", label=AFTER_LABEL)
    created_before = MomentFilter(field_name="created_at", lookup_expr="lt", label=BEFORE_LABEL)

    class Meta:
        model = Match
        fields = ["game", "status", "rated", "tournament", "bot", "version", "created_after", "created_before"]

    def filter_bot(self, queryset, name, value):
        # The bot's few version ids first: then two indexed id lookups, not an OR across joins.
        ids = versions_of_bot(value)
        return queryset.filter(Q(version_a_id__in=ids) | Q(version_b_id__in=ids))

    def filter_version(self, queryset, name, value):
        return queryset.filter(Q(version_a_id=value) | Q(version_b_id=value))


class GameFilter(StrictFilterSet):
    game = filters.ChoiceFilter(field_name="match__game", choices=GAME_CHOICES, label="Only games of this game.")
    match = IdFilter(field_name="match_id", label="Only games of the match with this id.")
    tournament = IdFilter(field_name="match__tournament_id", label="Only games of the tournament with this id.")
    winner = filters.ChoiceFilter(choices=Game._meta.get_field("winner").choices,
                                  label="Only games won by this side (`none`: drawn).")
    reason = TextFilter(label="Only games that ended this way, e.g. `timeout`.")
    bot = IdFilter(method="filter_bot", label="Only games in which the bot with this id played.")
    created_after = MomentFilter(field_name="created_at", lookup_expr="gte", label=AFTER_LABEL)
    created_before = MomentFilter(field_name="created_at", lookup_expr="lt", label=BEFORE_LABEL)

    class Meta:
        model = Game
        fields = ["game", "match", "tournament", "winner", "reason", "bot", "created_after", "created_before"]

    def filter_bot(self, queryset, name, value):
        ids = versions_of_bot(value)
        return queryset.filter(Q(white_id__in=ids) | Q(black_id__in=ids))


class TournamentFilter(StrictFilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES, label="Only tournaments of this game.")
    status = filters.ChoiceFilter(choices=Tournament.Status.choices, label="Only tournaments in this status.")
    organiser = IdFilter(field_name="organiser_id", label="Only tournaments organised by the player with this id.")
    official = BooleanFilter(label="Only official (rated) tournaments (true) or only players' unrated ones (false).")

    class Meta:
        model = Tournament
        fields = ["game", "status", "organiser", "official"]
