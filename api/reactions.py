"""Everything that follows a change in the domain, in one place: what each event (``tournaments.events``) makes
the serving and worker layers do once its transaction has committed."""

from __future__ import annotations

from hooks.services import notify as tell_owners
from tournaments import events
from tournaments.models import Bot
from tournaments.services.openings_balance import retire_unbalanced_after
from tournaments.services.ratings import schedule_refit
from workers import dispatching

from . import public


def wake_for_created(event: events.MatchCreated) -> None:
    dispatching.send_match(event.match_id)


def wake_for_requeued(event: events.MatchRequeued) -> None:
    for match_id in event.match_ids:
        dispatching.send_match(match_id)


def forget_match_created(event: events.MatchCreated) -> None:
    public.forget(public.MATCHES, public.HOME, *map(public.bot_scope, event.bot_ids))


def forget_match_lists(event) -> None:
    public.forget(public.MATCHES, public.HOME)


def forget_match_finished(event: events.MatchFinished) -> None:
    public.forget(public.MATCHES, public.HOME, public.leaderboard_scope(event.game),
                  *map(public.bot_scope, event.bot_ids))


def refit_after_rated_result(event: events.MatchFinished) -> None:
    """The fitted leaderboard within seconds of a rated result (coalesced per game: ``schedule_refit``)."""
    if event.rated and event.status == "finished":
        schedule_refit(event.game)


def retire_unbalanced_openings(event: events.MatchFinished) -> None:
    """A finished match with an opening suite: its openings that now score one-sided are dealt no more."""
    if event.status == "finished" and event.opening_suite_id is not None:
        retire_unbalanced_after(event.match_id)


def forget_version_judged(event: events.VersionJudged) -> None:
    public.forget(public.bot_scope(event.bot_id), public.leaderboard_scope(event.game), public.HOME)


def forget_sprt_verdict(event: events.SprtVerdict) -> None:
    public.forget(public.bot_scope(event.bot_id), public.leaderboard_scope(event.game))


def forget_refitted(event: events.RatingsRefitted) -> None:
    bots = Bot.objects.filter(game__in=event.games).values_list("pk", flat=True)
    public.forget(public.HOME, *map(public.leaderboard_scope, event.games), *map(public.bot_scope, bots))


REACTIONS = (
    (events.MatchCreated, wake_for_created),
    (events.MatchCreated, forget_match_created),
    (events.MatchRequeued, wake_for_requeued),
    (events.MatchRequeued, forget_match_lists),
    (events.MatchesCancelled, forget_match_lists),
    (events.MatchStarted, forget_match_lists),
    (events.MatchFinished, forget_match_finished),
    (events.MatchFinished, refit_after_rated_result),
    (events.MatchFinished, retire_unbalanced_openings),
    (events.VersionJudged, forget_version_judged),
    (events.TournamentCreated, forget_match_lists),
    (events.TournamentCancelled, forget_match_lists),
    (events.TournamentStarted, forget_match_lists),
    (events.TournamentRoundDone, forget_match_lists),
    (events.TournamentFinished, forget_match_lists),
    (events.SprtVerdict, forget_sprt_verdict),
    (events.RatingsRefitted, forget_refitted),
    (events.VersionJudged, tell_owners),
    (events.MatchFinished, tell_owners),
    (events.SprtVerdict, tell_owners),
    (events.TournamentFinished, tell_owners),
)


def connect() -> None:
    for kind, reaction in REACTIONS:
        events.subscribe(kind, reaction)
