"""Hot reads as plain rows: exactly the JSON the serializers give, without a model instance and a tree of
serializer fields per row (a page of 25 matches through ``MatchSerializer`` spends most of its time in DRF's
field machinery, not in the database)."""

from __future__ import annotations

from operator import attrgetter, itemgetter

from django.utils import timezone
from rest_framework import serializers as drf

from ratings import selectors as ratings_selectors
from tournaments.selectors import is_insider

from . import serializers


def when(value, zone=None) -> str | None:
    """What DRF's DateTimeField answers for a stored (aware) datetime: ISO 8601 in the current time zone
    (``zone``, if the caller looked it up already), UTC written as Z; without its per-value format and settings
    look-ups."""
    if value is None:
        return None
    text = value.astimezone(zone or timezone.get_current_timezone()).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


# Fields whose JSON is the stored value itself (DRF only casts it to the type it already has). Any other kind
# (a DecimalField is a string in JSON, a ListField converts each item) must be computed by the caller.
AS_STORED = (drf.IntegerField, drf.FloatField, drf.CharField, drf.BooleanField, drf.ChoiceField,
             drf.PrimaryKeyRelatedField)


def rows_of(serializer_class, computed=()):
    """(columns, row) for ``serializer_class`` read from ``.values(*columns)`` dicts: each field's source
    ``bot.owner.username`` is the column ``bot__owner__username``, a related id ``match`` is ``match_id``, a
    nested serializer's fields are columns under its prefix. ``computed`` names the fields the caller gives:
    ``row(values, **computed)``."""
    return _builder(serializer_class().fields, computed, "__", itemgetter)


def objects_of(serializer_class, computed=()):
    """(attribute paths, row) for ``serializer_class`` read from model instances, whose related objects are
    loaded (``owner.username`` is read as that attribute path); otherwise as ``rows_of``."""
    return _builder(serializer_class().fields, computed, ".", attrgetter)


def _builder(fields, computed, joint: str, getter, prefix=()):
    names, own, times, nests, columns = [], [], [], [], []
    for name, field in fields.items():
        if name in computed:
            continue
        path = [*prefix, *field.source_attrs]
        if isinstance(field, drf.PrimaryKeyRelatedField):
            path[-1] += "_id"  # the id the row holds: no join
        if isinstance(field, drf.Serializer) and not field.allow_null:
            nested_columns, nested = _builder(field.fields, (), joint, getter, tuple(path))
            columns += nested_columns
            nests.append((name, nested))
        elif isinstance(field, (drf.DateTimeField, *AS_STORED)):
            names.append(name)
            own.append(joint.join(path))
            columns.append(own[-1])
            if isinstance(field, drf.DateTimeField):
                times.append(name)
        else:
            raise TypeError(f"{type(field).__name__} {name!r} has no row form: name it in computed")
    read = _reader(getter, own)
    # The serializer's field order, which the JSON keeps: the nested and computed fields get their place first.
    order = None if names == list(fields) else tuple(fields)

    def row(values, **given):
        if order is None:
            out = dict(zip(names, read(values)))
        else:
            out = dict.fromkeys(order)
            out.update(zip(names, read(values)))
        if times:
            zone = timezone.get_current_timezone()  # once a row: the look-up costs more than the conversion
            for name in times:
                out[name] = when(out[name], zone)
        for name, nested in nests:
            out[name] = nested(values)
        out.update(given)
        return out

    return tuple(dict.fromkeys(columns)), row


def _reader(getter, columns):
    """A function giving the columns' values as a tuple (``itemgetter`` of one column gives a bare value)."""
    if len(columns) == 1:
        one = getter(columns[0])
        return lambda values: (one(values),)
    return getter(*columns) if columns else (lambda values: ())


MATCH_COLUMNS, match_row = rows_of(serializers.MatchSerializer)
GAME_COLUMNS, game_row = rows_of(serializers.GameBriefSerializer)
RATING_CHANGE_COLUMNS, rating_change_row = rows_of(serializers.RatingChangeSerializer)
LEADERBOARD_COLUMNS, _leaderboard_row = rows_of(serializers.LeaderboardEntrySerializer,
                                                computed=serializers.FittedFields.FIELDS)
# The fitted rating of each row's bot, annotated by ``ratings.selectors.leaderboard``.
LEADERBOARD_COLUMNS += tuple(f"board_{name}" for name in ratings_selectors.BOARD_FIELDS)


def leaderboard_row(row: dict, fit) -> dict:
    """A ``leaderboard`` row with its bot's board fields; ``fit`` is the game's latest RatingFit (or None)."""
    return _leaderboard_row(row, **ratings_selectors.fitted_summary(ratings_selectors.board_fitted(row), fit))


_, _bot_row = objects_of(serializers.BotDetailSerializer, computed=("versions", "rating"))
_, _version_row = objects_of(serializers.BotVersionSerializer,
                             computed=("reject_reason", "reject_stderr", "sprt", "fitted"))
_, _rating_row = objects_of(serializers.BotRatingSerializer, computed=serializers.FittedFields.FIELDS)


def bot_detail(bot, user) -> dict:
    """From a bot with its versions and ratings prefetched; the rejection reasons are shown to the owner and
    staff only, decided once for the bot rather than per version."""
    insider = is_insider(user, bot.owner_id)
    rating = ratings_selectors.own_rating(bot)
    fit, fitted = ratings_selectors.bot_fit(bot) if rating else (None, None)
    versions = [_version_row(v, reject_reason=v.reject_reason if insider else "",
                             reject_stderr=v.reject_stderr if insider else "",
                             sprt=version_test_row(serializers.latest_test(v)),
                             fitted=serializers.version_fit_row(v)) for v in bot.versions.all()]
    return _bot_row(bot, versions=versions, rating=None if rating is None else _rating_row(
        rating, **ratings_selectors.fitted_summary(fitted, fit)))


def version_test_row(test) -> dict | None:
    """The VersionTestSerializer shape of a version's latest SPRT, or None."""
    return None if test is None else serializers.VersionTestSerializer(test).data
