"""Knockouts: seeding at the start, the first round's mini-matches, then tie-breaks and the next rounds as
results come in (``advance``, called when any of its matches ends). The bracket itself is read, never stored:
``tournaments.knockout``."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db.models import F

from ratings.selectors import fitted_elos

from ..knockout import bracket
from ..models import KnockoutWalkover, Match, Tournament, TournamentEntrant
from .queueing import check_playable, create_match

TIEBREAK_GAMES = 2  # one colour-swapped pair per tie-break
MAX_TIEBREAK_PAIRS = 10
SEEDINGS = ("rating", "listed")


def check_settings(seeding: str, tiebreak_pairs) -> None:
    if seeding not in SEEDINGS:
        raise ValidationError({"seeding": [f"unknown seeding {seeding!r}; known: {', '.join(SEEDINGS)}"]})
    if isinstance(tiebreak_pairs, bool) or not isinstance(tiebreak_pairs, int) or not (
            0 <= tiebreak_pairs <= MAX_TIEBREAK_PAIRS):
        raise ValidationError({"tiebreak_pairs": [f"a whole number from 0 to {MAX_TIEBREAK_PAIRS}"]})


def seed(tournament: Tournament, entrants: list[TournamentEntrant]) -> list[TournamentEntrant]:
    """The entrants in seed order, their seeds rewritten to it: by the game's latest fitted rating (the
    unrated after the rated, in the order they were listed), or as the organiser listed them."""
    if tournament.seeding == "rating":
        elos = fitted_elos(tournament.game, [entrant.version_id for entrant in entrants])
        entrants = sorted(entrants, key=lambda entrant: (elos.get(entrant.version_id) is None,
                                                         -(elos.get(entrant.version_id) or 0.0), entrant.seed))
    # Two steps: seeds are unique within the tournament at every moment.
    TournamentEntrant.objects.filter(tournament=tournament).update(seed=F("seed") + len(entrants))
    for number, entrant in enumerate(entrants, start=1):
        TournamentEntrant.objects.filter(pk=entrant.pk).update(seed=number)
        entrant.seed = number
    return entrants


def first_round(tournament: Tournament, entrants: list[TournamentEntrant]) -> list[tuple[int, object, object]]:
    """(round, higher seed's version, lower seed's version) of the first round; the top seeds' byes left out."""
    first = bracket(tournament, entrants, matches=[]).rounds[0]
    return [(1, pairing.high.version, pairing.low.version) for pairing in first if not pairing.is_bye]


def advance(tournament: Tournament) -> list[Match]:
    """Queue what the bracket needs next, if anything: a tie-break pair for each level pairing that has used
    fewer than ``tiebreak_pairs``, or, once every pairing of the round is decided, the next round. An entrant
    whose version can no longer play when its match is due gives a walkover (recorded, shown on the bracket),
    and the bracket is read again. Called with the tournament's row locked (by
    ``matches.finish_tournament_if_done``), so two matches ending at once cannot both queue it. Returns the
    matches queued."""
    entrants = list(tournament.entrants.select_related("version__bot").order_by("seed"))
    queued = []
    while True:
        drawn = bracket(tournament, entrants)
        if drawn.champion is not None:
            return queued
        current = next((pairings for pairings in drawn.rounds if any(p.winner is None for p in pairings)), None)
        if current is None:
            return queued
        walked = False
        for pairing in current:
            if pairing.winner is not None or pairing.is_open or pairing.high is None or pairing.low is None:
                continue
            loser, reason = _unplayable(pairing.low) or _unplayable(pairing.high) or (None, "")
            if loser is not None:
                KnockoutWalkover.objects.create(tournament=tournament, round=pairing.round, loser=loser,
                                                reason=reason)
                walked = True
                continue
            games = tournament.games_per_pairing if not pairing.matches else TIEBREAK_GAMES
            queued.append(_queue(tournament, pairing.round, pairing.high.version, pairing.low.version, games))
        if not walked:
            return queued


def _unplayable(entrant: TournamentEntrant) -> tuple[TournamentEntrant, str] | None:
    """The entrant and why, when its version may not be paired any more (the checks every match passes). The
    reason names no bot: the bracket shows it beside entrants whose names may be hidden."""
    try:
        check_playable(entrant.version, "version")
    except ValidationError:
        version = entrant.version
        reason = ("its bot was retired" if version.bot.is_retired
                  else "its version was disabled by an operator" if version.is_disabled
                  else "its version was deactivated by its owner" if not version.is_active
                  else f"its version is {version.status}")
        return entrant, f"seed {entrant.seed} could not play: {reason}"
    return None


def _queue(tournament: Tournament, number: int, high, low, games: int) -> Match:
    return create_match(high, low, time_control=tournament.time_control, games=games, rated=tournament.official,
                        tournament=tournament, round_number=number, opening_suite=tournament.opening_suite)
