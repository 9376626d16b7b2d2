"""Players' bots and their versions, matches and their games, round-robin tournaments.

Rows only: the rules of the service live in ``services.py`` (writes) and ``selectors.py`` (reads).
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Length

from engines import GAME_IDS, Winner

from .names import name_key

models.CharField.register_lookup(Length)

GAME_CHOICES = [(game_id, game_id) for game_id in GAME_IDS]

# The protocol's name characters (BGTP/1 §4) and length: a bot's name is safe in a log line, a URL or a
# file name, and never a path (no '/', never '.' or '..').
BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
BOT_NAME_RULE = "1 to 32 letters, digits, '_', '.' or '-', starting with a letter or a digit"


def validate_bot_name(name) -> None:
    if not isinstance(name, str) or not BOT_NAME.fullmatch(name):
        raise ValidationError(f"{name!r} is not a bot name: use {BOT_NAME_RULE}")


class Bot(models.Model):
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="bots")
    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    name = models.CharField(max_length=64, validators=[validate_bot_name])
    description = models.TextField(blank=True, default="")
    is_public = models.BooleanField(default=True)
    open_to_tournaments = models.BooleanField(
        default=False, help_text="The owner's consent: other players may enter this bot in their tournaments.")
    # The new columns have database defaults too: rows written outside the ORM (the benchmarks' COPY) still fit.
    is_retired = models.BooleanField(
        default=False, db_default=False,
        help_text="The owner's switch: a retired bot leaves the ladder and the leaderboard and is not paired; its "
                  "games and ratings stay, and it can come back.")
    pinned_version = models.ForeignKey(
        "BotVersion", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The version that plays; empty: the newest ready, active, enabled one.")
    created_at = models.DateTimeField(auto_now_add=True)
    # The name as names are compared (tournaments.names), kept by save(): the database itself refuses an
    # owner's second bot of a game whose name only looks like the first's, even two made at the same instant.
    name_key = models.TextField(null=True, editable=False)

    class Meta:
        ordering = ["game", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "game", "name"], name="bot_unique_owner_game_name"),
            models.UniqueConstraint(fields=["owner", "game", "name_key"], name="bot_unique_owner_game_name_key"),
            models.CheckConstraint(condition=Q(game__in=GAME_IDS), name="bot_game_known"),
            models.CheckConstraint(condition=~Q(name=""), name="bot_name_not_empty"),
        ]
        indexes = [
            models.Index(fields=["game", "is_public"], name="bot_game_public_idx"),
            models.Index(fields=["created_at"], name="bot_created_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.game})"

    def save(self, *args, **kwargs):
        self.name_key = name_key(self.name) or None
        if kwargs.get("update_fields") is not None and "name" in kwargs["update_fields"]:
            kwargs["update_fields"] = {*kwargs["update_fields"], "name_key"}
        super().save(*args, **kwargs)


class PlayerName(models.Model):
    """A user name as names are compared (``tournaments.names``), one row per user, kept whenever a user is
    saved (``tournaments.apps``): the unique key makes the database refuse a look-alike of an existing user
    name, on every path that makes users (registration, the admin, ``createsuperuser``) and in any race.
    Empty for a name with no letter or digit, and for the rare old account whose name was a look-alike
    before the rule."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="name_form")
    key = models.TextField(null=True, unique=True)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.key}"


def version_upload_path(version: BotVersion, filename: str) -> str:
    return f"bots/{version.bot_id}/{version.number}/{filename}"


def original_upload_path(version: BotVersion, filename: str) -> str:
    """The player's own file, beside the stored bundle; the name is ours (``original.<kind>``), never theirs."""
    return f"bots/{version.bot_id}/{version.number}/original.{version.kind}"


