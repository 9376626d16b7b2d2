"""A gauntlet's table: the champion's results against each opponent, and over all of them, with the Elo
difference and its 95% interval on the expected-score scale the arena uses everywhere (``engines.stats``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.core import Termination
from engines.stats import EloEstimate, elo_pentanomial, elo_trinomial, pentanomial

from .models import Game, Match, Tournament, TournamentEntrant


@dataclass
class GauntletRow:
    opponent: TournamentEntrant | None  # None: the overall row
    matches: list[Match] = field(default_factory=list)
    wins: int = 0
    draws: int = 0
    losses: int = 0
    pair_scores: list[float] = field(default_factory=list)
    unpaired: bool = False  # some games were not in a complete pair: the trinomial counts them

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return self.wins + 0.5 * self.draws

    @property
    def elo(self) -> EloEstimate | None:
        if not self.games:
            return None
        if self.pair_scores and not self.unpaired:
            return elo_pentanomial(pentanomial(self.pair_scores))
        return elo_trinomial(self.wins, self.draws, self.losses)


@dataclass
class GauntletTable:
    champion: TournamentEntrant | None
    rows: list[GauntletRow]
    overall: GauntletRow


def gauntlet_table(tournament: Tournament) -> GauntletTable:
    """Three queries: entrants, matches, games."""
    entrants = list(tournament.entrants.select_related("version__bot__owner").order_by("seed"))
    champion = next((entrant for entrant in entrants if entrant.version_id == tournament.champion_id), None)
    rows = {entrant.version_id: GauntletRow(entrant) for entrant in entrants if entrant is not champion}
    overall = GauntletRow(None)
    row_of_match = {}
    for match in tournament.matches.order_by("round", "id"):
        opponent = match.version_b_id if match.version_a_id == tournament.champion_id else match.version_a_id
        if opponent in rows:
            rows[opponent].matches.append(match)
            row_of_match[match.pk] = rows[opponent]
    games = (Game.objects.filter(match__tournament=tournament, match__status=Match.Status.FINISHED)
             .exclude(reason=Termination.VOID.value)
             .values_list("match_id", "number", "white_id", "black_id", "winner").order_by("match_id", "number"))
    pairs: dict[tuple[int, int], list[float]] = {}
    for match_id, number, white, black, winner in games:
        champion_side = "white" if white == tournament.champion_id else "black"
        opponent = black if champion_side == "white" else white
        row = rows.get(opponent)
        if row is None:
            continue
        points = 1.0 if winner == champion_side else 0.5 if winner == "none" else 0.0
        for counted in (row, overall):
            counted.wins += points == 1.0
            counted.draws += points == 0.5
            counted.losses += points == 0.0
        pairs.setdefault((match_id, (number + 1) // 2), []).append(points)
    for (match_id, _), scores in pairs.items():
        for counted in (row_of_match[match_id], overall):
            if len(scores) == 2:
                counted.pair_scores.append(sum(scores))
            else:
                counted.unpaired = True
    return GauntletTable(champion, list(rows.values()), overall)
