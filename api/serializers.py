"""Request and response shapes. Reads are model serializers; writes are plain input serializers
whose validated data goes to a service, which does the real checking and the write."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.validators import MaxValueValidator, RegexValidator
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from engines import GAME_IDS, Winner
from engines.protocol import TIME_CONTROL_GRAMMAR, TIME_CONTROL_HELP, TIME_CONTROL_SYNTAX, time_control_help
from knobs import arena
from ratings import selectors as ratings_selectors
from ratings import sprt
from ratings.models import FittedRating, Rating, RatingChange, VersionTest
from tournaments.bounds import games_problem
from tournaments.models import (
    BOT_NAME,
    BOT_NAME_RULE,
    SEEDINGS,
    TIEBREAKS,
    Bot,
    BotVersion,
    Game,
    Match,
    Tournament,
    TournamentEntrant,
)
from tournaments.selectors import games_per_two_entrants, is_insider, may_see_bot, record_seen_by
from tournaments.services import storage_quota, storage_used, worker_time

from .filters import MAX_ID

User = get_user_model()

# What the services check, said in the schema too (a pattern there is what a client can check before sending).
BOT_NAME_PATTERN = RegexValidator(rf"\A{BOT_NAME.pattern}\Z", f"not a bot name: use {BOT_NAME_RULE}")
TIME_CONTROL_PATTERN = RegexValidator(rf"\A(?:{TIME_CONTROL_GRAMMAR})\Z",
                                      f"bad time control: expected {TIME_CONTROL_SYNTAX}")
TIME_CONTROL_CHOICE_HELP = time_control_help(
    arena.TIME_CONTROL_MOVE_MIN_MS, arena.TIME_CONTROL_MOVE_MAX_MS, arena.TIME_CONTROL_CLOCK_BASE_MAX_MS,
    arena.TIME_CONTROL_CLOCK_INCREMENT_MAX_MS, arena.DEFAULT_TIME_CONTROL)


# The docstring below is published: it is the description of every request body without a docstring of its own
# (drf-spectacular reads the inherited one), so it speaks to the API's reader.
class StrictInput(serializers.Serializer):
    """A request body read as the schema writes it: a JSON object with only the declared fields, each of its
    JSON type (DRF alone would take ``"5"`` or ``5.0`` for an integer, ``0`` for a boolean, ``7`` for a
    string). The schema marks these bodies ``additionalProperties: false``: an unknown field is refused."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            errors = {name: ["unknown field"] for name in data if name not in self.fields}
            for name, field in self.fields.items():
                expected = _json_type(field)
                if name in data and data[name] is not None and expected and not expected(data[name]):
                    errors[name] = [f"must be {expected.__doc__}"]
            if errors:
                raise serializers.ValidationError(errors)
        return super().to_internal_value(data)


class GamesCount(serializers.IntegerField):
    """A number of games, from 1 to the server's bound (ARENA_MAX_GAMES_PER_MATCH), read from the settings when a
    value is checked and when the schema is drawn, so the schema's maximum is what the server allows."""

    def __init__(self, **kwargs):
        super().__init__(min_value=1, **kwargs)
        # DRF made a validator of the bound as it was at import: the check below reads it each time instead.
        self.validators = [v for v in self.validators if not isinstance(v, MaxValueValidator)]

    @property
    def max_value(self) -> int:
        return arena.MAX_GAMES_PER_MATCH

    @max_value.setter
    def max_value(self, _ignored) -> None:
        pass  # IntegerField.__init__ assigns it; the setting is the bound

    def to_internal_value(self, data):
        games = super().to_internal_value(data)
        problem = games_problem(games, arena)  # the services' own check and words
        if problem:
            raise serializers.ValidationError(problem)
        return games


def _json_type(field):
    """A check that a raw JSON value has the field's type (its docstring names the type), or None."""
    if isinstance(field, serializers.BooleanField):
        return _is_bool
    if isinstance(field, serializers.IntegerField):
        return _is_int
    if isinstance(field, serializers.FloatField):
        return _is_number
    if isinstance(field, serializers.CharField | serializers.ChoiceField):
        return _is_str
    return None


def _is_bool(value):
    """true or false"""
    return isinstance(value, bool)


def _is_int(value):
    """a whole number"""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    """a number"""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_str(value):
    """a string"""
    return isinstance(value, str)


# --- players and auth ------------------------------------------------------------------------

ID_HELP = "Unique id, stable for the life of the object."
PLAYER_NAME_HELP = "The player's user name: unique, up to 150 letters, digits and @ . + - _."


class PlayerSerializer(serializers.ModelSerializer):
    class Meta:
        model = User
        fields = ["id", "username", "date_joined"]
        read_only_fields = fields
        extra_kwargs = {"id": {"help_text": ID_HELP}, "username": {"help_text": PLAYER_NAME_HELP},
                        "date_joined": {"help_text": "When the account was created."}}


class WorkerTimeSerializer(serializers.Serializer):
    """An owner's worker time (tournaments.services.worker_time.usage): what decides their turn at the workers,
    and what their budget counts."""

    queued_seconds = serializers.FloatField(
        help_text="Expected worker-seconds of their queued work: matches (challenges, tournaments, SPRT tests) and "
                  "smoke tests of uploads not yet taken.")
    recent_seconds = serializers.FloatField(
        help_text="Worker-seconds their work used in the last `window_seconds` (running matches so far included); "
                  "the owner who used least goes next.")
    window_seconds = serializers.IntegerField(help_text="The window of recent use, in seconds.")
    budget_seconds = serializers.IntegerField(
        help_text="The most expected worker-seconds they may have queued (staff have no budget); a request past it "
                  "is refused with a 400 under `budget`.")


class MeSerializer(serializers.ModelSerializer):
    email = serializers.CharField(read_only=True, help_text="The account's e-mail address; empty when none was given.")
    storage_used = serializers.SerializerMethodField(
        help_text="Bytes the player's bot versions take in storage (each uploaded file, stored once).")
    storage_quota = serializers.SerializerMethodField(
        help_text="Bytes they may take (ARENA_PLAYER_STORAGE_BYTES); null: no limit (staff).")
    worker_time = serializers.SerializerMethodField(
        help_text="Your worker time: what you have queued against your budget, and what you used lately.")

    class Meta:
        model = User
        fields = ["id", "username", "email", "date_joined", "is_staff", "storage_used", "storage_quota",
                  "worker_time"]
        read_only_fields = fields
        extra_kwargs = {"id": {"help_text": ID_HELP}, "username": {"help_text": PLAYER_NAME_HELP},
                        "date_joined": {"help_text": "When the account was created."},
                        "is_staff": {"help_text": "Whether this player is an operator (admin rights everywhere)."}}

    def get_storage_used(self, user) -> int:
        return storage_used(user)

    def get_storage_quota(self, user) -> int | None:
        return storage_quota(user)

    @extend_schema_field(WorkerTimeSerializer)
    def get_worker_time(self, user) -> dict:
        return WorkerTimeSerializer(worker_time.usage(user.pk)).data


class RegisterSerializer(StrictInput):
    username = serializers.CharField(max_length=150, help_text=PLAYER_NAME_HELP + " Must not be taken.")
    password = serializers.CharField(
        write_only=True, min_length=8, max_length=128, style={"input_type": "password"},
        help_text="At least 8 characters, not all digits, not a common password, not like the user name.")
    email = serializers.EmailField(required=False, allow_blank=True, default="",
                                   help_text="An e-mail address for the account (optional).")


