"""Request and response shapes. Reads are model serializers; writes are plain input serializers
whose validated data goes to a service, which does the real checking and the write."""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from engines import GAME_IDS
from ratings import sprt
from ratings.models import Rating, RatingChange, VersionTest
from tournaments.models import BOT_NAME_RULE, Bot, BotVersion, Game, Match, Tournament, TournamentEntrant
from tournaments.selectors import games_per_two_entrants, is_insider, record_seen_by

from .filters import MAX_ID

User = get_user_model()


class StrictInput(serializers.Serializer):
    """An input whose unknown fields are refused (a 400 naming them), not silently ignored: a misspelt
    ``is_retierd`` must not answer 200 and change nothing."""

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: [f"unknown field; the known ones are {', '.join(self.fields)}"] for name in unknown})
        return super().to_internal_value(data)


# --- players and auth ------------------------------------------------------------------------

class PlayerSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "username", "date_joined"]
        read_only_fields = fields


class MeSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "username", "email", "date_joined", "is_staff"]
        read_only_fields = fields


class RegisterSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(write_only=True, max_length=128, style={"input_type": "password"})
    email = serializers.EmailField(required=False, allow_blank=True, default="")


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=128, style={"input_type": "password"})


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField()
    player = PlayerSerializer()


# --- bots and versions ----------------------------------------------------------------------

def finite(value: float) -> float | None:
    """JSON has no infinity: an Elo a one-sided result leaves unbounded is null."""
    return value if value == value and abs(value) != float("inf") else None


class VersionTestSerializer(serializers.ModelSerializer):
    """An SPRT of ``candidate`` (the new version) against ``baseline``: bounds in logistic Elo, the LLR with
    the bounds it stops at, the pairs by the candidate's score 0, ½, 1, 1½, 2, and the candidate's Elo
    difference with its 95% interval from those pairs (null before any pair, or while unbounded)."""

    candidate = serializers.IntegerField(source="candidate_id", read_only=True)
    baseline = serializers.IntegerField(source="baseline_id", read_only=True)
    lower_bound = serializers.SerializerMethodField()
    upper_bound = serializers.SerializerMethodField()
    pentanomial = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    games = serializers.SerializerMethodField()
    elo = serializers.SerializerMethodField()
    elo_margin = serializers.SerializerMethodField()
    los = serializers.SerializerMethodField()

    class Meta:
        model = VersionTest
        fields = ["id", "candidate", "baseline", "elo0", "elo1", "alpha", "beta", "gate", "state", "llr",
                  "lower_bound", "upper_bound", "pentanomial", "games", "wins", "draws", "losses", "elo",
                  "elo_margin", "los", "note", "created_at", "finished_at"]
        read_only_fields = fields

    @staticmethod
    def _hypotheses(test) -> sprt.Hypotheses:
        return sprt.Hypotheses(test.elo0, test.elo1, test.alpha, test.beta)

    def get_lower_bound(self, test) -> float:
        return self._hypotheses(test).lower

    def get_upper_bound(self, test) -> float:
        return self._hypotheses(test).upper

    def get_games(self, test) -> int:
        return test.wins + test.draws + test.losses

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo(self, test):
        estimate = sprt.elo_estimate(test.pentanomial)
        return None if estimate is None else finite(estimate.elo)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo_margin(self, test):
        estimate = sprt.elo_estimate(test.pentanomial)
        return None if estimate is None else finite(estimate.margin)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_los(self, test):
        estimate = sprt.elo_estimate(test.pentanomial)
        return None if estimate is None else estimate.los


def latest_test(version):
    """The version's newest SPRT as the new version, from its prefetched ``sprt_tests``; None if it has none."""
    return max(version.sprt_tests.all(), key=lambda test: (test.created_at, test.id), default=None)


class BotVersionSerializer(serializers.ModelSerializer):
    bot = serializers.PrimaryKeyRelatedField(read_only=True)
    reject_reason = serializers.SerializerMethodField()
    sprt = serializers.SerializerMethodField()

    class Meta:
        model = BotVersion
        fields = ["id", "bot", "number", "filename", "kind", "sha256", "size", "uploaded_at", "status",
                  "reject_reason", "checked_at", "is_disabled", "is_active", "sprt"]
        read_only_fields = fields

    @extend_schema_field(VersionTestSerializer(allow_null=True))
    def get_sprt(self, version):
        """The version's latest SPRT against the version before it (null if none was asked for)."""
        test = latest_test(version)
        return None if test is None else VersionTestSerializer(test).data

    @extend_schema_field(serializers.CharField(allow_blank=True))
    def get_reject_reason(self, version) -> str:
        """Only the owner (or staff) sees why a version was rejected: it may quote their code."""
        request = self.context.get("request")
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and (user.is_staff or version.bot.owner_id == user.pk):
            return version.reject_reason
        return ""


