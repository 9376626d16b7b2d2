"""A knockout's bracket: seeding order, byes, and who advances, read from the tournament's matches."""

from __future__ import annotations

from dataclasses import dataclass, field

from .models import KnockoutWalkover, Match, Tournament, TournamentEntrant

OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)


def bracket_size(entrants: int) -> int:
    """The smallest power of two that holds them all: the first round's slots."""
    size = 1
    while size < entrants:
        size *= 2
    return size


def slot_order(size: int) -> list[int]:
    """The seeds in bracket order (1 meets 2 only in the final, 1 and 2 meet 3 and 4 only in the semi-finals):
    each pair of neighbours plays the first round, so seed s meets seed size + 1 - s."""
    order = [1]
    while len(order) < size:
        width = 2 * len(order)
        order = [seed for top in order for seed in (top, width + 1 - top)]
    return order


@dataclass
class Pairing:
    """Two entrants of one round (``low`` is None for a bye: ``high`` advances without playing)."""

    round: int
    high: TournamentEntrant | None  # the higher seed
    low: TournamentEntrant | None
    matches: list[Match] = field(default_factory=list)  # the mini-match first, then the tie-breaks
    high_points: float = 0.0
    low_points: float = 0.0
    winner: TournamentEntrant | None = None
    note: str = ""  # how it was decided, or what it waits for
    walkover: KnockoutWalkover | None = None  # decided without play

    @property
    def is_bye(self) -> bool:
        return self.round == 1 and self.high is not None and self.low is None

    @property
    def is_open(self) -> bool:
        return any(match.status in OPEN for match in self.matches)

    @property
    def tiebreaks(self) -> int:
        return max(0, len(self.matches) - 1)


@dataclass
class Bracket:
    rounds: list[list[Pairing]]
    champion: TournamentEntrant | None = None


def _decide(pairing: Pairing, tiebreak_pairs: int, walkover: KnockoutWalkover | None = None) -> None:
    if walkover is not None:  # recorded only while nothing of the pairing was open
        pairing.walkover = walkover
        pairing.winner = pairing.low if walkover.loser_id == pairing.high.pk else pairing.high
        pairing.note = f"walkover: {walkover.reason}"
        return
    if pairing.round == 1 and pairing.is_bye:  # only the first round has byes; later a gap is a pairing to come
        pairing.winner, pairing.note = pairing.high, "bye"
        return
    if pairing.high is None or pairing.low is None:
        pairing.note = "waiting"
        return
    if not pairing.matches or pairing.is_open:
        pairing.note = "playing" if pairing.matches else "waiting"
        return
    high = pairing.high.version_id
    for match in pairing.matches:
        ours = match.version_a_id == high
        pairing.high_points += match.score_a if ours else match.score_b
        pairing.low_points += match.score_b if ours else match.score_a
    if pairing.high_points != pairing.low_points:
        higher = pairing.high_points > pairing.low_points
        pairing.winner = pairing.high if higher else pairing.low
        pairing.note = "after tie-breaks" if pairing.tiebreaks else ""
    elif pairing.tiebreaks >= tiebreak_pairs:
        pairing.winner, pairing.note = pairing.high, "level: the higher seed advances"
    else:
        pairing.note = "level: a tie-break pair follows"


def bracket(tournament: Tournament, entrants: list[TournamentEntrant] | None = None,
            matches: list[Match] | None = None, walkovers: list[KnockoutWalkover] | None = None) -> Bracket:
    """Every round so far, in bracket order; later rounds' pairings whose entrants are not known yet have None.
    Three queries (entrants, matches, walkovers) unless the caller passes them."""
    if entrants is None:
        entrants = list(tournament.entrants.select_related("version__bot").order_by("seed"))
    if matches is None:
        matches = list(tournament.matches.order_by("round", "id"))
    if walkovers is None:
        walkovers = list(tournament.walkovers.all()) if tournament.pk else []
    gave = {(walkover.round, walkover.loser_id): walkover for walkover in walkovers}
    by_seed = {entrant.seed: entrant for entrant in entrants}
    played: dict[tuple[int, frozenset], list[Match]] = {}
    for match in matches:
        played.setdefault((match.round, frozenset((match.version_a_id, match.version_b_id))), []).append(match)
    size = bracket_size(len(entrants))
    slots = [by_seed.get(seed) for seed in slot_order(size)] if len(entrants) >= 2 else []
    rounds = []
    number = 1
    while len(slots) >= 2:
        pairings = []
        for high, low in zip(slots[0::2], slots[1::2]):
            if low is not None and (high is None or low.seed < high.seed):
                high, low = low, high
            pairing = Pairing(number, high, low)
            walkover = None
            if high is not None and low is not None:
                pairing.matches = played.get((number, frozenset((high.version_id, low.version_id))), [])
                walkover = gave.get((number, low.pk)) or gave.get((number, high.pk))
            _decide(pairing, tournament.tiebreak_pairs, walkover)
            pairings.append(pairing)
        rounds.append(pairings)
        slots = [pairing.winner for pairing in pairings]
        number += 1
    champion = slots[0] if len(slots) == 1 else None
    return Bracket(rounds, champion)


ROUND_NAMES = {1: "Final", 2: "Semi-finals", 4: "Quarter-finals"}


def round_name(pairings_in_round: int, number: int) -> str:
    return ROUND_NAMES.get(pairings_in_round, f"Round {number}")