@extend_schema_serializer(component_name="Login")  # "LoginRequest" in the schema
class TokenRequestSerializer(StrictInput):
    username = serializers.CharField(max_length=150, help_text="The player's user name.")
    password = serializers.CharField(max_length=128, style={"input_type": "password"},
                                     help_text="The player's password.")


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="The API token: send it as `Authorization: Token <token>`.")
    player = PlayerSerializer(help_text="The player the token belongs to.")


# --- bots and versions ----------------------------------------------------------------------

VERSION_HELP = {
    "id": {"help_text": ID_HELP},
    "number": {"help_text": "The version's number within its bot: 1, 2, ... in upload order."},
    "filename": {"help_text": "The name of the uploaded file."},
    "kind": {"help_text": "What was uploaded: a single Python file or an archive."},
    "sha256": {"help_text": "SHA-256 of the uploaded file, as 64 hex digits."},
    "size": {"help_text": "Size of the uploaded file in bytes."},
    "uploaded_at": {"help_text": "When the version was uploaded."},
    "status": {"help_text": "`pending` until the smoke test has run, then `ready` (it may play) or `rejected`."},
    "checked_at": {"help_text": "When the smoke test decided; null while pending."},
    "is_disabled": {"help_text": "Operator switch: a disabled version never plays."},
}


def finite(value: float) -> float | None:
    """JSON has no infinity: an Elo a one-sided result leaves unbounded is null."""
    return value if value == value and abs(value) != float("inf") else None


OPENING_SUITE_HELP = ("Id of an opening suite of the game (made with `manage.py make_openings`, of the referee's "
                      "current ruleset): each pairing's games 2k-1 and 2k start from one of its openings, colours "
                      "swapped.")


class VersionTestSerializer(serializers.ModelSerializer):
    """An SPRT of ``candidate`` (the new version) against ``baseline``: bounds in logistic or normalized Elo,
    the LLR with the bounds it stops at, the pairs by the candidate's score 0, ½, 1, 1½, 2, and the candidate's
    logistic Elo difference with its 95% interval from those pairs (null before any pair, or while unbounded):
    the fixed-sample estimate while it runs, the sequential one (fishtest's ``SPRT_elo``) once it has ended."""

    candidate = serializers.IntegerField(source="candidate_id", read_only=True,
                                         help_text="Id of the new version under test.")
    baseline = serializers.IntegerField(source="baseline_id", read_only=True,
                                        help_text="Id of the version it is tested against.")
    lower_bound = serializers.SerializerMethodField(help_text="The LLR at or below which the test fails.")
    upper_bound = serializers.SerializerMethodField(help_text="The LLR at or above which the test passes.")
    pentanomial = serializers.ListField(child=serializers.IntegerField(), read_only=True,
                                        help_text="Pairs of games by the candidate's score 0, ½, 1, 1½, 2.")
    games = serializers.SerializerMethodField(help_text="Games played in the test.")
    estimate = serializers.SerializerMethodField(
        help_text="`fixed` (the pairs as a fixed sample, while the test runs) or `sequential` (fishtest's "
                  "median-unbiased estimate after a sequential stop, which keeps 95% coverage); null before "
                  "any pair.")
    elo = serializers.SerializerMethodField(
        help_text="The candidate's logistic Elo difference from the pairs; null before any pair or while "
                  "unbounded.")
    elo_low = serializers.SerializerMethodField(help_text="Low end of that difference's 95% interval.")
    elo_high = serializers.SerializerMethodField(help_text="High end of that difference's 95% interval.")
    elo_margin = serializers.SerializerMethodField(help_text="Half-width of that difference's 95% interval.")
    los = serializers.SerializerMethodField(help_text="Likelihood of superiority of the candidate, 0 to 1.")
    opening_suite = serializers.IntegerField(source="opening_suite_id", read_only=True, allow_null=True,
                                             help_text=OPENING_SUITE_HELP + " Null: the initial position.")
    forecast = serializers.JSONField(
        read_only=True, help_text="Expected length when asked for: `at_elo0` and `at_elo1` (`pairs`, `games`, "
                                  "`hours` if the new version is truly that much better), with the `draw_rate`, "
                                  "`seconds_per_game` and `matches_at_once` they assume and their `basis`.")

    class Meta:
        model = VersionTest
        fields = ["id", "candidate", "baseline", "elo0", "elo1", "elo_model", "alpha", "beta", "max_pairs", "gate",
                  "state", "llr", "lower_bound", "upper_bound", "pentanomial", "games", "wins", "draws", "losses",
                  "estimate", "elo", "elo_low", "elo_high", "elo_margin", "los", "opening_suite", "forecast", "note",
                  "created_at", "finished_at"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": ID_HELP},
            "elo0": {"help_text": "H0: the candidate is this many Elo better (in `elo_model` Elo)."},
            "elo1": {"help_text": "H1: the candidate is this many Elo better (in `elo_model` Elo)."},
            "elo_model": {"help_text": "`logistic` (the Elo of the score) or `normalized` (fishtest's nElo)."},
            "alpha": {"help_text": "The chance of passing a candidate that is no better (H0 true)."},
            "beta": {"help_text": "The chance of failing a candidate that is better (H1 true)."},
            "max_pairs": {"help_text": "Pairs after which a test between the bounds ends `inconclusive`."},
            "gate": {"help_text": "The candidate goes on the ladder only if it passes."},
            "state": {"help_text": "`running`, then `passed`, `failed`, `inconclusive` (its pair cap reached "
                                   "between the bounds) or `stopped` (by its owner, or a version could not "
                                   "play)."},
            "llr": {"help_text": "The log-likelihood ratio of H1 against H0 so far."},
            "wins": {"help_text": "Games the candidate won."}, "draws": {"help_text": "Games drawn."},
            "losses": {"help_text": "Games the candidate lost."}, "note": {"help_text": "Why it stopped, if it did."},
            "created_at": {"help_text": "When the test started."},
            "finished_at": {"help_text": "When it ended; null while running."},
        }

    @staticmethod
    def _hypotheses(test) -> sprt.Hypotheses:
        return sprt.Hypotheses(test.elo0, test.elo1, test.alpha, test.beta, test.elo_model)

    def _estimate(self, test):
        """The fixed-sample estimate while running; the sequential one once the test has ended (a stop at a
        bound picks the paths that drifted, so the fixed-sample interval would cover the truth too rarely)."""
        if test.state == VersionTest.State.RUNNING:
            return sprt.elo_estimate(test.pentanomial)
        return sprt.sequential_estimate(test.pentanomial, self._hypotheses(test))

    def get_lower_bound(self, test) -> float:
        return self._hypotheses(test).lower

    def get_upper_bound(self, test) -> float:
        return self._hypotheses(test).upper

    def get_games(self, test) -> int:
        return test.wins + test.draws + test.losses

    @extend_schema_field(serializers.ChoiceField(choices=["fixed", "sequential"], allow_null=True))
    def get_estimate(self, test):
        if not sum(test.pentanomial):
            return None
        return "fixed" if test.state == VersionTest.State.RUNNING else "sequential"

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo(self, test):
        estimate = self._estimate(test)
        return None if estimate is None else finite(estimate.elo)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo_low(self, test):
        estimate = self._estimate(test)
        return None if estimate is None else finite(estimate.low)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo_high(self, test):
        estimate = self._estimate(test)
        return None if estimate is None else finite(estimate.high)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo_margin(self, test):
        estimate = self._estimate(test)
        return None if estimate is None else finite(estimate.margin)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_los(self, test):
        estimate = self._estimate(test)
        return None if estimate is None else estimate.los


