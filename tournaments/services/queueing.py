"""A match is born: the checks on what may be queued, and the one way to queue a match."""

from __future__ import annotations

from django.core.exceptions import ValidationError

from engines import GAME_IDS, get_game
from engines.protocol import TimeControl
from knobs import arena

from .. import events
from ..bounds import games_problem, time_control_problem
from ..models import BotVersion, Match, OpeningSuite, Tournament, same_owner
from .openings import check_fits
from .worker_time import expected_match_seconds


def check_game(game: str) -> str:
    if game not in GAME_IDS:
        raise ValidationError({"game": [f"unknown game {game!r}; known: {', '.join(GAME_IDS)}"]})
    return game


def check_time_control(time_control) -> str:
    """The time control in its canonical text, if it is one and inside the server's bounds."""
    problem = time_control_problem(time_control, arena)
    if problem:
        raise ValidationError({"time_control": [problem]})
    return TimeControl.parse(time_control).text()


def check_games_per_match(games: int, field: str = "games_per_match") -> int:
    problem = games_problem(games, arena)
    if problem:
        raise ValidationError({field: [problem]})
    return games


def check_playable(version: BotVersion, field: str) -> None:
    """A version may be paired (the ladder, a challenge, a tournament's entry and start) only when it is ready,
    enabled by the operators, active by its owner's choice, and its bot is not retired."""
    if version.status != BotVersion.Status.READY:
        raise ValidationError({field: [f"{version} is {version.status}, not ready to play"]})
    if version.is_disabled:
        raise ValidationError({field: [f"{version} is disabled by an operator"]})
    if not version.is_active:
        raise ValidationError({field: [f"{version} is deactivated by its owner"]})
    if version.bot.is_retired:
        raise ValidationError({field: [f"{version.bot.name} is retired by its owner"]})


def create_match(version_a: BotVersion, version_b: BotVersion, *, time_control: str | None = None,
                 games: int | None = None, rated: bool = True, tournament: Tournament | None = None,
                 round_number: int | None = None, priority: int = Match.Priority.REQUESTED,
                 opening_suite: OpeningSuite | None = None) -> Match:
    """Queue a match between two ready versions of bots of the same game.

    A is white in odd-numbered games, B in even ones. Two bots of one owner (two versions of one bot
    included) may meet, but always unrated: every path that queues matches (the ladder, tournaments, the
    API, the admin through ``Match.clean``) obeys this one rule.
    Only the ladder passes ``priority=Match.Priority.LADDER``; everything else is a requested match.
    With ``opening_suite`` (``openings.check_fits``: the game's, an even number of games) games 2k-1
    and 2k start from one of its openings, dealt when the match is played.

    Who is charged the match's worker time (``worker_time``): nobody for the ladder; a tournament's
    organiser; otherwise the owner of version A (a challenge's requester, an SPRT's owner: their own bot
    is always A).
    """
    if version_a.pk == version_b.pk:
        raise ValidationError({"version_b": ["a version cannot play itself"]})
    if version_a.bot.game != version_b.bot.game:
        raise ValidationError({"version_b": [
            f"{version_b} plays {version_b.bot.game}, {version_a} plays {version_a.bot.game}"]})
    check_playable(version_a, "version_a")
    check_playable(version_b, "version_b")
    if priority not in Match.Priority.values:
        raise ValidationError({"priority": [f"unknown priority {priority!r}; known: {Match.Priority.values}"]})
    time_control = check_time_control(time_control or arena.DEFAULT_TIME_CONTROL)
    games = check_games_per_match(arena.DEFAULT_GAMES_PER_MATCH if games is None else games)
    game = get_game(version_a.bot.game)
    check_fits(opening_suite, game.id, games)
    if priority == Match.Priority.LADDER:
        charged_to = None
    else:
        charged_to = tournament.organiser_id if tournament is not None else version_a.bot.owner_id
    match = Match.objects.create(
        game=game.id, version_a=version_a, version_b=version_b, time_control=time_control,
        games_per_match=games, ruleset=game.ruleset, tournament=tournament, round=round_number,
        rated=rated and not same_owner(version_a, version_b),
        priority=priority, charged_to_id=charged_to, opening_suite=opening_suite,
        cost_seconds=expected_match_seconds(game.id, time_control, games),
    )
    # Every path that queues a match passes here, so each one wakes a worker once it commits.
    events.emit(events.MatchCreated(match.pk, game.id, (version_a.bot_id, version_b.bot_id),
                                    tournament.pk if tournament is not None else None))
    return match