@extend_schema_field({"type": "string", "format": "binary"})
class BinaryUploadField(serializers.FileField):
    """A file part of a multipart request (binary in the schema, not a URL as in responses)."""


class VersionUploadSerializer(serializers.Serializer):
    file = BinaryUploadField(help_text="The bot: a single .py file, or a .zip / .tar.gz archive.")


class VersionUpdateSerializer(StrictInput):
    is_active = serializers.BooleanField(
        help_text="The owner's switch. False: the version is no longer paired (the ladder, challenges, new "
                  "tournament entries), its queued ladder matches and challenges are cancelled and, if it was the "
                  "pinned version, its bot falls back to its newest ready one. Its games stay; true brings it back.")


ELO_HELP = "The live Elo, unrounded as stored (round it for display)."


class RatingBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Rating
        fields = ["game", "elo", "games", "wins", "draws", "losses", "updated_at"]
        read_only_fields = fields
        extra_kwargs = {"elo": {"help_text": ELO_HELP}}


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)
    owner_id = serializers.IntegerField(read_only=True)
    pinned_version = serializers.IntegerField(
        source="pinned_version_id", read_only=True, allow_null=True,
        help_text="Id of the version that plays on the ladder; null: the newest ready, active, enabled one.")

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "description", "is_public", "open_to_tournaments", "is_retired",
                  "pinned_version", "owner", "owner_id", "created_at"]
        read_only_fields = ["id", "is_retired", "pinned_version", "owner", "owner_id", "created_at"]


class BotDetailSerializer(BotSerializer):
    versions = serializers.SerializerMethodField()
    rating = serializers.SerializerMethodField()

    class Meta(BotSerializer.Meta):
        fields = BotSerializer.Meta.fields + ["versions", "rating"]
        read_only_fields = BotSerializer.Meta.read_only_fields + ["versions", "rating"]

    @extend_schema_field(BotVersionSerializer(many=True))
    def get_versions(self, bot):
        return BotVersionSerializer(bot.versions.all(), many=True, context=self.context).data

    @extend_schema_field(RatingBriefSerializer(allow_null=True))
    def get_rating(self, bot):
        for rating in bot.ratings.all():
            if rating.game == bot.game:
                return RatingBriefSerializer(rating).data
        return None


BOT_NAME_HELP = f"The bot's name: {BOT_NAME_RULE}."
CONSENT_HELP = ("Whether other players may enter this bot in their tournaments (rated or not); off by default. "
                "Your own tournaments never need it.")


class BotCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=64, help_text=BOT_NAME_HELP)
    game = serializers.ChoiceField(choices=GAME_IDS)
    description = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)
    is_public = serializers.BooleanField(required=False, default=True)
    open_to_tournaments = serializers.BooleanField(required=False, default=False, help_text=CONSENT_HELP)


class BotUpdateSerializer(StrictInput):
    name = serializers.CharField(max_length=64, required=False, help_text=BOT_NAME_HELP)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000)
    is_public = serializers.BooleanField(required=False)
    open_to_tournaments = serializers.BooleanField(required=False, help_text=CONSENT_HELP)
    is_retired = serializers.BooleanField(
        required=False, help_text="True retires the bot: it leaves the ladder and the leaderboard, is no longer "
                                  "paired, and its queued ladder matches and challenges are cancelled; its games "
                                  "and ratings stay, and matches a tournament already scheduled still play. False "
                                  "brings it back.")
    pinned_version = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_ID,
        help_text="Id of one of this bot's ready, active, enabled versions to play on the ladder (its queued ladder "
                  "matches with other versions are cancelled); null: the newest such version plays.")


class VersionTestRequestSerializer(serializers.Serializer):
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False,
                                       help_text="The new version to test (default: the bot's newest ready one).")
    elo0 = serializers.FloatField(default=0.0, help_text="H0, logistic Elo of the new version over the old.")
    elo1 = serializers.FloatField(default=10.0, help_text="H1, logistic Elo; above elo0.")
    alpha = serializers.FloatField(default=0.05, help_text="The chance of passing a version that is elo0 better.")
    beta = serializers.FloatField(default=0.05, help_text="The chance of failing a version that is elo1 better.")
    gate = serializers.BooleanField(default=False, help_text="Put the new version on the ladder only if it passes.")