def latest_test(version):
    """The version's newest SPRT as the new version, from its prefetched ``sprt_tests``; None if it has none."""
    return max(version.sprt_tests.all(), key=lambda test: (test.created_at, test.id), default=None)


class VersionFitSerializer(serializers.ModelSerializer):
    """A version's own fitted rating in the latest fit of its game (earlier versions keep theirs)."""

    class Meta:
        model = FittedRating
        fields = ["status", "elo", "margin", "games", "current"]
        read_only_fields = fields
        extra_kwargs = {
            "status": {"help_text": "`rated`, or why the results leave it unbounded: `above`, `below`, `apart`, "
                                    "`unrated` (as the bot's fitted_status)."},
            "elo": {"help_text": "The version's fitted rating, unrounded; null unless rated."},
            "margin": {"help_text": "Half-width of its 95% interval, Elo; null unless rated."},
            "games": {"help_text": "The version's rated games the fit read."},
            "current": {"help_text": "Whether its bot played the ladder with this version at the fit."},
        }


def version_fit_row(version) -> dict | None:
    """A version's row in the latest fit, from its prefetched ``fitted_ratings`` (one fit per game: at most
    one row), or None."""
    row = next(iter(version.fitted_ratings.all()), None)
    return None if row is None else {"status": row.status, "elo": row.elo, "margin": row.margin, "games": row.games,
                                     "current": row.current}


class BotVersionSerializer(serializers.ModelSerializer):
    bot = serializers.PrimaryKeyRelatedField(read_only=True, help_text="Id of the bot this is a version of.")
    reject_reason = serializers.SerializerMethodField(
        help_text="Why the smoke test rejected it: shown to the owner and staff only, empty for anyone else.")
    reject_stderr = serializers.SerializerMethodField(
        help_text="The last lines (at most 20 of 300 characters, control characters escaped as `\\x00`) the bot "
                  "wrote to stderr in the smoke test that rejected it: owner and staff only, empty for anyone else.")
    sprt = serializers.SerializerMethodField(
        help_text="The version's latest SPRT against the version before it; null if none was asked for.")
    fitted = serializers.SerializerMethodField(
        help_text="The version's own fitted rating in the latest fit of its game; null before a fit included it.")

    class Meta:
        model = BotVersion
        fields = ["id", "bot", "number", "filename", "kind", "sha256", "size", "uploaded_at", "status",
                  "reject_reason", "reject_stderr", "checked_at", "is_disabled", "is_active", "sprt", "fitted"]
        read_only_fields = fields
        extra_kwargs = VERSION_HELP

    @extend_schema_field(VersionTestSerializer(allow_null=True))
    def get_sprt(self, version):
        """The version's latest SPRT against the version before it (null if none was asked for)."""
        test = latest_test(version)
        return None if test is None else VersionTestSerializer(test).data

    @extend_schema_field(VersionFitSerializer(allow_null=True))
    def get_fitted(self, version):
        """From the prefetched ``fitted_ratings`` (one fit per game: at most one row)."""
        return version_fit_row(version)

    @extend_schema_field(serializers.CharField(allow_blank=True))
    def get_reject_reason(self, version) -> str:
        """Only the owner (or staff) sees why a version was rejected: it may quote their code."""
        request = self.context.get("request")
        return version.reject_reason if is_insider(getattr(request, "user", None), version.bot.owner_id) else ""

    @extend_schema_field(serializers.CharField(allow_blank=True))
    def get_reject_stderr(self, version) -> str:
        """Only the owner (or staff) reads what their bot wrote, as with the reason."""
        request = self.context.get("request")
        return version.reject_stderr if is_insider(getattr(request, "user", None), version.bot.owner_id) else ""


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
RATING_HELP = {
    "game": {"help_text": "The game this rating is for."},
    "elo": {"help_text": ELO_HELP},
    "games": {"help_text": "Rated games played (wins + draws + losses)."},
    "wins": {"help_text": "Rated games won."},
    "draws": {"help_text": "Rated games drawn."},
    "losses": {"help_text": "Rated games lost."},
    "updated_at": {"help_text": "When the rating last changed."},
}


class FittedFields(serializers.Serializer):
    """The fit's view of a bot beside its live Elo (ratings.selectors.fitted_summary): the leaderboard and the
    bot's page give the same fields. The fit rates bot versions; a bot's are those of the version it plays
    the ladder with (as of the latest fit)."""

    FIELDS = ["fitted_version", "fitted_elo", "fitted_margin", "fitted_status", "fitted_games", "standing",
              "provisional", "rank", "rank_low", "rank_high", "p_first", "first_player_advantage"]

    fitted_version = serializers.IntegerField(
        read_only=True, allow_null=True,
        help_text="Id of the version whose fitted rating this is: the one the bot played the ladder with at the "
                  "latest fit (its pinned version, else its newest playable one); null before a fit included it.")
    fitted_elo = serializers.FloatField(
        read_only=True, allow_null=True,
        help_text="The fitted rating of that version: maximum likelihood over all the game's rated games, each "
                  "version a player of its own (Bradley-Terry on the Elo scale, Davidson draws, a first-player "
                  "term), refitted periodically; unrounded. Null when the latest fit gives it none (see "
                  "fitted_status).")
    fitted_margin = serializers.FloatField(
        read_only=True, allow_null=True, help_text="Half-width of the fitted rating's 95% interval, in Elo; null "
                                                   "without a fitted rating.")
    fitted_status = serializers.CharField(
        read_only=True, allow_null=True,
        help_text="`rated`; or why the results leave the rating unbounded: `above` (never lost a point to the rated "
                  "pool, or to anyone while there is no pool), `below` (never scored against it), `apart` (no game "
                  "links it to the pool, or it both won and lost one-sided results, or it has no game yet), "
                  "`unrated` (the pool as a whole has no finite fit); null when no fit included the version yet.")
    fitted_games = serializers.IntegerField(
        read_only=True, help_text="Rated games of that version the fit read (0 without a fit).")
    standing = serializers.ChoiceField(
        choices=["ranked", "provisional", "unplayed", "unbounded", "unfitted"], read_only=True,
        help_text="The bot's place on the leaderboard: `ranked` (rated with a 95% margin within "
                  "LEADERBOARD_RANKED_MARGIN: the only bots with a rank), `provisional` (rated, margin still wider), "
                  "`unplayed` (its ladder version has no rated game yet), `unbounded` (the results do not bound its "
                  "rating: see fitted_status), `unfitted` (no fit marked a ladder version of it yet: none ran since "
                  "that version came, or it has no playable version).")
    provisional = serializers.BooleanField(
        read_only=True, help_text="True unless the bot is ranked (standing `ranked`): provisional bots are listed "
                                  "after the ranked ones, without a rank.")
    rank = serializers.IntegerField(
        read_only=True, allow_null=True,
        help_text="Place among the ranked bots by fitted rating, from 1, as of the latest fit; null unless ranked.")
    rank_low = serializers.IntegerField(
        read_only=True, allow_null=True,
        help_text="Best rank of the rank's 95% interval (sampled from the fit's covariance of the ranked bots' "
                  "ratings, seeded: the same fit gives the same interval); null unless ranked.")
    rank_high = serializers.IntegerField(
        read_only=True, allow_null=True, help_text="Worst rank of the rank's 95% interval; null unless ranked.")
    p_first = serializers.FloatField(
        read_only=True, allow_null=True,
        help_text="Probability, from the same samples, that this is the strongest ranked bot (0 to 1); null "
                  "unless ranked.")
    first_player_advantage = serializers.FloatField(
        read_only=True, allow_null=True,
        help_text="The game's first-player (White's) advantage in Elo from the latest fit, the same for every "
                  "bot of the game; null before any fit.")


