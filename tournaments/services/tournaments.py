"""Tournaments: entrants before the start, then the matches of its format (a round robin's from the Berger tables;
a gauntlet's and a knockout's from ``gauntlet`` and ``knockout``)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, Q
from django.utils import timezone

from knobs import arena

from .. import events
from ..models import DEFAULT_TIEBREAKS, TIEBREAKS, BotVersion, Match, OpeningSuite, Tournament, TournamentEntrant
from ..pairings import berger_rounds, double_round
from . import gauntlet, knockout, openings, swiss
from .match_rules import cancel_queued, queue_again
from .matches import finish_tournament_if_done
from .queueing import (
    check_game,
    check_games_per_match,
    check_playable,
    check_time_control,
    create_match,
)
from .worker_time import check_budget, expected_match_seconds


def create_tournament(organiser, *, name: str, game: str, time_control: str | None = None,
                      games_per_pairing: int = 2, double_round: bool = True, official: bool = False,
                      tiebreaks: list[str] | None = None, format: str = Tournament.Format.ROUND_ROBIN,
                      champion: BotVersion | None = None, seeding: str = "rating", tiebreak_pairs: int = 2,
                      rounds: int | None = None, bye_points: float = 1.0,
                      late_entry_points: float = 0.0, opening_suite: OpeningSuite | None = None) -> Tournament:
    """A draft tournament of any format. Only staff make an official (rated) one: a player's tournament never moves the
    leaderboard. In an official one, a pairing of two bots of one owner is still played unrated (and counts in
    the standings like any other): ``create_match`` applies that rule to every match."""
    if not name or not name.strip():
        raise ValidationError({"name": ["a tournament needs a name"]})
    check_game(game)
    time_control = check_time_control(time_control or arena.DEFAULT_TIME_CONTROL)
    check_games_per_match(games_per_pairing, "games_per_pairing")
    # Drafts cost nothing to make and fill the home page: a player (not staff) keeps only so many at once.
    cap, drafts = arena.MAX_DRAFT_TOURNAMENTS_PER_PLAYER, Tournament.objects.filter(
        organiser=organiser, status=Tournament.Status.DRAFT).count()
    if not organiser.is_staff and drafts >= cap:
        raise ValidationError({"detail": [f"you have {drafts} draft tournaments and the limit is {cap}: start or "
                                          "cancel one first"]})
    if official:
        _check_staff(organiser)
    order = DEFAULT_TIEBREAKS if tiebreaks is None else check_tiebreaks(tiebreaks)
    check_format_settings(format, game, games_per_pairing, champion=champion, seeding=seeding,
                          tiebreak_pairs=tiebreak_pairs, rounds=rounds, bye_points=bye_points,
                          late_entry_points=late_entry_points)
    openings.check_suite(opening_suite, game, games_per_pairing)
    tournament = Tournament.objects.create(name=name.strip(), game=game, organiser=organiser,
                                           time_control=time_control, games_per_pairing=games_per_pairing,
                                           double_round=double_round, official=official, tiebreaks=order,
                                           format=format, champion=champion, seeding=seeding,
                                           tiebreak_pairs=tiebreak_pairs, rounds=rounds, bye_points=bye_points,
                                           late_entry_points=late_entry_points, opening_suite=opening_suite)
    events.emit(events.TournamentCreated(tournament.pk))
    return tournament


PAIRED_FORMATS = (Tournament.Format.GAUNTLET, Tournament.Format.KNOCKOUT)


def check_format_settings(format: str, game: str, games_per_pairing: int, *, champion=None, seeding: str = "rating",
                          tiebreak_pairs=2, rounds=None, bye_points=1.0, late_entry_points=0.0) -> None:
    """A draft's format and the settings of it, as the API, the site and the admin give them."""
    _check_format(format, game, games_per_pairing, champion, seeding, tiebreak_pairs)
    if format == Tournament.Format.SWISS:
        swiss.check_settings(rounds, games_per_pairing, bye_points, late_entry_points)
    else:
        swiss.check_points(bye_points, late_entry_points)


