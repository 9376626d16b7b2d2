"""SPRT of a new bot version against the previous one: asked for by the owner, played as unrated
colour-swapped pairs by the workers like any match, and stopped by itself when the LLR crosses a bound."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from engines import get_game, stats
from engines.core import BLACK, NONE, WHITE, points
from engines.protocol import TimeControl
from knobs import arena
from ratings import sprt
from ratings.models import VersionTest
from ratings.selectors import held_back

from .. import events
from ..models import Bot, BotVersion, Game, Match, OpeningSuite
from . import openings
from . import queueing as match_services  # matches, which queues no test, calls back into this module
from .match_rules import cancel_queued
from .worker_time import check_budget, expected_match_seconds

OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)


def request_version_test(bot: Bot, *, version_id: int | None = None, elo0=0.0, elo1=10.0, alpha=0.05, beta=0.05,
                         elo_model=sprt.LOGISTIC, max_pairs=None, gate: bool = False,
                         opening_suite: OpeningSuite | None = None) -> VersionTest:
    """Start an SPRT of ``version_id`` (default: the bot's newest ready version) against the version before
    it that the ladder would play. Bad bounds or cap, a bot with one version, or a version already under test
    is a ValidationError naming the field. Its pairs start from ``opening_suite``'s openings (default: the
    ladder's suite of the game, if it has one)."""
    hypotheses, max_pairs = _checked(elo0, elo1, alpha, beta, elo_model, max_pairs)
    if opening_suite is None:
        opening_suite = openings.ladder_suite(bot.game)
    openings.check_suite(opening_suite, bot.game, _games_per_match())
    with transaction.atomic():
        candidate, baseline = _versions(bot, version_id)
        # Charged to the owner like any request: the matches it keeps open at once (its later ones replace them).
        check_budget(bot.owner, arena.SPRT_OPEN_MATCHES * expected_match_seconds(
            bot.game, arena.DEFAULT_TIME_CONTROL, _games_per_match()), "this SPRT's open matches")
        try:
            with transaction.atomic():
                test = VersionTest.objects.create(
                    candidate=candidate, baseline=baseline, elo0=hypotheses.elo0, elo1=hypotheses.elo1,
                    alpha=hypotheses.alpha, beta=hypotheses.beta, elo_model=hypotheses.elo_model,
                    max_pairs=max_pairs, gate=gate, pentanomial=[0, 0, 0, 0, 0], opening_suite=opening_suite,
                    forecast=forecast(hypotheses, baseline))
        except IntegrityError:
            raise ValidationError({"version": [f"{candidate} already has a running SPRT"]}) from None
        _queue_matches(test)
    return test


def forecast_version_test(bot: Bot, *, version_id: int | None = None, elo0=0.0, elo1=10.0, alpha=0.05, beta=0.05,
                          elo_model=sprt.LOGISTIC, max_pairs=None) -> dict:
    """What ``request_version_test`` with these arguments would expect (``forecast``), starting nothing."""
    hypotheses, max_pairs = _checked(elo0, elo1, alpha, beta, elo_model, max_pairs)
    _, baseline = _versions(bot, version_id)
    return {**forecast(hypotheses, baseline), "max_pairs": max_pairs}


def _checked(elo0, elo1, alpha, beta, elo_model, max_pairs) -> tuple[sprt.Hypotheses, int]:
    most = int(arena.SPRT_MAX_PAIRS)
    try:
        hypotheses = sprt.check_hypotheses(elo0, elo1, alpha, beta, elo_model, max_pairs)
    except sprt.SprtInputError as error:
        raise ValidationError({name: [message] for name, message in error.problems.items()}) from None
    if max_pairs is not None and max_pairs > most:
        raise ValidationError({"max_pairs": [f"must be at most {most} (ARENA_SPRT_MAX_PAIRS), got {max_pairs}"]})
    return hypotheses, most if max_pairs is None else max_pairs


def _versions(bot: Bot, version_id: int | None) -> tuple[BotVersion, BotVersion]:
    candidate = _candidate(bot, version_id)
    match_services.check_playable(candidate, "version")
    baseline = previous_version(candidate)
    if baseline is None:
        raise ValidationError({"version": [f"{candidate} has no earlier ready version to play against"]})
    return candidate, baseline


RECENT_GAMES = 500  # the baseline's games that set a forecast's draw rate and game length
DRAW_RATE_UNKNOWN = 0.0  # with no games to go by: no draws, the longest tests (the safe side)


def forecast(hypotheses: sprt.Hypotheses, baseline: BotVersion) -> dict:
    """How long the test should take for a new version truly at elo0 and at elo1: Wald's expected pairs
    (``sprt.expected_pairs``, which ignores the cap), games, and hours with ``SPRT_OPEN_MATCHES`` matches
    played at once at the default time control.

    The draw rate and the typical game length are the baseline's over its last ``RECENT_GAMES`` games (any
    opponent); a baseline with no games yet is assumed drawless, with games as long as the time control
    allows (``longest_game_seconds``), so the figures are then upper bounds."""
    recent = list(Game.objects.filter(Q(white=baseline) | Q(black=baseline))
                  .order_by("-id").values_list("winner", "duration")[:RECENT_GAMES])
    time_control = arena.DEFAULT_TIME_CONTROL
    durations = [duration for _, duration in recent if duration is not None]
    if recent and durations:
        draw_rate = sum(winner == NONE for winner, _ in recent) / len(recent)
        seconds = sum(durations) / len(durations)
        basis = f"the draw rate and mean length of {baseline}'s last {len(recent)} games"
    else:
        draw_rate = DRAW_RATE_UNKNOWN
        seconds = longest_game_seconds(baseline.bot.game, time_control)
        basis = (f"{baseline} has no timed games yet: no draws and the longest games {time_control} allows "
                 "(upper bounds)")
    at_once = int(arena.SPRT_OPEN_MATCHES)
    bounds = []
    for elo in (hypotheses.elo0, hypotheses.elo1):
        pairs = sprt.expected_pairs(hypotheses, elo, draw_rate)
        bounds.append({"elo": elo, "pairs": round(pairs), "games": 2 * round(pairs),
                       "hours": round(2 * pairs * seconds / at_once / 3600, 2)})
    return {"at_elo0": bounds[0], "at_elo1": bounds[1], "draw_rate": round(draw_rate, 3),
            "seconds_per_game": round(seconds, 1), "time_control": time_control, "matches_at_once": at_once,
            "basis": basis}


def longest_game_seconds(game_id: str, time_control: str) -> float:
    """The thinking time of the longest game the rule book and the time control allow: every action using its
    whole budget (as ``play.limits.worst_game_seconds``, less the start-up and referee allowances)."""
    control = TimeControl.parse(time_control)
    plies = get_game(game_id).max_plies
    if control.mode == "move":
        return plies * control.base_ms / 1000
    return 2 * control.base_ms / 1000 + plies * control.inc_ms / 1000


def _candidate(bot: Bot, version_id: int | None) -> BotVersion:
    versions = BotVersion.objects.filter(bot=bot).select_related("bot")
    if versions.count() < 2:
        raise ValidationError({"version": [f"{bot.name} has one version; an SPRT plays a new version against "
                                           "the previous one, so upload another first"]})
    if version_id is None:
        candidate = versions.filter(status=BotVersion.Status.READY).order_by("-number").first()
        if candidate is None:
            raise ValidationError({"version": [f"{bot.name} has no ready version to test"]})
        return candidate
    candidate = versions.filter(pk=version_id).first()
    if candidate is None:
        raise ValidationError({"version": [f"{bot.name} has no version with id {version_id}"]})
    return candidate


def previous_version(candidate: BotVersion) -> BotVersion | None:
    """The newest ready, enabled version before ``candidate`` that the SPRT gate lets on the ladder."""
    return (BotVersion.objects.filter(bot_id=candidate.bot_id, number__lt=candidate.number,
                                      status=BotVersion.Status.READY, is_disabled=False)
            .exclude(held_back()).select_related("bot").order_by("-number").first())


def _games_per_match() -> int:
    games = int(arena.DEFAULT_GAMES_PER_MATCH)
    return games + games % 2  # whole colour-swapped pairs: a pair is one pentanomial count


def _queue_matches(test: VersionTest) -> None:
    """Keep ``SPRT_OPEN_MATCHES`` of the test's matches queued or running, within its pair limit.

    A version that can no longer play (disabled, say) stops the test with the reason."""
    pairs_per_match = _games_per_match() // 2
    open_matches = test.matches.filter(status__in=OPEN).count()
    planned = sum(test.pentanomial) + open_matches * pairs_per_match
    room = (test.max_pairs - planned) // pairs_per_match
    wanted = min(arena.SPRT_OPEN_MATCHES - open_matches, room)
    if wanted <= 0:
        if open_matches == 0:
            # The cap, not the evidence, ended it: neither verdict was earned.
            _stop(test, VersionTest.State.INCONCLUSIVE,
                  f"no verdict after {sum(test.pentanomial)} pairs (its cap)")
        return
    candidate = BotVersion.objects.select_related("bot").get(pk=test.candidate_id)
    baseline = BotVersion.objects.select_related("bot").get(pk=test.baseline_id)
    try:
        matches = [match_services.create_match(candidate, baseline, games=_games_per_match(), rated=False,
                                               opening_suite=test.opening_suite)
                   for _ in range(wanted)]
    except ValidationError as error:
        _stop(test, VersionTest.State.STOPPED, "; ".join(error.messages)[:200])
        return
    test.matches.add(*matches)


def _stop(test: VersionTest, state: str, note: str = "") -> None:
    test.state, test.note, test.finished_at = state, note, timezone.now()
    test.save(update_fields=["state", "note", "finished_at"])
    bot_id, game = BotVersion.objects.filter(pk=test.candidate_id).values_list("bot_id", "bot__game").get()
    events.emit(events.SprtVerdict(test.pk, bot_id, game, state))
    cancel_queued(Q(sprt_tests=test), f"SPRT {test.pk} {state}")


def _locked_test_of(match: Match) -> VersionTest | None:
    return VersionTest.objects.select_for_update().filter(matches=match, state=VersionTest.State.RUNNING).first()


def record_test_match(match: Match, games) -> VersionTest | None:
    """Count a finished match's pairs in its running test (if any), then stop it or queue more matches.

    Call inside the transaction that stores the match. Games 1-2, 3-4, … are the colour-swapped pairs;
    the candidate is version A."""
    if match.rated or match.tournament_id is not None:
        return None  # the ladder's and tournaments' matches never belong to a test
    test = _locked_test_of(match)
    if test is None:
        return None
    points = [_candidate_points(game, test.candidate_id) for game in games]
    pentanomial = list(stats.pentanomial(stats.pair_scores(points), test.pentanomial))
    test.wins, test.draws, test.losses = stats.tally(points, (test.wins, test.draws, test.losses))
    test.pentanomial = pentanomial
    hypotheses = sprt.Hypotheses(test.elo0, test.elo1, test.alpha, test.beta, test.elo_model)
    test.llr = sprt.llr(pentanomial, hypotheses)
    test.save(update_fields=["pentanomial", "wins", "draws", "losses", "llr"])
    verdict = sprt.verdict(test.llr, hypotheses)
    if verdict is not None:
        _stop(test, verdict)
    else:
        _queue_matches(test)
    return test


def _candidate_points(game, candidate_id: int) -> float:
    return points(game.winner, WHITE if game.white_id == candidate_id else BLACK)


def match_ended_unscored(match: Match) -> None:
    """A test's match failed for good or was cancelled by an operator: queue a replacement (or stop)."""
    if match.rated or match.tournament_id is not None:
        return
    test = _locked_test_of(match)
    if test is not None:
        _queue_matches(test)


@transaction.atomic
def stop_version_test(test: VersionTest) -> VersionTest:
    """The owner stops a running test: no verdict, its queued matches cancelled (a match being played ends
    and is not counted). A gated candidate stays off the ladder, as it would without a pass."""
    test = VersionTest.objects.select_for_update().get(pk=test.pk)
    if test.state != VersionTest.State.RUNNING:
        raise ValidationError({"detail": [f"SPRT {test.pk} has ended already ({test.state})"]})
    _stop(test, VersionTest.State.STOPPED, "by its owner")
    return test


@transaction.atomic
def stop_tests_of(version: BotVersion, reason: str) -> int:
    """Stop the running tests a version plays in (it was disabled): nothing is left to decide them."""
    tests = VersionTest.objects.select_for_update().filter(
        Q(candidate=version) | Q(baseline=version), state=VersionTest.State.RUNNING)
    stopped = 0
    for test in tests:
        _stop(test, VersionTest.State.STOPPED, reason[:200])
        stopped += 1
    return stopped