class RatingBriefSerializer(serializers.ModelSerializer):
    class Meta:
        model = Rating
        fields = ["game", "elo", "games", "wins", "draws", "losses", "updated_at"]
        read_only_fields = fields
        extra_kwargs = RATING_HELP


BOT_NAME_HELP = f"The bot's name: {BOT_NAME_RULE}."
CONSENT_HELP = ("Whether other players may enter this bot in their tournaments (rated or not); off by default. "
                "Your own tournaments never need it.")
GAME_HELP = "The game: `tafl9` (Tafl 9x9), `fidchell-1` / `fidchell-2` (Fidchell, Rules One / 2), `shatra`."
# DRF's own message only says the value is not a valid choice: name the ones that are.
UNKNOWN_GAME = {"invalid_choice": f"unknown game {{input!r}}: the games are {', '.join(GAME_IDS)}"}
DESCRIPTION_HELP = "Free text about the bot, up to 2000 characters."
PUBLIC_HELP = "Whether anyone may see the bot, its versions and games; a private bot is seen by its owner only."


class BotRatingSerializer(FittedFields, RatingBriefSerializer):
    class Meta(RatingBriefSerializer.Meta):
        fields = RatingBriefSerializer.Meta.fields + FittedFields.FIELDS
        read_only_fields = fields


class BotSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True, help_text="The owner's user name.")
    owner_id = serializers.IntegerField(read_only=True, help_text="The owner's player id.")
    pinned_version = serializers.IntegerField(
        source="pinned_version_id", read_only=True, allow_null=True,
        help_text="Id of the version that plays on the ladder; null: the newest ready, active, enabled one.")

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "description", "is_public", "open_to_tournaments", "is_retired",
                  "pinned_version", "owner", "owner_id", "created_at"]
        read_only_fields = ["id", "is_retired", "pinned_version", "owner", "owner_id", "created_at"]
        extra_kwargs = {"id": {"help_text": ID_HELP}, "name": {"help_text": BOT_NAME_HELP},
                        "game": {"help_text": GAME_HELP}, "description": {"help_text": DESCRIPTION_HELP},
                        "is_public": {"help_text": PUBLIC_HELP}, "open_to_tournaments": {"help_text": CONSENT_HELP},
                        "is_retired": {"help_text": "Whether its owner retired it: off the ladder and the "
                                                    "leaderboard, never paired; its games and ratings stay."},
                        "created_at": {"help_text": "When the bot was created."}}


class BotDetailSerializer(BotSerializer):
    versions = serializers.SerializerMethodField(help_text="Every version, newest first.")
    rating = serializers.SerializerMethodField(
        help_text="The bot's live Elo and record in its game, with its fitted rating; null before any rated game.")

    class Meta(BotSerializer.Meta):
        fields = BotSerializer.Meta.fields + ["versions", "rating"]
        read_only_fields = BotSerializer.Meta.read_only_fields + ["versions", "rating"]

    @extend_schema_field(BotVersionSerializer(many=True))
    def get_versions(self, bot):
        return BotVersionSerializer(bot.versions.all(), many=True, context=self.context).data

    @extend_schema_field(BotRatingSerializer(allow_null=True))
    def get_rating(self, bot):
        rating = ratings_selectors.own_rating(bot)
        if rating is None:
            return None
        fit, fitted = ratings_selectors.bot_fit(bot)
        return {**RatingBriefSerializer(rating).data, **ratings_selectors.fitted_summary(fitted, fit)}


class BotCreateSerializer(StrictInput):
    name = serializers.CharField(max_length=32, trim_whitespace=False, validators=[BOT_NAME_PATTERN],
                                 help_text=BOT_NAME_HELP + " Unique among your bots of this game.")
    game = serializers.ChoiceField(choices=GAME_IDS, help_text=GAME_HELP, error_messages=UNKNOWN_GAME)
    description = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000,
                                        help_text=DESCRIPTION_HELP)
    is_public = serializers.BooleanField(required=False, default=True, help_text=PUBLIC_HELP + " On by default.")
    open_to_tournaments = serializers.BooleanField(required=False, default=False, help_text=CONSENT_HELP)


class BotUpdateSerializer(StrictInput):
    name = serializers.CharField(max_length=32, required=False, trim_whitespace=False, validators=[BOT_NAME_PATTERN],
                                 help_text=BOT_NAME_HELP)
    description = serializers.CharField(required=False, allow_blank=True, max_length=2000, help_text=DESCRIPTION_HELP)
    is_public = serializers.BooleanField(required=False, help_text=PUBLIC_HELP)
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


@extend_schema_serializer(component_name="Sprt")  # "SprtRequest" in the schema, not "VersionTestRequestRequest"
class VersionTestRequestSerializer(StrictInput):
    version = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False,
                                       help_text="The new version to test (default: the bot's newest ready one).")
    elo0 = serializers.FloatField(default=0.0, help_text="H0, Elo of the new version over the old (in `elo_model`).")
    elo1 = serializers.FloatField(default=10.0, help_text="H1, Elo in `elo_model`; above elo0.")
    elo_model = serializers.ChoiceField(
        choices=["logistic", "normalized"], default="logistic",
        help_text="`logistic`: Elo of the score; `normalized`: fishtest's nElo (the score's distance from ½ in "
                  "per-game standard deviations × 800/ln 10), the same evidence whatever the draw rate.")
    alpha = serializers.FloatField(default=0.05, help_text="The chance of passing a version that is elo0 better.")
    beta = serializers.FloatField(default=0.05, help_text="The chance of failing a version that is elo1 better.")
    max_pairs = serializers.IntegerField(
        required=False, min_value=sprt.MAX_PAIRS_RANGE[0], max_value=sprt.MAX_PAIRS_RANGE[1],
        help_text="Pairs after which the test ends `inconclusive` (100 to ARENA_SPRT_MAX_PAIRS, its default).")
    gate = serializers.BooleanField(default=False, help_text="Put the new version on the ladder only if it passes.")
    opening_suite = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, allow_null=True,
        help_text=OPENING_SUITE_HELP + " Default: the game's ladder suite, if it has one.")
    preview = serializers.BooleanField(
        default=False, help_text="True: start nothing, answer with the `forecast` (expected pairs, games and hours "
                                 "at each bound) and the `max_pairs` the test would have.")


class ExpectedLengthSerializer(serializers.Serializer):
    elo = serializers.FloatField(help_text="The new version's true Elo over the old (a bound of the test).")
    pairs = serializers.IntegerField(help_text="Wald's expected colour-swapped pairs (ignoring the cap).")
    games = serializers.IntegerField(help_text="Those pairs' games.")
    hours = serializers.FloatField(help_text="Those games' hours, `matches_at_once` matches played at once.")


