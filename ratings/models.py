"""A bot's Elo per game and the change every rated game made to it."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from engines import GAME_IDS

from .fit import BRIEF, STATUSES, Interval


class Rating(models.Model):
    bot = models.ForeignKey("tournaments.Bot", on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=16, choices=[(g, g) for g in GAME_IDS])
    elo = models.FloatField()
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["game", "-elo", "bot_id"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "game"], name="rating_unique_bot_game"),
            models.CheckConstraint(condition=Q(games=F("wins") + F("draws") + F("losses")),
                                   name="rating_games_add_up"),
        ]
        indexes = [models.Index(fields=["game", "-elo"], name="rating_leaderboard_idx")]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.game} {self.elo:.1f}"


class RatingChange(models.Model):
    """What one rated game did to one bot's rating."""

    bot = models.ForeignKey("tournaments.Bot", on_delete=models.CASCADE, related_name="rating_changes")
    played = models.ForeignKey("tournaments.Game", on_delete=models.CASCADE, related_name="rating_changes")
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    k = models.PositiveIntegerField()
    score = models.FloatField(help_text="1 win, 0.5 draw, 0 loss, for this bot.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["played_id", "bot_id"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "played"], name="ratingchange_once_per_game"),
            models.CheckConstraint(condition=Q(score__in=[0, 0.5, 1]), name="ratingchange_score_known"),
        ]
        indexes = [models.Index(fields=["bot", "played"], name="ratingchange_history_idx")]

    def __str__(self) -> str:
        return f"{self.bot_id} {self.before:.1f}->{self.after:.1f}"


class RatingFit(models.Model):
    """The latest maximum-likelihood fit of one game's rated games (``ratings.fit``): when, over how many
    games, and the first player's advantage and the draw rate it found. ``note`` says why nobody is rated."""

    game = models.CharField(max_length=16, choices=[(g, g) for g in GAME_IDS], unique=True)
    fitted_at = models.DateTimeField()
    games = models.PositiveIntegerField(help_text="Rated games read (between two different bots).")
    fitted_games = models.PositiveIntegerField(help_text="Of those, the games inside the rated pool.")
    average = models.FloatField(help_text="The pool's average rating the fit is anchored to.")
    advantage = models.FloatField(null=True, blank=True, help_text="The first player's advantage, Elo.")
    advantage_margin = models.FloatField(null=True, blank=True, help_text="Half-width of its 95% interval.")
    draw_nu = models.FloatField(null=True, blank=True, help_text="Davidson's draw parameter ν (0: no draws).")
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["game"]

    def __str__(self) -> str:
        return f"{self.game} fit of {self.games} games at {self.fitted_at:%Y-%m-%d %H:%M}"


class FittedRating(Interval, models.Model):
    """One bot version's fitted rating and 95% interval; ``elo`` is null when the results do not bound it
    (status). The fit rates versions, not bots: a new version's games are new evidence, not more of the old.

    ``current`` marks the version its bot played the ladder with when the fit was stored (the rule of
    ``tournaments.selectors.ladder_versions``): that row is the bot's rating on the leaderboard. Of those,
    a rated one whose margin is within ``LEADERBOARD_RANKED_MARGIN`` is ranked: ``rank`` (by fitted Elo among
    the ranked), the 95% interval of its rank and its chance of being first (``ratings.ranks``), computed
    once here so that reads stay cheap; all four are null on every other row."""

    class Status(models.TextChoices):
        RATED = "rated"
        ABOVE = "above"  # beat the pool every time: unbounded above
        BELOW = "below"  # lost to the pool every time: unbounded below
        APART = "apart"  # no game links it to the pool
        UNRATED = "unrated"  # the pool as a whole has no fit (see RatingFit.note)

    fit = models.ForeignKey(RatingFit, on_delete=models.CASCADE, related_name="ratings")
    version = models.ForeignKey("tournaments.BotVersion", on_delete=models.CASCADE, related_name="fitted_ratings")
    # The version's bot, kept beside it so that a bot's rows are one index away (the leaderboard's join).
    bot = models.ForeignKey("tournaments.Bot", on_delete=models.CASCADE, related_name="fitted_ratings")
    status = models.CharField(max_length=8, choices=Status.choices)
    elo = models.FloatField(null=True, blank=True)
    margin = models.FloatField(null=True, blank=True, help_text="Half-width of the 95% interval, Elo.")
    games = models.PositiveIntegerField()
    current = models.BooleanField(default=False, help_text="The version its bot played the ladder with at the fit.")
    rank = models.PositiveIntegerField(null=True, blank=True, help_text="Place among the ranked; null: not ranked.")
    rank_low = models.PositiveIntegerField(null=True, blank=True, help_text="Best rank of its 95% interval.")
    rank_high = models.PositiveIntegerField(null=True, blank=True, help_text="Worst rank of its 95% interval.")
    p_first = models.FloatField(null=True, blank=True, help_text="Probability that it is the strongest ranked bot.")

    class Meta:
        ordering = ["fit", F("elo").desc(nulls_last=True), "version_id"]
        constraints = [
            models.UniqueConstraint(fields=["fit", "version"], name="fittedrating_once_per_fit"),
            # One row stands for a bot on the board.
            models.UniqueConstraint(fields=["bot"], condition=Q(current=True), name="fittedrating_one_current"),
            models.CheckConstraint(condition=Q(status="rated", elo__isnull=False, margin__isnull=False)
                                   | Q(~Q(status="rated"), elo__isnull=True, margin__isnull=True),
                                   name="fittedrating_elo_iff_rated"),
            # Ranked rows have all four rank fields, and only current rated rows are ranked.
            models.CheckConstraint(condition=Q(rank__isnull=True, rank_low__isnull=True, rank_high__isnull=True,
                                               p_first__isnull=True)
                                   | Q(current=True, status="rated", rank__isnull=False, rank_low__lte=F("rank"),
                                       rank_high__gte=F("rank"), p_first__gte=0, p_first__lte=1),
                                   name="fittedrating_ranked_whole"),
        ]
        indexes = [models.Index(fields=["fit", "-elo"], name="fittedrating_board_idx")]

    def __str__(self) -> str:
        return f"{self.bot_id}/{self.version_id} {self.status} {self.elo}"

    @property
    def ranked(self) -> bool:
        return self.rank is not None

    @property
    def status_text(self) -> str:
        """What the status means, in words (ratings.fit.STATUSES)."""
        return STATUSES[self.status]

    @property
    def status_brief(self) -> str:
        """The status in a few words, for beside it (ratings.fit.BRIEF)."""
        return BRIEF[self.status]


