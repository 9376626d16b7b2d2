"""Swiss standings: match points, then the tie-breaks FIDE recommends for a Swiss, in this order."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations

TIEBREAKS = ("buchholz_cut1", "buchholz", "sonneborn_berger", "wins", "direct_encounter")
TIEBREAK_NAMES = {"buchholz_cut1": "Buchholz cut-1", "buchholz": "Buchholz", "sonneborn_berger": "Sonneborn-Berger",
                  "wins": "wins", "direct_encounter": "direct encounter"}


@dataclass
class Round:
    """One round of one player: ``opponent`` None for a bye or an absence; ``points`` are match points."""

    opponent: int | None
    points: float
    colour: str | None = None


@dataclass
class Line:
    number: int
    rounds: list[Round]
    rank: int = 0
    score: float = 0.0
    values: dict[str, float | None] = field(default_factory=dict)

    @property
    def tiebreaks(self) -> list[tuple[str, float | None]]:
        return [(TIEBREAK_NAMES[name], self.values[name]) for name in TIEBREAKS]


def standings(players: dict[int, list[Round]]) -> list[Line]:
    """Lines in order, ranks shared by players level on score and every tie-break."""
    lines = {number: Line(number, rounds, score=sum(r.points for r in rounds)) for number, rounds in players.items()}
    for line in lines.values():
        opponents = [lines[r.opponent].score if r.opponent in lines else None for r in line.rounds]
        played = [score for score in opponents if score is not None]
        dummies = [line.score] * (len(opponents) - len(played))
        contributions = dummies + sorted(played)  # the dummy opponents are cut first
        line.values["buchholz"] = sum(contributions)
        line.values["buchholz_cut1"] = sum(contributions[1:])
        line.values["sonneborn_berger"] = sum(r.points * lines[r.opponent].score for r in line.rounds
                                              if r.opponent in lines)
        line.values["wins"] = sum(1 for r in line.rounds if r.opponent is not None and r.points == 1.0)
        line.values["direct_encounter"] = None
    before = TIEBREAKS[:-1]
    level: dict[tuple, list[Line]] = {}
    for line in lines.values():
        level.setdefault((line.score, *(line.values[name] for name in before)), []).append(line)
    for group in level.values():
        _direct_encounter(group)
    order = sorted(lines.values(), key=lambda line: (_key(line), line.number))
    for place, line in enumerate(order, start=1):
        previous = order[place - 2] if place > 1 else None
        line.rank = previous.rank if previous and _key(previous) == _key(line) else place
    return order


def _key(line: Line) -> tuple:
    return (-line.score, *(-(line.values[name] or 0) for name in TIEBREAKS))


def _direct_encounter(group: list[Line]) -> None:
    """Points among players level on everything before it, only when each two of them met."""
    if len(group) < 2:
        return
    numbers = {line.number for line in group}
    met = {frozenset((line.number, r.opponent)) for line in group for r in line.rounds if r.opponent in numbers}
    if any(frozenset(pair) not in met for pair in combinations(numbers, 2)):
        return
    for line in group:
        line.values["direct_encounter"] = sum(r.points for r in line.rounds if r.opponent in numbers)