class VersionTestForecastSerializer(serializers.Serializer):
    """How long an SPRT should take, asked for with ``preview`` before it starts (schema only)."""

    at_elo0 = ExpectedLengthSerializer(help_text="If the new version is truly elo0 better.")
    at_elo1 = ExpectedLengthSerializer(help_text="If the new version is truly elo1 better.")
    draw_rate = serializers.FloatField(help_text="The draw rate assumed.")
    seconds_per_game = serializers.FloatField(help_text="The game length assumed.")
    time_control = serializers.CharField(help_text="The time control the test's matches use.")
    matches_at_once = serializers.IntegerField(help_text="The test's matches queued or running at once.")
    basis = serializers.CharField(help_text="Where the draw rate and game length come from.")
    max_pairs = serializers.IntegerField(help_text="The cap the test would have.")


class OpponentSerializer(serializers.Serializer):
    """A bot's games against one opponent: W/D/L from the bot's side, its score (0..1) and the Elo difference
    (bot minus opponent) with the half-width of its 95% interval; Elo is null when one side won every game."""

    opponent = serializers.IntegerField(source="bot_id", help_text="Id of the opponent bot.")
    name = serializers.CharField(help_text="The opponent bot's name.")
    owner = serializers.CharField(help_text="The opponent's owner's user name.")
    games = serializers.IntegerField(help_text="Games played against it.")
    wins = serializers.IntegerField(help_text="Games won against it.")
    draws = serializers.IntegerField(help_text="Games drawn against it.")
    losses = serializers.IntegerField(help_text="Games lost against it.")
    score = serializers.FloatField(source="estimate.score", help_text="The bot's score against it, 0 to 1.")
    elo = serializers.SerializerMethodField(
        help_text="Elo difference, the bot minus the opponent; null when one side won every game.")
    elo_margin = serializers.SerializerMethodField(help_text="Half-width of that difference's 95% interval.")
    los = serializers.FloatField(source="estimate.los", help_text="Likelihood that the bot is the stronger, 0 to 1.")

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo(self, result):
        return finite(result.estimate.elo)

    @extend_schema_field(serializers.FloatField(allow_null=True))
    def get_elo_margin(self, result):
        return finite(result.estimate.margin)


# --- matches and games ------------------------------------------------------------------------

class VersionBriefSerializer(serializers.ModelSerializer):
    bot_id = serializers.IntegerField(read_only=True, help_text="Id of the version's bot.")
    bot_name = serializers.CharField(source="bot.name", read_only=True, help_text="The bot's name.")

    class Meta:
        model = BotVersion
        fields = ["id", "bot_id", "bot_name", "number"]
        read_only_fields = fields
        extra_kwargs = {"id": {"help_text": "Id of the bot version."}, "number": VERSION_HELP["number"]}


GAME_FIELDS_HELP = {
    "id": {"help_text": ID_HELP},
    "number": {"help_text": "The game's number within its match: 1, 2, ..."},
    "winner": {"help_text": "Which side won: `white`, `black`, or `none` for a draw."},
    "reason": {"help_text": "How the game ended, e.g. `king-captured`, `timeout`, `illegal-move`, `resign`."},
    "plies": {"help_text": "Actions played, both sides counted."},
    "duration": {"help_text": "Seconds of wall-clock time the game took."},
    "created_at": {"help_text": "When the game was stored (just after it ended)."},
}


class GameBriefSerializer(serializers.ModelSerializer):
    white = VersionBriefSerializer(read_only=True, help_text="The version that played white (moved first).")
    black = VersionBriefSerializer(read_only=True, help_text="The version that played black.")
    match = serializers.PrimaryKeyRelatedField(read_only=True, help_text="Id of the match the game belongs to.")
    opening = serializers.IntegerField(
        source="opening_id", read_only=True, allow_null=True,
        help_text="Id of the opening (of the match's opening suite, `/api/openings/`) the game started from, as "
                  "did the other game of its colour-swapped pair; null: the game's initial position.")

    class Meta:
        model = Game
        fields = ["id", "match", "number", "opening", "white", "black", "winner", "reason", "plies", "duration",
                  "white_thinking", "black_thinking", "created_at"]
        read_only_fields = fields
        extra_kwargs = GAME_FIELDS_HELP


class SidesTextSerializer(serializers.Serializer):
    """Text per side: only the sides of the reader's own bots (staff: both)."""

    white = serializers.CharField(required=False, help_text="White's.")
    black = serializers.CharField(required=False, help_text="Black's.")


class ThinkingSerializer(serializers.Serializer):
    white = serializers.FloatField(help_text="Seconds White's bot spent on its actions.")
    black = serializers.FloatField(help_text="Seconds Black's bot spent on its actions.")


class GameRecordSerializer(serializers.Serializer):
    """A game record (engines/record.py; the README's "Game records"): the game, its rules and start, the actions
    with their times, the result; what replays it through the referee to the same end. Schema only: the record is
    served as stored, less what the reader may not see."""

    game = serializers.ChoiceField(choices=GAME_IDS, help_text=GAME_HELP)
    ruleset = serializers.CharField(help_text="The referee's ruleset version the game was played under.")
    settings = serializers.DictField(help_text="Each rule-book decision of the game by its setting name, with its "
                                               "value (the book's default unless changed).")
    initial = serializers.CharField(help_text="The starting position, in the game's notation.")
    actions = serializers.ListField(child=serializers.CharField(), help_text="The actions, in canonical notation, "
                                                                              "in the order played.")
    winner = serializers.ChoiceField(choices=[w.value for w in Winner], help_text="`white`, `black`, or `none` "
                                                                                 "for a draw.")
    reason = serializers.CharField(help_text="How the game ended: the protocol's word (e.g. `king-captured`, "
                                             "`timeout`, `resign`).")
    plies = serializers.IntegerField(help_text="How many actions were played.")
    final = serializers.CharField(required=False, help_text="The final position, in the game's notation.")
    times = serializers.ListField(child=serializers.IntegerField(allow_null=True), required=False,
                                  help_text="Milliseconds each action took, one per action.")
    white = serializers.CharField(required=False, help_text="White's bot, as the runner named it.")
    black = serializers.CharField(required=False, help_text="Black's bot, as the runner named it.")
    tc = serializers.CharField(required=False, help_text="The time control the game was played under.")
    duration = serializers.FloatField(required=False, help_text="Seconds of wall-clock time the game took (a "
                                                                "played game's record).")
    thinking = ThinkingSerializer(required=False, help_text="Each side's seconds on its actions (a played "
                                                            "game's record).")
    stderr = SidesTextSerializer(required=False, help_text="The end of each of your bots' stderr (owners and "
                                                           "staff only).")
    log = serializers.ListField(child=serializers.CharField(), required=False,
                                help_text="The protocol lines to and from your bots, and the runner's about them "
                                          "(owners and staff only).")
    detail = serializers.CharField(required=False, help_text="The runner's account of how the game ended (owners "
                                                             "of a bot that did not win, and staff).")


class GameSerializer(GameBriefSerializer):
    record = serializers.SerializerMethodField(
        help_text="The game record (see the README: game, ruleset, settings, initial, actions, winner, reason, "
                  "plies, final, per-action times); a bot's stderr and protocol log only for its owner and staff.")

    class Meta(GameBriefSerializer.Meta):
        fields = GameBriefSerializer.Meta.fields + ["record"]
        read_only_fields = fields

    @extend_schema_field(GameRecordSerializer)
    def get_record(self, game) -> dict:
        """The public record (actions, times, result, reason); a bot's stderr and protocol log only for its
        owner and staff."""
        request = self.context.get("request")
        return record_seen_by(game, getattr(request, "user", None))


