"""SPRT of a new bot version against the previous one: asked for by the owner, played as unrated
colour-swapped pairs by the workers like any match, and stopped by itself when the LLR crosses a bound.

The check runs in ``record_test_match``, inside the transaction in which ``finish_match`` stores the
match's games, with the test's row locked: every pair is counted once, and the verdict, the cancelled
leftovers and the next matches commit together with the games that decided them.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from engines.core import BLACK, WHITE, points
from ratings import sprt
from ratings.models import VersionTest
from ratings.selectors import held_back

from ..models import Bot, BotVersion, Match
from . import queueing as match_services  # matches, which queues no test, calls back into this module
from .worker_time import check_budget, expected_match_seconds

OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)


def request_version_test(bot: Bot, *, version_id: int | None = None, elo0=0.0, elo1=10.0, alpha=0.05, beta=0.05,
                         gate: bool = False) -> VersionTest:
    """Start an SPRT of ``version_id`` (default: the bot's newest ready version) against the version before
    it that the ladder would play. Bad bounds, a bot with one version, or a version already under test is a
    ValidationError naming the field."""
    try:
        hypotheses = sprt.check_hypotheses(elo0, elo1, alpha, beta)
    except sprt.SprtInputError as error:
        raise ValidationError({name: [message] for name, message in error.problems.items()}) from None
    with transaction.atomic():
        candidate = _candidate(bot, version_id)
        match_services.check_playable(candidate, "version")
        baseline = previous_version(candidate)
        if baseline is None:
            raise ValidationError({"version": [f"{candidate} has no earlier ready version to play against"]})
        # Charged to the owner like any request: the matches it keeps open at once (its later ones replace them).
        check_budget(bot.owner, settings.ARENA["SPRT_OPEN_MATCHES"] * expected_match_seconds(
            bot.game, settings.ARENA["DEFAULT_TIME_CONTROL"], _games_per_match()), "this SPRT's open matches")
        try:
            with transaction.atomic():
                test = VersionTest.objects.create(
                    candidate=candidate, baseline=baseline, elo0=hypotheses.elo0, elo1=hypotheses.elo1,
                    alpha=hypotheses.alpha, beta=hypotheses.beta, gate=gate, pentanomial=[0, 0, 0, 0, 0])
        except IntegrityError:
            raise ValidationError({"version": [f"{candidate} already has a running SPRT"]}) from None
        _queue_matches(test)
    return test


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
    games = int(settings.ARENA["DEFAULT_GAMES_PER_MATCH"])
    return games + games % 2  # whole colour-swapped pairs: a pair is one pentanomial count


def _queue_matches(test: VersionTest) -> None:
    """Keep ``SPRT_OPEN_MATCHES`` of the test's matches queued or running, within its pair limit.

    A version that can no longer play (disabled, say) stops the test with the reason."""
    pairs_per_match = _games_per_match() // 2
    open_matches = test.matches.filter(status__in=OPEN).count()
    planned = sum(test.pentanomial) + open_matches * pairs_per_match
    room = (settings.ARENA["SPRT_MAX_PAIRS"] - planned) // pairs_per_match
    wanted = min(settings.ARENA["SPRT_OPEN_MATCHES"] - open_matches, room)
    if wanted <= 0:
        if open_matches == 0:
            _stop(test, VersionTest.State.STOPPED, f"no verdict after {sum(test.pentanomial)} pairs (the limit)")
        return
    candidate = BotVersion.objects.select_related("bot").get(pk=test.candidate_id)
    baseline = BotVersion.objects.select_related("bot").get(pk=test.baseline_id)
    try:
        matches = [match_services.create_match(candidate, baseline, games=_games_per_match(), rated=False)
                   for _ in range(wanted)]
    except ValidationError as error:
        _stop(test, VersionTest.State.STOPPED, "; ".join(error.messages)[:200])
        return
    test.matches.add(*matches)


def _stop(test: VersionTest, state: str, note: str = "") -> None:
    test.state, test.note, test.finished_at = state, note, timezone.now()
    test.save(update_fields=["state", "note", "finished_at"])
    queued = test.matches.filter(status=Match.Status.QUEUED)
    queued.update(status=Match.Status.CANCELLED, finished_at=timezone.now(),
                  failure_reason=f"SPRT {test.pk} {state}")


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
    pentanomial = list(test.pentanomial)
    points = [_candidate_points(game, test.candidate_id) for game in games]
    for first, second in zip(points[::2], points[1::2]):
        pentanomial[int((first + second) * 2)] += 1
    test.wins += points.count(1.0)
    test.draws += points.count(0.5)
    test.losses += points.count(0.0)
    test.pentanomial = pentanomial
    hypotheses = sprt.Hypotheses(test.elo0, test.elo1, test.alpha, test.beta)
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
    _stop(test, VersionTest.State.STOPPED, "stopped by its owner")
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