class OpponentSerializer(serializers.Serializer):
    """A bot's games against one opponent: W/D/L from the bot's side, its score (0..1) and the Elo difference
    (bot minus opponent) with the half-width of its 95% interval; Elo is null when one side won every game."""

    opponent = serializers.IntegerField(source="bot_id")
    name = serializers.CharField()
    owner = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    score = serializers.FloatField(source="estimate.score")
    elo = serializers.SerializerMethodField()
    elo_margin = serializers.SerializerMethodField()
    los = serializers.FloatField(source="estimate.los")

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo(self, result):
        return finite(result.estimate.elo)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo_margin(self, result):
        return finite(result.estimate.margin)


# --- matches and games ------------------------------------------------------------------------

class VersionBriefSerializer(serializers.ModelSerializer):
    bot_id = serializers.IntegerField(read_only=True)
    bot_name = serializers.CharField(source="bot.name", read_only=True)

    class Meta:
        model = BotVersion
        fields = ["id", "bot_id", "bot_name", "number"]
        read_only_fields = fields


class GameBriefSerializer(serializers.ModelSerializer):
    white = VersionBriefSerializer(read_only=True)
    black = VersionBriefSerializer(read_only=True)
    match = serializers.PrimaryKeyRelatedField(read_only=True)

    class Meta:
        model = Game
        fields = ["id", "match", "number", "white", "black", "winner", "reason", "plies", "duration",
                  "white_thinking", "black_thinking", "created_at"]
        read_only_fields = fields


class GameSerializer(GameBriefSerializer):
    record = serializers.SerializerMethodField()

    class Meta(GameBriefSerializer.Meta):
        fields = GameBriefSerializer.Meta.fields + ["record"]
        read_only_fields = fields

    @extend_schema_field(serializers.DictField())
    def get_record(self, game) -> dict:
        """The public record (actions, times, result, reason); a bot's stderr and protocol log only for its
        owner and staff."""
        request = self.context.get("request")
        return record_seen_by(game, getattr(request, "user", None))


class MatchSerializer(serializers.ModelSerializer):
    version_a = VersionBriefSerializer(read_only=True)
    version_b = VersionBriefSerializer(read_only=True)
    tournament = serializers.PrimaryKeyRelatedField(read_only=True)

    class Meta:
        model = Match
        fields = ["id", "game", "version_a", "version_b", "tournament", "round", "rated", "time_control",
                  "games_per_match", "ruleset", "status", "score_a", "score_b", "created_at", "started_at",
                  "finished_at", "attempts", "failure_reason"]
        read_only_fields = fields


class MatchDetailSerializer(MatchSerializer):
    games = GameBriefSerializer(many=True, read_only=True)

    class Meta(MatchSerializer.Meta):
        fields = MatchSerializer.Meta.fields + ["games"]
        read_only_fields = fields


class MatchRequestSerializer(serializers.Serializer):
    version_a = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="Id of a ready version you own (or any, for admins).")
    version_b = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="Id of a ready version of the same game.")
    rated = serializers.BooleanField(
        default=False, help_text="Always false: a challenge is unrated (true is refused with a 400); rated games "
                                 "come from the ranked ladder and rated tournaments.")
    games_per_match = serializers.IntegerField(min_value=1, max_value=10_000, required=False)
    time_control = serializers.CharField(max_length=40, required=False)


# --- tournaments -----------------------------------------------------------------------------

PRIVATE_BOT = "private bot"


class EntrantVersionSerializer(VersionBriefSerializer):
    """An entrant's version on a tournament page: a private bot is named (with its ids) only to its owner and
    staff; anyone else reads ``bot_name`` "private bot" and null ids, its results still in place."""

    id = serializers.IntegerField(read_only=True, allow_null=True)
    bot_id = serializers.IntegerField(read_only=True, allow_null=True)
    number = serializers.IntegerField(read_only=True, allow_null=True)

    def to_representation(self, version):
        request = self.context.get("request")
        if version.bot.is_public or is_insider(getattr(request, "user", None), version.bot.owner_id):
            return super().to_representation(version)
        return {"id": None, "bot_id": None, "bot_name": PRIVATE_BOT, "number": None}


class EntrantSerializer(serializers.ModelSerializer):
    version = EntrantVersionSerializer(read_only=True)

    class Meta:
        model = TournamentEntrant
        fields = ["id", "seed", "version", "added_at"]
        read_only_fields = fields


GAMES_PER_PAIRING_HELP = ("Games each time two entrants meet (one match, colours alternating game by game). "
                          "With double_round they meet twice, so they play twice as many: see games_per_two_entrants.")
DOUBLE_ROUND_HELP = "Whether every two entrants meet twice (two matches, the second with colours swapped)."


class TournamentSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.username", read_only=True)
    organiser_id = serializers.IntegerField(read_only=True)
    games_per_two_entrants = serializers.SerializerMethodField(
        help_text="Games any two entrants play against each other in all: games_per_pairing, twice with "
                  "double_round.")
    games_total = serializers.SerializerMethodField(
        help_text="Games the whole tournament plays with its entrants as they are now: games_per_two_entrants "
                  "for every two entrants.")

    class Meta:
        model = Tournament
        fields = ["id", "name", "game", "organiser", "organiser_id", "time_control", "games_per_pairing",
                  "double_round", "games_per_two_entrants", "games_total", "rated", "status", "created_at",
                  "started_at", "finished_at"]
        read_only_fields = fields
        extra_kwargs = {"games_per_pairing": {"help_text": GAMES_PER_PAIRING_HELP},
                        "double_round": {"help_text": DOUBLE_ROUND_HELP}}

    def get_games_per_two_entrants(self, tournament) -> int:
        return games_per_two_entrants(tournament)

    def get_games_total(self, tournament) -> int:
        count = getattr(tournament, "entrant_count", None)  # annotated on lists (tournaments_all)
        if count is None:
            count = tournament.entrants.count()
        return games_per_two_entrants(tournament) * count * (count - 1) // 2


class TournamentDetailSerializer(TournamentSerializer):
    entrants = EntrantSerializer(many=True, read_only=True)

    class Meta(TournamentSerializer.Meta):
        fields = TournamentSerializer.Meta.fields + ["entrants"]
        read_only_fields = fields


class TournamentCreateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=100)
    game = serializers.ChoiceField(choices=GAME_IDS)
    time_control = serializers.CharField(max_length=40, required=False)
    games_per_pairing = serializers.IntegerField(min_value=1, max_value=10_000, required=False,
                                                 help_text=GAMES_PER_PAIRING_HELP + " Default 2.")
    double_round = serializers.BooleanField(required=False, default=True,
                                            help_text=DOUBLE_ROUND_HELP + " Default true.")
    rated = serializers.BooleanField(required=False, default=False)


class EntrantRequestSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="Id of a ready version of the tournament's game.")


UNPLAYED = "Null while the entrant has played no counted game (an empty table ranks nobody)."


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="Place, shared by entrants equal on score, "
                                    "Sonneborn-Berger and head-to-head. " + UNPLAYED)
    seed = serializers.IntegerField(source="entrant.seed")
    version = EntrantVersionSerializer(source="entrant.version")
    score = serializers.FloatField(allow_null=True, help_text="Points: 1 a win, 0.5 a draw. " + UNPLAYED)
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    sonneborn_berger = serializers.FloatField(allow_null=True, help_text=UNPLAYED)
    head_to_head = serializers.FloatField(allow_null=True, help_text=UNPLAYED)


class CrosstableCellSerializer(serializers.Serializer):
    opponent_seed = serializers.IntegerField()
    points = serializers.FloatField(allow_null=True, help_text="Null on the diagonal and while the two have played "
                                    "no counted game.")
    games = serializers.IntegerField()


class CrosstableRowSerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    version = EntrantVersionSerializer()
    cells = CrosstableCellSerializer(many=True)
    score = serializers.FloatField(allow_null=True, help_text=UNPLAYED)
    rank = serializers.IntegerField(allow_null=True, help_text=UNPLAYED)


# --- ratings ---------------------------------------------------------------------------------

class LeaderboardEntrySerializer(serializers.ModelSerializer):
    rank = serializers.IntegerField(read_only=True)
    bot = serializers.IntegerField(source="bot_id", read_only=True)
    bot_name = serializers.CharField(source="bot.name", read_only=True)
    owner = serializers.CharField(source="bot.owner.username", read_only=True)

    class Meta:
        model = Rating
        fields = ["rank", "bot", "bot_name", "owner", "game", "elo", "games", "wins", "draws", "losses"]
        read_only_fields = fields
        extra_kwargs = {"elo": {"help_text": ELO_HELP}}


class RatingChangeSerializer(serializers.ModelSerializer):
    game = serializers.IntegerField(source="played_id", read_only=True)
    match = serializers.IntegerField(source="match_id", read_only=True)

    class Meta:
        model = RatingChange
        fields = ["id", "game", "match", "before", "after", "delta", "k", "score", "created_at"]
        read_only_fields = fields
        extra_kwargs = {name: {"help_text": f"The live Elo {what}, unrounded as stored (round it for display)."}
                        for name, what in (("before", "before the game"), ("after", "after the game"),
                                           ("delta", "change"))}


class ErrorSerializer(serializers.Serializer):
    detail = serializers.ListField(child=serializers.CharField(), required=False)