class MatchSerializer(serializers.ModelSerializer):
    version_a = VersionBriefSerializer(read_only=True, help_text="Version A: white in odd-numbered games.")
    version_b = VersionBriefSerializer(read_only=True, help_text="Version B: white in even-numbered games.")
    tournament = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True, help_text="Id of the tournament the match belongs to; null for a challenge.")

    class Meta:
        model = Match
        fields = ["id", "game", "version_a", "version_b", "tournament", "round", "rated", "time_control",
                  "games_per_match", "ruleset", "status", "score_a", "score_b", "created_at", "started_at",
                  "finished_at", "attempts", "failure_reason"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": ID_HELP}, "game": {"help_text": GAME_HELP},
            "round": {"help_text": "The tournament round (Berger table); null outside tournaments."},
            "rated": {"help_text": "Whether the match's games change ratings."},
            "time_control": {"help_text": TIME_CONTROL_HELP},
            "games_per_match": {"help_text": "How many games the match plays, colours alternating."},
            "ruleset": {"help_text": "The referee's ruleset version the games were played under."},
            "status": {"help_text": "`queued`, `running`, then `finished`, `failed` or `cancelled`."},
            "score_a": {"help_text": "Points of version A so far: 1 a win, 0.5 a draw."},
            "score_b": {"help_text": "Points of version B so far: 1 a win, 0.5 a draw."},
            "created_at": {"help_text": "When the match was asked for."},
            "started_at": {"help_text": "When a worker started it; null while queued."},
            "finished_at": {"help_text": "When it ended; null until then."},
            "attempts": {"help_text": "How many times a worker took it up (more than 1 after a worker was lost)."},
            "failure_reason": {"help_text": "Why the match failed; empty unless its status is `failed`."},
        }


class MatchDetailSerializer(MatchSerializer):
    games = GameBriefSerializer(many=True, read_only=True, help_text="The games played so far, in order.")

    class Meta(MatchSerializer.Meta):
        fields = MatchSerializer.Meta.fields + ["games"]
        read_only_fields = fields


@extend_schema_serializer(component_name="Challenge")  # "ChallengeRequest" in the schema
class MatchRequestSerializer(StrictInput):
    version_a = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="Id of a ready version you own (or any, for admins).")
    version_b = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="Id of a ready version of the same game.")
    rated = serializers.BooleanField(
        default=False, help_text="Always false: a challenge is unrated (true is refused with a 400); rated games "
                                 "come from the ranked ladder and official tournaments (marked by staff).")
    games_per_match = GamesCount(
        required=False,
        help_text=f"How many games to play, colours alternating: at most the server's bound "
                  f"({arena.MAX_GAMES_PER_MATCH} unless set otherwise); the server's default when left out.")
    time_control = serializers.CharField(max_length=40, required=False, trim_whitespace=False,
                                         validators=[TIME_CONTROL_PATTERN], help_text=TIME_CONTROL_CHOICE_HELP)


# --- tournaments -----------------------------------------------------------------------------

PRIVATE_BOT = "private bot"


class EntrantVersionSerializer(VersionBriefSerializer):
    """An entrant's version on a tournament page: a private bot is named (with its ids) only to its owner and
    staff; anyone else reads ``bot_name`` "private bot" and null ids, its results still in place."""

    id = serializers.IntegerField(read_only=True, allow_null=True,
                                  help_text="Id of the bot version; null when its bot is private and not yours.")
    bot_id = serializers.IntegerField(read_only=True, allow_null=True,
                                      help_text="Id of the bot; null when it is private and not yours.")
    bot_name = serializers.CharField(source="bot.name", read_only=True,
                                     help_text=f'The bot\'s name; "{PRIVATE_BOT}" when it is private and not yours.')
    number = serializers.IntegerField(read_only=True, allow_null=True,
                                      help_text="The version's number; null when its bot is private and not yours.")

    def to_representation(self, version):
        request = self.context.get("request")
        if may_see_bot(getattr(request, "user", None), version.bot):
            return super().to_representation(version)
        return {"id": None, "bot_id": None, "bot_name": PRIVATE_BOT, "number": None}


class EntrantSerializer(serializers.ModelSerializer):
    version = EntrantVersionSerializer(read_only=True, help_text="The bot version entered.")

    class Meta:
        model = TournamentEntrant
        fields = ["id", "seed", "version", "added_at"]
        read_only_fields = fields
        extra_kwargs = {"id": {"help_text": ID_HELP},
                        "seed": {"help_text": "The entrant's seed: 1, 2, ... in the order entered."},
                        "added_at": {"help_text": "When the version was entered."}}


GAMES_PER_PAIRING_HELP = "Games each pairing plays per round, colours alternating."


GAMES_PER_PAIRING_HELP = ("Games each time two entrants meet (one match, colours alternating game by game). "
                          "With double_round they meet twice, so they play twice as many: see games_per_two_entrants.")
DOUBLE_ROUND_HELP = "Whether every two entrants meet twice (two matches, the second with colours swapped)."
OFFICIAL_HELP = ("Whether the tournament's games are rated (move the leaderboard). Only staff mark a tournament "
                 "official; a player's tournament keeps its standings and crosstable but is unrated.")
ROUNDS_HELP = "A Swiss's number of rounds (it needs more entrants than rounds); null for a round robin."
BYE_POINTS_HELP = "A Swiss's pairing-allocated bye is worth this many match points: 0, 0.5 or 1."
LATE_ENTRY_POINTS_HELP = ("Each round a Swiss's late entrant missed (before its first pairing) is worth this many "
                          "match points: 0 (not paired, FIDE's zero-point bye), 0.5 or 1.")
TIEBREAKS_HELP = ("The tie-breaks that order entrants level on score, in order: `direct_encounter` (points in the "
                  "games among the tied entrants, if all have met; re-applied to a smaller group still level), "
                  "`wins` (games won), `sonneborn_berger` (each point scored against an opponent times that "
                  "opponent's score), `koya` (points scored against entrants with at least half the points they "
                  "played for). Default: FIDE's recommended order for a round robin, "
                  + ", ".join(TIEBREAKS) + ".")


FORMAT_HELP = ("`round_robin` (everyone meets everyone), `swiss` (a number of rounds, each paired by FIDE's Dutch "
               "system when the last has finished; each pairing a colour-swapped mini-match of an even "
               "games_per_pairing, scored 1, 0.5 or 0 match points), `gauntlet` (the champion against every other "
               "entrant) or `knockout` (a bracket of mini-matches; byes to the top seeds).")
CHAMPION_HELP = "Gauntlet: id of the version that plays every other entrant; it must be entered before the start."
SEEDING_HELP = ("Knockout and Swiss: `rating` seeds (a Swiss's pairing numbers, a late entrant's included) by the "
                "game's latest fitted rating (unrated entrants after, as listed), `listed` in the order the "
                "entrants were added.")
TIEBREAK_PAIRS_HELP = ("Knockout: a mini-match left level plays tie-break pairs of two games (colours swapped) while "
                       "level, at most this many; level after them, the higher seed advances.")


