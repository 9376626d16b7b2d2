"""A Swiss's history read from the database: each entrant's rounds, for the pairing, the standings and the TRF."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Max

from ..models import Match, SwissRound, Tournament, TournamentEntrant
from .dutch import Entry, Played
from .standings import Line, Round, standings

OPEN = (Match.Status.QUEUED, Match.Status.RUNNING)


def match_points(match: Match) -> tuple[float, float] | None:
    """A finished pairing's result for A and B; None while it is open, or when it failed (unplayed)."""
    if match.status != Match.Status.FINISHED:
        return None
    if match.score_a == match.score_b:
        return 0.5, 0.5
    return (1.0, 0.0) if match.score_a > match.score_b else (0.0, 1.0)


def rounds_of(tournament: Tournament, entrants: dict[int, TournamentEntrant], played: int) -> dict[int, list]:
    """Per seed, its rounds 1..played as (Round of the standings, the match or None, whether a bye, whether
    missed by a late entry). A late entrant's rounds before its first pairing score ``late_entry_points``."""
    seed_of = {e.version_id: seed for seed, e in entrants.items()}
    table = {seed: [(Round(None, 0.0), None, False, False) for _ in range(played)] for seed in entrants}
    for match in tournament.matches.filter(round__lte=played).order_by("round", "id"):
        a, b = seed_of.get(match.version_a_id), seed_of.get(match.version_b_id)
        points = match_points(match)
        if a is None or b is None or match.round is None:
            continue
        if points is None:
            table[a][match.round - 1] = (Round(None, 0.0), match, False, False)
            table[b][match.round - 1] = (Round(None, 0.0), match, False, False)
            continue
        table[a][match.round - 1] = (Round(b, points[0], "w"), match, False, False)
        table[b][match.round - 1] = (Round(a, points[1], "b"), match, False, False)
    for row in tournament.swiss_rounds.filter(number__lte=played, bye__isnull=False).select_related("bye"):
        table[row.bye.seed][row.number - 1] = (Round(None, row.bye_points), None, True, False)
    if tournament.format == Tournament.Format.SWISS:  # every entrant of a round is paired or has the bye
        for seed, rows in table.items():
            withdrawal = getattr(entrants[seed], "swiss_withdrawal", None)
            last = withdrawal.after_round if withdrawal is not None else played  # unpaired after: no points
            for index, (_, match, bye, _) in enumerate(rows[:last]):
                if match is not None or bye:
                    break
                rows[index] = (Round(None, tournament.late_entry_points), None, False, True)
    return table


def entries(tournament: Tournament, entrants: dict[int, TournamentEntrant], played: int) -> list[Entry]:
    """Every entrant's history as the pairing engine takes it (withdrawn ones too, for their opponents' floats)."""
    table = rounds_of(tournament, entrants, played)
    return [Entry(seed, tuple(Played(r.opponent, r.colour, r.points, bye=bye) for r, _, bye, _ in rows))
            for seed, rows in table.items()]


def current_round(tournament: Tournament) -> int:
    """The last round paired (0 before the first)."""
    return tournament.swiss_rounds.filter(note="").aggregate(top=Max("number"))["top"] or 0



@dataclass
class Cell:
    """One entrant's round on the page: its opponent's seed, colour and result, the match, a bye, or a round
    missed by a late entry."""

    round: Round
    match: Match | None
    bye: bool
    late: bool = False


@dataclass
class SwissLine:
    standing: Line
    entrant: TournamentEntrant
    cells: list[Cell]


@dataclass
class SwissTable:
    lines: list[SwissLine]
    rounds: list[SwissRound]
    entrants: dict[int, TournamentEntrant] = field(default_factory=dict)

    @property
    def note(self) -> str:
        return next((row.note for row in self.rounds if row.note), "")


def table(tournament: Tournament) -> SwissTable:
    """Standings with their tie-breaks and every entrant's rounds (three queries)."""
    entrants = {e.seed: e for e in tournament.entrants.select_related("version__bot", "swiss_withdrawal")}
    rounds = list(tournament.swiss_rounds.select_related("bye"))
    played = max((row.number for row in rounds if not row.note), default=0)
    cells = {seed: [Cell(*row) for row in rows] for seed, rows in rounds_of(tournament, entrants, played).items()}
    lines = standings({seed: [cell.round for cell in rows] for seed, rows in cells.items()})
    return SwissTable([SwissLine(line, entrants[line.number], cells[line.number]) for line in lines], rounds,
                      entrants)