class VersionTest(models.Model):
    """An SPRT of a bot's new version (``candidate``) against its previous one (``baseline``): unrated
    colour-swapped pairs until the LLR crosses a bound (``ratings.sprt``). With ``gate`` the candidate
    takes the baseline's place on the ladder only once the test has passed.

    ``pentanomial`` counts the pairs by the candidate's pair score 0, ½, 1, 1½, 2; ``wins``/``draws``/
    ``losses`` are the candidate's games. Elo bounds are in ``elo_model`` Elo (logistic or normalized).
    A test that reaches ``max_pairs`` without crossing a bound ends ``inconclusive``: with the cap it did
    not run long enough to earn a verdict, and calling it a pass or a fail would break its error rates.
    ``forecast`` is what the request expected: pairs, games and hours for true Elo at each bound.
    """

    class State(models.TextChoices):
        RUNNING = "running"
        PASSED = "passed"  # the LLR reached the upper bound: H1, the new version is better
        FAILED = "failed"  # the LLR reached the lower bound: H0
        INCONCLUSIVE = "inconclusive"  # reached its pair cap between the bounds
        STOPPED = "stopped"  # ended without a verdict: its owner, or a version could not play (note)

    class EloModel(models.TextChoices):
        LOGISTIC = "logistic"  # the Elo of the score
        NORMALIZED = "normalized"  # the score's t-value per game times 800/ln 10 (fishtest's nElo)

    candidate = models.ForeignKey("tournaments.BotVersion", on_delete=models.CASCADE, related_name="sprt_tests")
    baseline = models.ForeignKey("tournaments.BotVersion", on_delete=models.CASCADE, related_name="sprt_baselines")
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=10.0)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    elo_model = models.CharField(max_length=10, choices=EloModel.choices, default=EloModel.LOGISTIC)
    max_pairs = models.PositiveIntegerField(default=12000, help_text="Pairs after which it ends inconclusive.")
    gate = models.BooleanField(default=False, help_text="The candidate goes on the ladder only if it passes.")
    state = models.CharField(max_length=12, choices=State.choices, default=State.RUNNING)
    pentanomial = models.JSONField(default=list, help_text="Pairs by the candidate's score 0, ½, 1, 1½, 2.")
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    llr = models.FloatField(default=0.0)
    note = models.CharField(max_length=200, blank=True)
    forecast = models.JSONField(default=dict, blank=True, help_text="Expected length at each bound, when asked.")
    matches = models.ManyToManyField("tournaments.Match", blank=True, related_name="sprt_tests")
    opening_suite = models.ForeignKey(
        "tournaments.OpeningSuite", null=True, blank=True, on_delete=models.PROTECT, related_name="version_tests",
        help_text="Start positions its pairs play (each twice, colours swapped); empty: the initial one.")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(candidate=F("baseline")), name="versiontest_two_versions"),
            models.CheckConstraint(condition=Q(elo1__gt=F("elo0")), name="versiontest_bounds_ordered"),
            models.CheckConstraint(condition=Q(state__in=["running", "passed", "failed", "inconclusive", "stopped"]),
                                   name="versiontest_state_known"),
            models.CheckConstraint(condition=Q(elo_model__in=["logistic", "normalized"]),
                                   name="versiontest_elo_model_known"),
            # One running test per new version: the matches of two would be counted in neither.
            models.UniqueConstraint(fields=["candidate"], condition=Q(state="running"),
                                    name="versiontest_one_running"),
        ]
        indexes = [models.Index(fields=["candidate", "state"], name="versiontest_candidate_idx")]

    def __str__(self) -> str:
        return f"SPRT {self.candidate_id} vs {self.baseline_id} {self.state} llr={self.llr:.2f}"