class BotVersion(models.Model):
    """One uploaded file of a bot. Immutable once stored: a new upload is a new version."""

    class Status(models.TextChoices):
        PENDING = "pending"
        READY = "ready"
        REJECTED = "rejected"

    class Kind(models.TextChoices):
        PYTHON = "py"
        ZIP = "zip"
        TAR_GZ = "tar.gz"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    # Before issue 18 the checked list of files was stored here too (a bundle); new versions store only
    # ``original``, and this stays empty.
    file = models.FileField(upload_to=version_upload_path, max_length=255, blank=True, default="")
    filename = models.CharField(max_length=255)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    sha256 = models.CharField(max_length=64)
    size = models.PositiveIntegerField()
    uploaded_at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    reject_reason = models.TextField(blank=True, default="")
    reject_stderr = models.TextField(
        blank=True, default="", db_default="",
        help_text="The last lines the bot wrote to stderr in the smoke test that rejected it (its owner's to read).")
    checked_at = models.DateTimeField(null=True, blank=True)
    # When a worker took the smoke test: no second worker takes it until the smoke lease runs out.
    smoke_started_at = models.DateTimeField(null=True, blank=True)
    is_disabled = models.BooleanField(default=False, help_text="Operator switch: a disabled version never plays.")
    is_active = models.BooleanField(
        default=True, db_default=True,
        help_text="The owner's switch: an inactive version is not paired (the ladder, challenges, new tournament "
                  "entries); matches already scheduled in a tournament still play.")
    original = models.FileField(
        upload_to=original_upload_path, max_length=255, blank=True, default="", db_default="",
        help_text="The file exactly as uploaded, stored once: its owner downloads it and the worker reads it (after "
                  "checking its checksum). Empty for versions uploaded before the arena kept it.")

    class Meta:
        ordering = ["bot_id", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="botversion_number_positive"),
            models.CheckConstraint(condition=Q(status__in=["pending", "ready", "rejected"]),
                                   name="botversion_status_known"),
            models.CheckConstraint(condition=~Q(status="rejected") | ~Q(reject_reason=""),
                                   name="botversion_rejected_has_reason"),
            models.CheckConstraint(condition=Q(sha256__length=64), name="botversion_sha256_length"),
        ]
        indexes = [
            models.Index(fields=["status"], name="botversion_status_idx"),
            models.Index(fields=["bot", "status", "-number"], name="botversion_playable_idx"),
            models.Index(fields=["uploaded_at"], name="botversion_uploaded_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"

    @property
    def game(self) -> str:
        return self.bot.game


# The tie-breaks a round robin may order its standings by (tournaments.selectors.crosstable computes them).
# The default is FIDE's recommended order for a round robin (FIDE Tie-Break Regulations, C.07).
TIEBREAKS = ("direct_encounter", "wins", "sonneborn_berger", "koya")
DEFAULT_TIEBREAKS = ",".join(TIEBREAKS)


# How a knockout's bracket is seeded (tournaments.knockout).
SEEDINGS = [("rating", "by fitted rating"), ("listed", "as listed")]


class OpeningSuite(models.Model):
    """Start positions for one game and ruleset, made from the referee (``engines.openings``) and played in
    colour-swapped pairs: both games of a pair start from the same opening."""

    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    ruleset = models.CharField(max_length=40, help_text="The referee's ruleset the positions were made with.")
    name = models.CharField(max_length=64)
    seed = models.BigIntegerField(help_text="The random seed that reproduces the suite.")
    plies = models.PositiveSmallIntegerField(help_text="Random legal plies (placements in Fidchell) from the start.")
    ladder = models.BooleanField(default=False, help_text="The suite the ranked ladder plays this game with.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "name"]
        constraints = [
            models.UniqueConstraint(fields=["game", "name"], name="opening_suite_unique_name"),
            models.UniqueConstraint(fields=["game"], condition=Q(ladder=True), name="opening_suite_one_ladder"),
            models.CheckConstraint(condition=Q(game__in=GAME_IDS), name="opening_suite_game_known"),
        ]

    def __str__(self) -> str:
        return f"{self.game}/{self.name}"


class Opening(models.Model):
    """One start position of a suite; retired (never dealt again) when its pairs show it one-sided."""

    suite = models.ForeignKey(OpeningSuite, on_delete=models.CASCADE, related_name="openings")
    number = models.PositiveIntegerField()
    position = models.TextField(help_text="The start position in the game's notation.")
    retired_at = models.DateTimeField(null=True, blank=True)
    retired_reason = models.CharField(max_length=200, blank=True, default="")
    # What dealing balances, kept here because counting a suite's games at each match start grows with its history
    # (57 ms a match at 100,000 games on PostgreSQL, 2.5 s at 1,000,000). Games dealt, not played: a requeued
    # match's are dealt again.
    dealt = models.PositiveBigIntegerField(default=0, help_text="Games dealt this opening so far.")

    class Meta:
        ordering = ["suite_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["suite", "number"], name="opening_unique_number"),
            models.UniqueConstraint(fields=["suite", "position"], name="opening_unique_position"),
        ]

    def __str__(self) -> str:
        return f"{self.suite} #{self.number}"


class Tournament(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft"
        RUNNING = "running"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", "round robin"
        SWISS = "swiss", "Swiss (FIDE Dutch system)"
        GAUNTLET = "gauntlet", "gauntlet"
        KNOCKOUT = "knockout", "knockout"

    name = models.CharField(max_length=100)
    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    format = models.CharField(max_length=12, choices=Format.choices, default=Format.ROUND_ROBIN)
    # A Swiss plays this many rounds; other formats derive theirs from the entrants.
    rounds = models.PositiveIntegerField(null=True, blank=True)
    # A gauntlet plays this entrant against every other one (tournaments.services.gauntlet).
    champion = models.ForeignKey(
        BotVersion, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Gauntlet: the entered version that plays every other entrant.")
    # A knockout (tournaments.services.knockout): how the bracket is seeded, and how many colour-swapped
    # tie-break pairs a level mini-match plays before the higher seed advances.
    seeding = models.CharField(max_length=8, choices=SEEDINGS,
                               default="rating", db_default="rating")
    tiebreak_pairs = models.PositiveIntegerField(
        default=2, db_default=2,
        help_text="Knockout: tie-break pairs (two games, colours swapped) a level mini-match plays at most; still "
                  "level after them, the higher seed advances.")
    # What a Swiss's pairing-allocated bye scores (FIDE's default: a win's point; some events give a half).
    bye_points = models.FloatField(default=1.0, help_text="Swiss only: the match points of a pairing-allocated bye.")
    late_entry_points = models.FloatField(
        default=0.0, db_default=0.0,
        help_text="Swiss only: the match points of each round a late entrant missed (0: not paired, "
                  "FIDE's zero-point bye; 0.5: a half-point bye).")
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournaments")
    time_control = models.CharField(max_length=40)
    games_per_pairing = models.PositiveIntegerField(default=2)
    double_round = models.BooleanField(default=True, help_text="Every pairing twice, colours swapped.")
    opening_suite = models.ForeignKey(
        OpeningSuite, null=True, blank=True, on_delete=models.PROTECT, related_name="tournaments",
        help_text="Start positions its pairings play, each twice with colours swapped; empty: the initial one.")
    # Only the arena decides which games move the public leaderboard: staff mark a tournament official (the admin,
    # or the API as staff); a player's own tournament keeps its standings but is unrated, so puppet accounts
    # losing on purpose to one bot cannot pump its rating.
    official = models.BooleanField(default=False, help_text="Set by staff only: whether the tournament's games "
                                                            "are rated (change the leaderboard).")
    tiebreaks = models.CharField(max_length=100, default=DEFAULT_TIEBREAKS,
                                 help_text="The tie-breaks after score, in order, comma-separated, from: "
                                           + ", ".join(TIEBREAKS) + ".")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(game__in=GAME_IDS), name="tournament_game_known"),
            models.CheckConstraint(condition=Q(games_per_pairing__gte=1), name="tournament_games_positive"),
            models.CheckConstraint(condition=Q(status__in=["draft", "running", "finished", "cancelled"]),
                                   name="tournament_status_known"),
            models.CheckConstraint(condition=Q(format__in=["round_robin", "swiss", "gauntlet", "knockout"]),
                                   name="tournament_format_known"),
        ]
        indexes = [
            models.Index(fields=["status"], name="tournament_status_idx"),
            models.Index(fields=["game", "status"], name="tournament_game_status_idx"),
            models.Index(fields=["created_at"], name="tournament_created_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def tiebreak_order(self) -> list[str]:
        return [name for name in self.tiebreaks.split(",") if name]


class TournamentEntrant(models.Model):
    """A bot version entered in a tournament; ``seed`` is its place in the Berger table."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")
    seed = models.PositiveIntegerField()
    added_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament_id", "seed"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "version"], name="entrant_unique_version"),
            models.UniqueConstraint(fields=["tournament", "seed"], name="entrant_unique_seed"),
            models.CheckConstraint(condition=Q(seed__gte=1), name="entrant_seed_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} #{self.seed}: {self.version}"


class Match(models.Model):
    """Games between bot versions A and B, colours alternating (A is white in game 1)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        FINISHED = "finished"
        FAILED = "failed"
        CANCELLED = "cancelled"

    class Priority(models.IntegerChoices):
        """Which queued match a free worker plays first: the highest, then the oldest (smoke tests of new
        versions come before any match; see ``workers.playing``)."""

        LADDER = 10, "ranked ladder"
        REQUESTED = 20, "tournament or requested match"

    game = models.CharField(max_length=16, choices=GAME_CHOICES)
    version_a = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="matches_as_a")
    version_b = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="matches_as_b")
    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="matches")
    round = models.PositiveIntegerField(null=True, blank=True, help_text="Tournament round (Berger table).")
    rated = models.BooleanField(default=True)
    priority = models.PositiveSmallIntegerField(choices=Priority.choices, default=Priority.REQUESTED)
    time_control = models.CharField(max_length=40)
    games_per_match = models.PositiveIntegerField(default=2)
    ruleset = models.CharField(max_length=40, blank=True, default="")
    opening_suite = models.ForeignKey(
        OpeningSuite, null=True, blank=True, on_delete=models.PROTECT, related_name="matches",
        help_text="Games 2k-1 and 2k start from one opening of it, colours swapped; empty: the initial position.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    score_a = models.FloatField(default=0)
    score_b = models.FloatField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The lease a worker holds while it plays the match.
    worker_id = models.CharField(max_length=100, blank=True, default="")
    lease_token = models.UUIDField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    failure_reason = models.TextField(blank=True, default="")
    # Who the match's worker time is charged to (tournaments.services.worker_time): a challenge's requester,
    # a tournament's organiser, an SPRT's owner; empty for the ranked ladder, which has a share of its own.
    charged_to = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="charged_matches",
        help_text="The owner whose share of the workers this match uses; empty: the ranked ladder.")
    cost_seconds = models.FloatField(
        default=0, db_default=0,
        help_text="Expected worker-seconds of the whole match, from its time control and games (counted against "
                  "its owner's budget of queued worker time).")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "matches"
        constraints = [
            models.CheckConstraint(condition=~Q(version_a=F("version_b")), name="match_distinct_versions"),
            models.CheckConstraint(condition=Q(game__in=GAME_IDS), name="match_game_known"),
            models.CheckConstraint(condition=Q(games_per_match__gte=1), name="match_games_positive"),
            models.CheckConstraint(condition=Q(score_a__gte=0) & Q(score_b__gte=0), name="match_score_not_negative"),
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "finished", "failed", "cancelled"]),
                name="match_status_known"),
            models.CheckConstraint(condition=~Q(status="running") | Q(lease_token__isnull=False),
                                   name="match_running_has_lease"),
            models.CheckConstraint(condition=Q(priority__in=[10, 20]), name="match_priority_known"),
        ]
        indexes = [
            # The claim: the next queued match by priority, then age (tournaments.services.matches).
            models.Index(fields=["status", "-priority", "created_at", "id"], name="match_claim_idx"),
            # The fair-share claim: one account's (an owner's, or the ladder's) next queued match.
            models.Index(fields=["status", "charged_to", "-priority", "created_at", "id"],
                         name="match_claim_owner_idx"),
            models.Index(fields=["status", "created_at"], name="match_status_created_idx"),
            models.Index(fields=["game", "status"], name="match_game_status_idx"),
            models.Index(fields=["status", "lease_expires_at"], name="match_lease_idx"),
            models.Index(fields=["created_at"], name="match_created_idx"),
            models.Index(fields=["finished_at"], name="match_finished_idx"),
            # The ladder's newest match (workers.ladder, whose turn among the games): only the ladder's rows, so the
            # read does not walk back over the tournaments' and challenges' matches created since.
            models.Index(fields=["-id"], condition=Q(tournament__isnull=True, rated=True), name="match_ladder_idx"),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.game})"

    def clean(self) -> None:
        """The admin's hand-made or edited matches obey the rule the services follow."""
        if self.rated and self.version_a_id and self.version_b_id and same_owner(self.version_a, self.version_b):
            raise ValidationError({"rated": [SAME_OWNER_UNRATED]})


