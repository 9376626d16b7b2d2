"""Swiss tournaments: round 1 at the start, each next round paired by the Dutch system when the last has finished."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from knobs import arena
from ratings.selectors import fitted_elos

from ..models import Match, SwissRound, SwissWithdrawal, Tournament, TournamentEntrant
from ..swiss.dutch import CannotPair, mark_floats, pair_round
from ..swiss.history import OPEN, current_round, entries
from .knockout import seed
from .queueing import check_playable, create_match
from .worker_time import check_budget, expected_match_seconds

BYE_POINTS = (0.0, 0.5, 1.0)


def check_settings(rounds, games_per_pairing: int, bye_points, late_entry_points=0.0) -> None:
    """A Swiss's own settings: a round count, an even mini-match, a bye and a late entrant's missed round worth
    0, 0.5 or 1."""
    top = arena.MAX_TOURNAMENT_ENTRANTS - 1
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= top:
        raise ValidationError({"rounds": [f"a Swiss needs a number of rounds from 1 to {top}"]})
    if games_per_pairing % 2:
        raise ValidationError({"games_per_pairing": [
            "a Swiss plays each pairing as a colour-swapped mini-match: an even number of games"]})
    check_points(bye_points, late_entry_points)


def check_points(bye_points, late_entry_points) -> None:
    """What a bye and a late entrant's missed round may be worth, checked in every format (only a Swiss uses
    them, but no tournament stores a value a Swiss would refuse)."""
    if bye_points not in BYE_POINTS:
        raise ValidationError({"bye_points": ["a bye is worth 0, 0.5 or 1 match point"]})
    if late_entry_points not in BYE_POINTS:
        raise ValidationError({"late_entry_points": ["a round missed by a late entrant is worth 0, 0.5 or 1 "
                                                     "match point"]})


def start(tournament: Tournament, entrants: list[TournamentEntrant]) -> list[Match]:
    """Round 1, once the whole Swiss's expected worker time fits the organiser's budget (charged like a round
    robin: every round's pairings up front). Inside start_tournament's transaction, the tournament locked."""
    if len(entrants) <= tournament.rounds:
        raise ValidationError({"rounds": [
            f"{tournament.rounds} rounds need at least {tournament.rounds + 1} entrants (no two meet twice); "
            f"the tournament has {len(entrants)}"]})
    pairings = tournament.rounds * (len(entrants) // 2)
    cost = pairings * expected_match_seconds(tournament.game, tournament.time_control, tournament.games_per_pairing)
    check_budget(tournament.organiser, cost, f"this Swiss's {pairings} pairings")
    if tournament.seeding == "rating":  # the initial ranking list (C.04.2): pairing numbers by rating
        seed(tournament, entrants)
    return _pair(tournament, 1)


def goes_on(tournament: Tournament) -> bool:
    """For the round-finished hook: whether a running Swiss still plays, its current round or a new one. The
    caller holds the tournament's row lock (``matches.finish_tournament_if_done``), so that two matches finishing
    at once cannot each see the other open and leave the next round unpaired."""
    if tournament.matches.filter(status__in=OPEN).exists():
        return True
    rounds = tournament.swiss_rounds.all()
    if any(row.note for row in rounds):
        return False
    played = max((row.number for row in rounds), default=0)
    if played >= tournament.rounds:
        return False
    return bool(_pair(tournament, played + 1))


def _pair(tournament: Tournament, number: int) -> list[Match]:
    entrants = {e.seed: e for e in tournament.entrants.select_related("version__bot", "swiss_withdrawal")}
    for entrant in entrants.values():  # a bot retired or disabled since withdraws before it is paired
        if not hasattr(entrant, "swiss_withdrawal"):
            try:
                check_playable(entrant.version, "entrants")
            except ValidationError:
                entrant.swiss_withdrawal = SwissWithdrawal.objects.create(entrant=entrant, after_round=number - 1)
    present = [e.seed for e in entrants.values() if not hasattr(e, "swiss_withdrawal")]
    history = mark_floats(entries(tournament, entrants, number - 1))
    try:
        if len(present) < 2:
            raise CannotPair(f"round {number}: fewer than two entrants are left")
        pairing = pair_round([e for e in history if e.number in present], tournament.rounds)
    except CannotPair as error:
        SwissRound.objects.create(tournament=tournament, number=number,
                                  note=f"The Swiss ended before round {number}: {error}.")
        return []
    bye = entrants[pairing.bye] if pairing.bye else None
    SwissRound.objects.create(tournament=tournament, number=number, bye=bye,
                              bye_points=tournament.bye_points if bye else 0)
    return [create_match(entrants[white].version, entrants[black].version, time_control=tournament.time_control,
                         games=tournament.games_per_pairing, rated=tournament.official, tournament=tournament,
                         round_number=number, opening_suite=tournament.opening_suite)
            for white, black in pairing.boards]


@transaction.atomic
def enter_late(tournament: Tournament, version, check) -> TournamentEntrant:
    """A late entry to a running Swiss, paired from the next round on. Its pairing number is its place in the
    ranking order (C.04.2: by fitted rating, the entrants below it moved down one) when the Swiss is seeded by
    rating and it is rated, otherwise the next one. ``check`` is the entry check every tournament applies
    (game, playable, consent, not entered, the cap)."""
    check(tournament, version)
    # Charged like the start: one pairing a round for each round still to come.
    left = tournament.rounds - current_round(tournament)
    cost = left * expected_match_seconds(tournament.game, tournament.time_control, tournament.games_per_pairing)
    check_budget(tournament.organiser, cost, f"this late entry's {left} pairings")
    number = (tournament.entrants.aggregate(top=Max("seed"))["top"] or 0) + 1
    if tournament.seeding == "rating":
        number = _place_by_rating(tournament, version, number)
    return TournamentEntrant.objects.create(tournament=tournament, version=version, seed=number)


def _place_by_rating(tournament: Tournament, version, last: int) -> int:
    """The late entrant's pairing number: before the first entrant rated lower or unrated (the order among
    those already entered is kept), the ones from there moved down one. Unrated, it comes last."""
    entrants = list(tournament.entrants.order_by("seed"))
    elos = fitted_elos(tournament.game, [entrant.version_id for entrant in entrants] + [version.pk])
    mine = elos.get(version.pk)
    if mine is None:
        return last
    place = next((entrant.seed for entrant in entrants
                  if elos.get(entrant.version_id) is None or elos[entrant.version_id] < mine), last)
    for entrant in reversed(entrants):  # bottom up: each seed moves to a free one
        if entrant.seed >= place:
            TournamentEntrant.objects.filter(pk=entrant.pk).update(seed=entrant.seed + 1)
    return place


@transaction.atomic
def withdraw(tournament: Tournament, version) -> SwissWithdrawal:
    """Between rounds: the entrant plays out its current round and is not paired again; its results stay."""
    entrant = tournament.entrants.filter(version=version).first()
    if entrant is None:
        raise ValidationError({"version": [f"{version} is not entered"]})
    if SwissWithdrawal.objects.filter(entrant=entrant).exists():
        raise ValidationError({"version": [f"{version} has already withdrawn"]})
    return SwissWithdrawal.objects.create(entrant=entrant, after_round=current_round(tournament))