class TournamentSerializer(serializers.ModelSerializer):
    organiser = serializers.CharField(source="organiser.username", read_only=True,
                                      help_text="The organiser's user name.")
    organiser_id = serializers.IntegerField(read_only=True, help_text="The organiser's player id.")
    games_per_two_entrants = serializers.SerializerMethodField(
        help_text="Games any two entrants play against each other in all: games_per_pairing, twice with "
                  "double_round.")
    games_total = serializers.SerializerMethodField(
        help_text="Games the whole tournament plays with its entrants as they are now: games_per_two_entrants "
                  "for every two entrants.")
    tiebreaks = serializers.ListField(child=serializers.ChoiceField(choices=TIEBREAKS), source="tiebreak_order",
                                      read_only=True, help_text=TIEBREAKS_HELP)
    champion = serializers.IntegerField(source="champion_id", read_only=True, allow_null=True,
                                        help_text=CHAMPION_HELP + " Null in other formats.")
    opening_suite = serializers.IntegerField(source="opening_suite_id", read_only=True, allow_null=True,
                                             help_text=OPENING_SUITE_HELP + " Null: the initial position.")

    class Meta:
        model = Tournament
        fields = ["id", "name", "game", "format", "rounds", "bye_points", "late_entry_points", "organiser",
                  "organiser_id", "time_control",
                  "games_per_pairing", "double_round", "games_per_two_entrants", "games_total", "official", "tiebreaks",
                  "champion", "seeding", "tiebreak_pairs", "opening_suite", "status", "created_at", "started_at",
                  "finished_at"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": ID_HELP}, "name": {"help_text": "The tournament's name."},
            "game": {"help_text": GAME_HELP},
            "rounds": {"help_text": ROUNDS_HELP}, "bye_points": {"help_text": BYE_POINTS_HELP},
            "late_entry_points": {"help_text": LATE_ENTRY_POINTS_HELP},
            "time_control": {"help_text": TIME_CONTROL_HELP},
            "games_per_pairing": {"help_text": GAMES_PER_PAIRING_HELP},
            "double_round": {"help_text": DOUBLE_ROUND_HELP},
            "official": {"help_text": OFFICIAL_HELP},
            "format": {"help_text": FORMAT_HELP},
            "seeding": {"help_text": SEEDING_HELP},
            "tiebreak_pairs": {"help_text": TIEBREAK_PAIRS_HELP},
            "status": {"help_text": "`draft` (entrants may change), `running`, `finished` or `cancelled`."},
            "created_at": {"help_text": "When the tournament was created."},
            "started_at": {"help_text": "When it was started; null while a draft."},
            "finished_at": {"help_text": "When its last match ended (or it was cancelled); null until then."},
        }

    def get_games_per_two_entrants(self, tournament) -> int:
        return games_per_two_entrants(tournament)

    def get_games_total(self, tournament) -> int:
        count = getattr(tournament, "entrant_count", None)  # annotated on lists (tournaments_all)
        if count is None:
            count = tournament.entrants.count()
        if tournament.format in (Tournament.Format.GAUNTLET, Tournament.Format.KNOCKOUT):
            # One mini-match per other entrant (gauntlet) or per entrant knocked out; tie-breaks not counted.
            return tournament.games_per_pairing * max(0, count - 1)
        if tournament.format == Tournament.Format.SWISS:  # its rounds, one pairing for every two entrants
            return tournament.games_per_pairing * (tournament.rounds or 0) * (count // 2)
        return games_per_two_entrants(tournament) * count * (count - 1) // 2


class TournamentDetailSerializer(TournamentSerializer):
    entrants = EntrantSerializer(many=True, read_only=True, help_text="The entrants, in seed order.")

    class Meta(TournamentSerializer.Meta):
        fields = TournamentSerializer.Meta.fields + ["entrants"]
        read_only_fields = fields


class TournamentCreateSerializer(StrictInput):
    name = serializers.CharField(max_length=100, help_text="The tournament's name, up to 100 characters.")
    game = serializers.ChoiceField(choices=GAME_IDS, help_text=GAME_HELP, error_messages=UNKNOWN_GAME)
    time_control = serializers.CharField(max_length=40, required=False, trim_whitespace=False,
                                         validators=[TIME_CONTROL_PATTERN], help_text=TIME_CONTROL_CHOICE_HELP)
    games_per_pairing = GamesCount(
        required=False,
        help_text=GAMES_PER_PAIRING_HELP + f" At most the server's bound ({arena.MAX_GAMES_PER_MATCH} unless set "
                                           f"otherwise); the server's default when left out.")
    double_round = serializers.BooleanField(required=False, default=True,
                                            help_text=DOUBLE_ROUND_HELP + " Default true.")
    official = serializers.BooleanField(
        required=False, default=False, help_text=OFFICIAL_HELP + " Staff only (a player's true is refused).")
    tiebreaks = serializers.ListField(child=serializers.ChoiceField(choices=TIEBREAKS), required=False,
                                      max_length=len(TIEBREAKS), help_text=TIEBREAKS_HELP)
    format = serializers.ChoiceField(choices=Tournament.Format.choices, required=False,
                                     default=Tournament.Format.ROUND_ROBIN, help_text=FORMAT_HELP)
    champion = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False,
                                        help_text=CHAMPION_HELP + " A gauntlet only (or named later, by a change).")
    seeding = serializers.ChoiceField(choices=SEEDINGS, required=False, default="rating",
                                      help_text=SEEDING_HELP)
    tiebreak_pairs = serializers.IntegerField(min_value=0, max_value=10, required=False, default=2,
                                              help_text=TIEBREAK_PAIRS_HELP + " 0 to 10, default 2.")
    rounds = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=1,
                                      max_value=arena.MAX_TOURNAMENT_ENTRANTS, help_text=ROUNDS_HELP)
    bye_points = serializers.FloatField(required=False, default=1.0, min_value=0, max_value=1,
                                        help_text=BYE_POINTS_HELP + " Default 1.")
    opening_suite = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, required=False, allow_null=True,
        help_text=OPENING_SUITE_HELP + " Needs an even games_per_pairing; left out: the initial position.")
    late_entry_points = serializers.FloatField(required=False, default=0.0, min_value=0, max_value=1,
                                               help_text=LATE_ENTRY_POINTS_HELP + " Default 0.")

    def to_internal_value(self, data):
        # The organiser's "rated" is gone: say why rather than just "unknown field".
        if isinstance(data, dict) and "rated" in data:
            raise serializers.ValidationError({"rated": [
                "players' tournaments are unrated: only staff mark a tournament official (rated)"]})
        return super().to_internal_value(data)


class TournamentChangeSerializer(StrictInput):
    champion = serializers.IntegerField(min_value=1, max_value=MAX_ID, required=False,
                                        help_text=CHAMPION_HELP + " A gauntlet's draft only.")
    official = serializers.BooleanField(required=False, help_text=OFFICIAL_HELP + " Staff only; a draft only.")
    tiebreaks = serializers.ListField(child=serializers.ChoiceField(choices=TIEBREAKS), required=False,
                                      max_length=len(TIEBREAKS), help_text=TIEBREAKS_HELP + " A draft only.")


@extend_schema_serializer(component_name="NewEntrant")  # "NewEntrantRequest" in the schema
class EntrantRequestSerializer(StrictInput):
    version = serializers.IntegerField(
        min_value=1, max_value=MAX_ID, help_text="Id of a ready version of the tournament's game.")


UNPLAYED = "Null while the entrant has played no counted game (an empty table ranks nobody)."


