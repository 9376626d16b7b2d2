"""The opening suites' endpoints, read-only and public: each suite, and one suite's balance opening by opening."""

from __future__ import annotations

import django_filters as filters
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, viewsets
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from tournaments.models import GAME_CHOICES, OpeningSuite
from tournaments.openings_balance import suite_balance
from tournaments.selectors import opening_suites

from .filters import StrictFilterSet
from .pagination import SmallPages
from .queries import KnownQueryParameters
from .serializers import GAME_HELP, ID_HELP
from .views import ID_REGEX, NoListFiltersOnDetail

FIRST = ("The side to move in the opening's position: it moves first in both games of each pair (white from the "
         "game's own start; black when the opening hands black the move).")


class OpeningSuiteSerializer(serializers.ModelSerializer):
    openings = serializers.IntegerField(source="opening_count", read_only=True, help_text="Openings in the suite.")
    retired = serializers.IntegerField(source="retired_count", read_only=True,
                                       help_text="Openings retired as one-sided (never dealt again).")

    class Meta:
        model = OpeningSuite
        fields = ["id", "game", "ruleset", "name", "seed", "plies", "ladder", "openings", "retired", "created_at"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": ID_HELP}, "game": {"help_text": GAME_HELP},
            "ruleset": {"help_text": "The referee's ruleset the positions were made with."},
            "name": {"help_text": "The suite's name, unique within its game."},
            "seed": {"help_text": "The random seed that reproduces the suite."},
            "plies": {"help_text": "Random legal plies (placements in Fidchell) from the start to each opening."},
            "ladder": {"help_text": "The suite the ranked ladder plays this game with."},
            "created_at": {"help_text": "When the suite was made."},
        }


class BalanceSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="Games played.")
    white_wins = serializers.IntegerField(help_text="Games white won.")
    draws = serializers.IntegerField(help_text="Games drawn.")
    black_wins = serializers.IntegerField(help_text="Games black won.")
    first_wins = serializers.IntegerField(help_text="Games the first mover (the side to move in the opening) won.")
    first_score = serializers.FloatField(allow_null=True, help_text=(
        "The first mover's points per game, 0 to 1 (a draw is half); null before any game."))
    draw_rate = serializers.FloatField(allow_null=True, help_text="Draws per game, 0 to 1; null before any game.")
    pairs = serializers.IntegerField(source="pair_count", help_text=(
        "Colour-swapped pairs played (games 2k-1 and 2k of a match, both from the opening)."))
    pentanomial = serializers.ListField(
        child=serializers.IntegerField(min_value=0), source="pairs", min_length=5, max_length=5, help_text=(
            "Pairs by score 0, 0.5, 1, 1.5 and 2: the points, over both games, of the bot that moved first in the "
            "pair's first game."))


class OpeningBalanceSerializer(serializers.Serializer):
    number = serializers.IntegerField(source="opening.number", help_text="The opening's number in its suite.")
    position = serializers.CharField(source="opening.position", help_text="The start position in the game's notation.")
    first = serializers.ChoiceField(choices=["white", "black"], help_text=FIRST)
    balance = BalanceSerializer(source="played", help_text="Its games and pairs.")
    retired = serializers.BooleanField(help_text="Retired: never dealt again.")
    retired_at = serializers.DateTimeField(source="opening.retired_at", allow_null=True,
                                           help_text="When it was retired; null while it is dealt.")
    retired_reason = serializers.CharField(source="opening.retired_reason", help_text=(
        "Why: the first mover's score, games and pairs against the bounds, or an operator's retirement; empty "
        "while it is dealt."))


class OpeningSuiteBalanceSerializer(serializers.Serializer):
    suite = OpeningSuiteSerializer(help_text="The suite.")
    active = serializers.IntegerField(help_text="Openings still dealt.")
    retired = serializers.IntegerField(help_text="Openings retired.")
    total = BalanceSerializer(help_text="Every game of the suite, retired openings' included.")
    openings = OpeningBalanceSerializer(many=True, help_text="Each opening by number, with its balance.")


class OpeningSuiteFilter(StrictFilterSet):
    game = filters.ChoiceFilter(choices=GAME_CHOICES, label="Only the suites of this game.")

    class Meta:
        model = OpeningSuite
        fields = ["game"]


class OpeningSuiteViewSet(KnownQueryParameters, NoListFiltersOnDetail, viewsets.ReadOnlyModelViewSet):
    """Opening suites: start positions each played twice, colours swapped; one suite's balance opening by
    opening (results by side, the first mover's score, the pairs' pentanomial) and which are retired."""

    permission_classes = [AllowAny]
    lookup_value_regex = ID_REGEX
    serializer_class = OpeningSuiteSerializer
    pagination_class = SmallPages
    filterset_class = OpeningSuiteFilter
    filter_backends = [DjangoFilterBackend]

    def get_queryset(self):
        return opening_suites()

    @extend_schema(responses={200: OpeningSuiteBalanceSerializer})
    def retrieve(self, request, *args, **kwargs):
        """One suite with its totals (the first mover's score and the draw rate over all its games) and each
        opening's balance: games by winning side, the first mover's score, the pairs by score (pentanomial),
        and whether it is retired and why. Three queries, however many openings and games."""
        return Response(OpeningSuiteBalanceSerializer(suite_balance(self.get_object())).data)