def _check_format(format: str, game: str, games_per_pairing: int, champion, seeding: str, tiebreak_pairs) -> None:
    """The format's own settings: a gauntlet's champion, a knockout's seeding and tie-breaks; both play
    colour-swapped pairs, so an even number of games per pairing."""
    if format not in Tournament.Format.values:
        raise ValidationError({"format": [f"unknown format {format!r}; known: {', '.join(Tournament.Format.values)}"]})
    if format in PAIRED_FORMATS and games_per_pairing % 2:
        raise ValidationError({"games_per_pairing": [
            f"a {format} plays colour-swapped pairs: an even number of games per pairing, not {games_per_pairing}"]})
    if format == Tournament.Format.GAUNTLET:
        gauntlet.check_champion(game, champion)
    elif champion is not None:
        raise ValidationError({"champion": [f"only a gauntlet names a champion, not a {format}"]})
    if format == Tournament.Format.KNOCKOUT:
        knockout.check_settings(seeding, tiebreak_pairs)


def check_tiebreaks(names, field: str = "tiebreaks") -> str:
    """The tie-break order as stored (comma-separated); any order of distinct names from ``TIEBREAKS``."""
    if not isinstance(names, list | tuple) or not all(isinstance(name, str) for name in names):
        raise ValidationError({field: ["a list of tie-break names"]})
    unknown = [name for name in names if name not in TIEBREAKS]
    if unknown:
        raise ValidationError({field: [f"unknown tie-break {unknown[0]!r}; known: {', '.join(TIEBREAKS)}"]})
    if len(set(names)) != len(names):
        raise ValidationError({field: ["each tie-break at most once"]})
    return ",".join(names)


def _check_staff(user, field: str = "official") -> None:
    if not (user is not None and user.is_staff):
        raise ValidationError({field: ["only staff mark a tournament official (rated); a player's tournament "
                                       "keeps its standings but does not change the leaderboard"]})


@transaction.atomic
def change_tournament(tournament: Tournament, by, *, official: bool | None = None,
                      tiebreaks: list[str] | None = None, champion: BotVersion | None = None) -> Tournament:
    """Mark a draft official or not (staff only: ``by`` is who asks), change its tie-break order, or name a
    gauntlet's champion.

    Only a draft changes: once started, its matches were made rated or not, and its table is being read."""
    tournament = _locked_draft(tournament, "change it")
    fields = []
    if official is not None and official != tournament.official:  # saying what it already is needs no rights
        _check_staff(by)
        tournament.official = official
        fields.append("official")
    if tiebreaks is not None:
        tournament.tiebreaks = check_tiebreaks(tiebreaks)
        fields.append("tiebreaks")
    if champion is not None:
        if tournament.format != Tournament.Format.GAUNTLET:
            raise ValidationError({"champion": [f"only a gauntlet names a champion, not a {tournament.format}"]})
        gauntlet.check_champion(tournament.game, champion)
        tournament.champion = champion
        fields.append("champion")
    if fields:
        tournament.save(update_fields=fields)
    return tournament


def _locked_draft(tournament: Tournament, action: str) -> Tournament:
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if locked.status != Tournament.Status.DRAFT:
        raise ValidationError({"status": [f"cannot {action}: the tournament is {locked.status}, not draft"]})
    return locked


def _check_consent(tournament: Tournament, version: BotVersion, field: str) -> None:
    """Entering someone else's bot, in any tournament, rated or not, needs its owner's consent: the bot's
    ``open_to_tournaments``. So every entrant of a rated tournament agreed to its games."""
    bot = version.bot
    if bot.owner_id != tournament.organiser_id and not bot.open_to_tournaments:
        raise ValidationError({field: [
            f"{version} belongs to another player who has not agreed to enter it in tournaments (their bot's "
            "open_to_tournaments is off): consent is needed to enter it in any tournament, rated or not"]})