class TiebreakValueSerializer(serializers.Serializer):
    name = serializers.ChoiceField(choices=TIEBREAKS, help_text="The tie-break.")
    value = serializers.FloatField(allow_null=True, help_text="The entrant's value of it (null: see the field of "
                                                              "that name).")

    def to_representation(self, pair):
        name, value = pair
        return {"name": name, "value": value}


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True, help_text="Place, from 1; entrants level on every tie-break "
                                    "share it. " + UNPLAYED)
    seed = serializers.IntegerField(source="entrant.seed", help_text="The entrant's seed.")
    version = EntrantVersionSerializer(source="entrant.version", help_text="The entrant's bot version.")
    score = serializers.FloatField(allow_null=True, help_text="Points: 1 a win, 0.5 a draw. " + UNPLAYED)
    games = serializers.IntegerField(help_text="Games played.")
    wins = serializers.IntegerField(help_text="Games won.")
    draws = serializers.IntegerField(help_text="Games drawn.")
    losses = serializers.IntegerField(help_text="Games lost.")
    sonneborn_berger = serializers.FloatField(
        allow_null=True,
        help_text="Tie-break: each point scored against an opponent, weighted by that opponent's score. " + UNPLAYED)
    direct_encounter = serializers.FloatField(
        allow_null=True,
        help_text="Tie-break: points scored in the games among the entrants it was level with when direct "
                  "encounter was applied; null when it was level with nobody then, or not all of them had met. "
                  + UNPLAYED)
    koya = serializers.FloatField(
        allow_null=True, help_text="Tie-break: points scored against entrants with at least half the points they "
                                   "played for. " + UNPLAYED)
    tiebreaks = TiebreakValueSerializer(many=True, help_text="The tie-breaks the rank was decided by after score, "
                                                             "in the tournament's order, with this entrant's values.")


class CrosstableCellSerializer(serializers.Serializer):
    opponent_seed = serializers.IntegerField(help_text="The opponent's seed (the column).")
    points = serializers.FloatField(allow_null=True, help_text="Points scored against that opponent; null on the "
                                                               "diagonal and while the two have played no "
                                                               "counted game.")
    games = serializers.IntegerField(help_text="Games played against that opponent.")


class CrosstableRowSerializer(serializers.Serializer):
    seed = serializers.IntegerField(help_text="The entrant's seed (the row).")
    version = EntrantVersionSerializer(help_text="The entrant's bot version.")
    cells = CrosstableCellSerializer(many=True, help_text="One cell per opponent, in seed order.")
    score = serializers.FloatField(allow_null=True, help_text="Points in all: 1 a win, 0.5 a draw. " + UNPLAYED)
    rank = serializers.IntegerField(allow_null=True, help_text="Place in the standings. " + UNPLAYED)


# --- ratings ---------------------------------------------------------------------------------

class LeaderboardEntrySerializer(FittedFields, serializers.ModelSerializer):
    bot = serializers.IntegerField(source="bot_id", read_only=True, help_text="Id of the bot.")
    bot_name = serializers.CharField(source="bot.name", read_only=True, help_text="The bot's name.")
    owner = serializers.CharField(source="bot.owner.username", read_only=True, help_text="The owner's user name.")
    class Meta:
        model = Rating
        fields = ["rank", "bot", "bot_name", "owner", "game", "elo", "games", "wins", "draws", "losses",
                  *[name for name in FittedFields.FIELDS if name != "rank"]]
        read_only_fields = fields
        extra_kwargs = RATING_HELP


class RatingChangeSerializer(serializers.ModelSerializer):
    game = serializers.IntegerField(source="played_id", read_only=True, help_text="Id of the rated game.")
    match = serializers.IntegerField(source="match_id", read_only=True, help_text="Id of the game's match.")

    class Meta:
        model = RatingChange
        fields = ["id", "game", "match", "before", "after", "delta", "k", "score", "created_at"]
        read_only_fields = fields
        extra_kwargs = {
            "id": {"help_text": ID_HELP},
            "before": {"help_text": "The live Elo before the game, unrounded as stored (round it for display)."},
            "after": {"help_text": "The live Elo after the game, unrounded as stored."},
            "delta": {"help_text": "after - before, unrounded."},
            "k": {"help_text": "The K factor applied (larger while the bot is provisional)."},
            "score": {"help_text": "1 win, 0.5 draw, 0 loss, for this bot."},
            "created_at": {"help_text": "When the change was recorded."},
        }


class EndpointSerializer(serializers.Serializer):
    url = serializers.URLField(help_text="The endpoint's address.")
    description = serializers.CharField(help_text="What it is.")


def api_root_serializer(endpoints: dict[str, str]) -> type[serializers.Serializer]:
    """The API root's shape: one property per top-level endpoint (name: what it is)."""
    fields = {name: EndpointSerializer(help_text=text) for name, text in endpoints.items()}
    return type("ApiRootSerializer", (serializers.Serializer,), fields)


class ErrorSerializer(serializers.Serializer):
    """The error body (api.exceptions); its schema is written in api.schema."""

    detail = serializers.ListField(child=serializers.CharField(), required=False,
                                   help_text="Messages about the request as a whole.")


# --- Swiss ---------------------------------------------------------------------------------------------------

class SwissCellSerializer(serializers.Serializer):
    opponent_seed = serializers.IntegerField(source="round.opponent", allow_null=True,
                                             help_text="The opponent's seed; null for a bye or a round not played.")
    colour = serializers.CharField(source="round.colour", allow_null=True,
                                   help_text="`w` (white in the mini-match's first game) or `b`; null without a game.")
    points = serializers.FloatField(source="round.points", help_text="Match points of the round.")
    bye = serializers.BooleanField(help_text="Whether it was the pairing-allocated bye.")
    match_id = serializers.IntegerField(source="match.id", allow_null=True, default=None,
                                        help_text="The pairing's match (its games link to their replays).")


class SwissLineSerializer(serializers.Serializer):
    rank = serializers.IntegerField(source="standing.rank",
                                    help_text="Place; entrants level on every tie-break share it.")
    seed = serializers.IntegerField(source="entrant.seed", help_text="The entrant's seed (its pairing number).")
    version = EntrantVersionSerializer(source="entrant.version", help_text="The entrant's bot version.")
    score = serializers.FloatField(source="standing.score", help_text="Match points: 1 a pairing won, 0.5 drawn, byes.")
    tiebreaks = serializers.SerializerMethodField(help_text="The Swiss tie-breaks in the order applied: Buchholz "
                                                  "cut-1, Buchholz, Sonneborn-Berger, wins, direct encounter.")
    rounds = SwissCellSerializer(source="cells", many=True, help_text="Round by round, from round 1.")

    def get_tiebreaks(self, line) -> list[dict]:
        return [{"name": name, "value": value} for name, value in line.standing.tiebreaks]


class SwissRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="The round.")
    bye_seed = serializers.IntegerField(source="bye.seed", allow_null=True, default=None,
                                        help_text="Who had the pairing-allocated bye; null without one.")
    note = serializers.CharField(help_text="Why the Swiss ended before this round (empty for a paired round).")


class SwissSerializer(serializers.Serializer):
    rounds = SwissRoundSerializer(many=True, help_text="The rounds paired so far.")
    standings = SwissLineSerializer(source="lines", many=True, help_text="The standings, best first.")
    note = serializers.CharField(help_text="Why the Swiss ended early; empty otherwise.")