SAME_OWNER_UNRATED = "two bots of one owner never play a rated game"


def same_owner(version_a: BotVersion, version_b: BotVersion) -> bool:
    """Ratings come only from fair games: two bots of one owner (or two versions of one bot) play unrated."""
    return version_a.bot.owner_id == version_b.bot.owner_id


class Game(models.Model):
    """One game of a match, with the referee's record."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="games")
    number = models.PositiveIntegerField()
    white = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="games_as_white")
    black = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="games_as_black")
    record = models.JSONField(default=dict)
    opening = models.ForeignKey(Opening, null=True, blank=True, on_delete=models.PROTECT, related_name="games",
                                help_text="The opening it started from (its record's initial position).")
    winner = models.CharField(max_length=5, choices=[(w.value, w.value) for w in Winner])
    reason = models.CharField(max_length=40)
    plies = models.PositiveIntegerField(default=0)
    duration = models.FloatField(
        null=True, blank=True, help_text="Seconds of wall-clock time, from the bots' start to the end of the game; "
                                         "null for games stored before the runner measured it.")
    white_thinking = models.FloatField(
        null=True, blank=True, help_text="Seconds White's bot spent on its actions (the sum of its times); null "
                                         "for games stored before it was kept.")
    black_thinking = models.FloatField(
        null=True, blank=True, help_text="Seconds Black's bot spent on its actions; null for games stored before "
                                         "it was kept.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["match_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["match", "number"], name="game_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="game_number_positive"),
            models.CheckConstraint(condition=Q(winner__in=[w.value for w in Winner]), name="game_winner_known"),
            models.CheckConstraint(condition=~Q(white=F("black")), name="game_distinct_sides"),
        ]
        indexes = [
            models.Index(fields=["created_at"], name="game_created_idx"),
            models.Index(fields=["white", "created_at"], name="game_white_idx"),
            models.Index(fields=["black", "created_at"], name="game_black_idx"),
        ]

    def __str__(self) -> str:
        return f"Game {self.match_id}.{self.number}"


class Worker(models.Model):
    """A worker as it last asked for work: whether its sandbox keeps each bot apart (per-bot cgroups for
    memory, processes, an equal CPU share and a real freeze), and so whether it may play rated matches."""

    worker_id = models.CharField(max_length=100, primary_key=True)
    isolation_problem = models.CharField(
        max_length=300, blank=True, help_text="Why its bots could reach each other; empty when they cannot.")
    plays_rated = models.BooleanField(help_text="Whether it takes rated matches (ARENA_RATED_NEEDS_ISOLATION).")
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["-seen_at"]
        indexes = [models.Index(fields=["seen_at"], name="worker_seen_idx")]

    def __str__(self) -> str:
        return self.worker_id


class SwissRound(models.Model):
    """A Swiss round as paired (its matches carry its number), with its bye; or the round that could not be
    paired, whose ``note`` says why the Swiss ended early."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="swiss_rounds")
    number = models.PositiveIntegerField()
    bye = models.ForeignKey(TournamentEntrant, null=True, blank=True, on_delete=models.CASCADE,
                            related_name="swiss_byes")
    bye_points = models.FloatField(default=0)
    note = models.CharField(max_length=300, blank=True, default="")
    paired_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="swiss_round_unique_number"),
            models.UniqueConstraint(fields=["tournament", "bye"], name="swiss_round_one_bye_each"),
            models.CheckConstraint(condition=Q(number__gte=1), name="swiss_round_number_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} round {self.number}"


class KnockoutWalkover(models.Model):
    """A knockout pairing decided without play: ``loser``'s version could no longer play (retired, disabled,
    deactivated, rejected) when its mini-match or tie-break was due, so the other entrant advanced."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="walkovers")
    round = models.PositiveIntegerField()
    loser = models.ForeignKey(TournamentEntrant, on_delete=models.CASCADE, related_name="walkovers")
    reason = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tournament", "round", "loser"],
                                               name="one_walkover_per_entrant_and_round")]

    def __str__(self) -> str:
        return f"{self.loser} gave a walkover in round {self.round}"


class SwissWithdrawal(models.Model):
    """An entrant who left a Swiss between rounds: paired up to ``after_round``, never after."""

    entrant = models.OneToOneField(TournamentEntrant, on_delete=models.CASCADE, related_name="swiss_withdrawal")
    after_round = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.entrant} withdrew after round {self.after_round}"