@transaction.atomic
def add_entrant(tournament: Tournament, version: BotVersion) -> TournamentEntrant:
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if locked.format == Tournament.Format.SWISS and locked.status == Tournament.Status.RUNNING:
        return swiss.enter_late(locked, version, _check_entry)  # between rounds: paired from the next one
    tournament = _locked_draft(tournament, "add an entrant")
    _check_entry(tournament, version)
    seed = (tournament.entrants.aggregate(top=Max("seed"))["top"] or 0) + 1
    return TournamentEntrant.objects.create(tournament=tournament, version=version, seed=seed)


def _check_entry(tournament: Tournament, version: BotVersion) -> None:
    if version.bot.game != tournament.game:
        raise ValidationError({"version": [f"{version} plays {version.bot.game}, the tournament {tournament.game}"]})
    check_playable(version, "version")
    _check_consent(tournament, version, "version")
    if tournament.entrants.filter(version=version).exists():
        raise ValidationError({"version": [f"{version} is already entered"]})
    top = arena.MAX_TOURNAMENT_ENTRANTS
    if tournament.entrants.count() >= top:
        raise ValidationError({"version": [f"the tournament already has the most entrants allowed ({top})"]})


def _check_running_cap(tournament: Tournament, action: str) -> None:
    """A player (staff aside) runs at most MAX_RUNNING_TOURNAMENTS_PER_PLAYER tournaments at once."""
    # The organiser's row is locked so that two starts at once cannot both pass the count.
    organiser = get_user_model().objects.select_for_update().get(pk=tournament.organiser_id)
    top = arena.MAX_RUNNING_TOURNAMENTS_PER_PLAYER
    running = Tournament.objects.filter(organiser=organiser, status=Tournament.Status.RUNNING).exclude(
        pk=tournament.pk).count()
    if not organiser.is_staff and running >= top:
        raise ValidationError({"status": [
            f"cannot {action}: {organiser.username} already runs {running} tournaments, the most allowed ({top})"]})


@transaction.atomic
def remove_entrant(tournament: Tournament, version: BotVersion) -> None:
    locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if locked.format == Tournament.Format.SWISS and locked.status == Tournament.Status.RUNNING:
        swiss.withdraw(locked, version)  # keeps its results: paired no more after its current round
        return
    tournament = _locked_draft(tournament, "remove an entrant")
    deleted, _ = tournament.entrants.filter(version=version).delete()
    if not deleted:
        raise ValidationError({"version": [f"{version} is not entered"]})
    # Close the gap so seeds stay 1..n (the Berger table numbers).
    for seed, entrant in enumerate(tournament.entrants.order_by("seed"), start=1):
        if entrant.seed != seed:
            TournamentEntrant.objects.filter(pk=entrant.pk).update(seed=seed)


def schedule(tournament: Tournament, versions: list[BotVersion]) -> list[tuple[int, BotVersion, BotVersion]]:
    """(round, white, black) of every pairing; byes left out."""
    rounds = berger_rounds(versions)
    if tournament.double_round:
        rounds = double_round(rounds)
    return [(number, white, black) for number, pairs in enumerate(rounds, start=1)
            for white, black in pairs if white is not None and black is not None]


@transaction.atomic
def start_tournament(tournament: Tournament) -> list[Match]:
    """Draft → running: one queued match per pairing of its format, in round order (a knockout's first round
    only: the next ones follow its results)."""
    tournament = _locked_draft(tournament, "start")
    entrants = list(tournament.entrants.select_related("version__bot").order_by("seed"))
    if len(entrants) < 2:
        raise ValidationError({"entrants": [f"a {tournament.get_format_display()} needs at least two entrants"]})
    if len(entrants) > arena.MAX_TOURNAMENT_ENTRANTS:  # entrants added through the admin
        raise ValidationError({"entrants": [f"at most {arena.MAX_TOURNAMENT_ENTRANTS} entrants"]})
    for entrant in entrants:
        check_playable(entrant.version, "entrants")
        _check_consent(tournament, entrant.version, "entrants")  # withdrawn since, or added through the admin
    _check_running_cap(tournament, "start")
    if tournament.format == Tournament.Format.SWISS:
        matches = swiss.start(tournament, entrants)  # round 1; each next round when the last has finished
    else:
        matches = _start_paired(tournament, entrants)
    tournament.status = Tournament.Status.RUNNING
    tournament.started_at = timezone.now()
    tournament.finished_at = None
    tournament.save(update_fields=["status", "started_at", "finished_at"])
    events.emit(events.TournamentStarted(tournament.pk, tournament.game))
    return matches


def _start_paired(tournament: Tournament, entrants: list[TournamentEntrant]) -> list[Match]:
    """A round robin's matches, a gauntlet's, or a knockout's first round, once the budget allows them."""
    if tournament.format == Tournament.Format.GAUNTLET:
        pairings = gauntlet.pairings(tournament, entrants)
    elif tournament.format == Tournament.Format.KNOCKOUT:
        pairings = knockout.first_round(tournament, knockout.seed(tournament, entrants))
    else:
        pairings = schedule(tournament, [entrant.version for entrant in entrants])
    # A knockout is charged for its whole bracket (one mini-match per entrant but the winner), as a round robin
    # is for all its matches; its tie-break pairs are not counted ahead.
    planned = len(entrants) - 1 if tournament.format == Tournament.Format.KNOCKOUT else len(pairings)
    cost = planned * expected_match_seconds(tournament.game, tournament.time_control, tournament.games_per_pairing)
    check_budget(tournament.organiser, cost, f"this tournament's {planned} matches")
    matches = [
        create_match(white, black, time_control=tournament.time_control, games=tournament.games_per_pairing,
                     rated=tournament.official, tournament=tournament, round_number=number,
                     opening_suite=tournament.opening_suite)
        for number, white, black in pairings
    ]
    return matches


@transaction.atomic
def cancel_tournament(tournament: Tournament) -> int:
    """Running (or draft) → cancelled: queued matches are cancelled, finished results are kept.

    A match already running finishes and counts. Returns how many matches were cancelled.
    """
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status not in (Tournament.Status.DRAFT, Tournament.Status.RUNNING):
        raise ValidationError({"status": [f"cannot cancel: the tournament is {tournament.status}"]})
    cancelled = cancel_queued(Q(tournament=tournament), "tournament cancelled")
    tournament.status = Tournament.Status.CANCELLED
    tournament.finished_at = timezone.now()
    tournament.save(update_fields=["status", "finished_at"])
    events.emit(events.TournamentCancelled(tournament.pk))
    return cancelled


@transaction.atomic
def resume_tournament(tournament: Tournament) -> int:
    """Cancelled → running: its cancelled matches are queued again (a never-started tournament goes
    back to draft). Returns how many matches were requeued."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.status != Tournament.Status.CANCELLED:
        raise ValidationError({"status": [f"cannot resume: the tournament is {tournament.status}, not cancelled"]})
    if tournament.started_at is None:
        tournament.status = Tournament.Status.DRAFT
        tournament.finished_at = None
        tournament.save(update_fields=["status", "finished_at"])
        return 0
    _check_running_cap(tournament, "resume")
    cancelled = tournament.matches.filter(status=Match.Status.CANCELLED)
    check_budget(tournament.organiser, sum(cancelled.values_list("cost_seconds", flat=True)),
                 f"resuming this tournament's {cancelled.count()} matches")
    requeued = queue_again(Q(pk__in=tuple(cancelled.values_list("pk", flat=True))), "", fresh_attempts=False)
    tournament.status = Tournament.Status.RUNNING
    tournament.finished_at = None
    tournament.save(update_fields=["status", "finished_at"])
    finish_tournament_if_done(tournament.pk)
    return requeued
