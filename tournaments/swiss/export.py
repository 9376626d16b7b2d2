"""Any tournament as a TRF16 (round robin or Swiss): one 001 line per entrant, one block per round."""

from __future__ import annotations

from django.db.models import Max

from ..models import Tournament
from . import trf
from .history import OPEN, rounds_of


def _rounds(tournament: Tournament) -> tuple[int | None, int]:
    """(rounds planned for XXR, rounds to write)."""
    if tournament.format == Tournament.Format.SWISS:
        # Only finished rounds: a round in play would read as played, and a pairing program would pair the one
        # after it. So the file of a running Swiss pairs the round being played as it was paired.
        paired = tournament.swiss_rounds.filter(note="").aggregate(top=Max("number"))["top"] or 0
        in_play = tournament.matches.filter(round=paired, status__in=OPEN).exists()
        return tournament.rounds, paired - in_play
    scheduled = tournament.matches.aggregate(top=Max("round"))["top"] or 0
    return scheduled or None, scheduled


def tournament_trf(tournament: Tournament, name=None) -> str:
    """The file's text; ``name(version)`` is how an entrant is named (its bot's name and version by default)."""
    planned, written = _rounds(tournament)
    entrants = {e.seed: e for e in tournament.entrants.select_related("version__bot", "swiss_withdrawal")}
    table = rounds_of(tournament, entrants, written)
    report = trf.Report(name=tournament.name, rounds=planned,
                        bye_points=tournament.bye_points if tournament.format == Tournament.Format.SWISS else 1.0)
    for seed, entrant in sorted(entrants.items()):
        results = []
        for played, match, bye, late in table[seed]:
            finished = played.opponent is not None
            if bye:
                results.append(trf.Result(None, None, "U"))
            elif late:  # not paired: a requested bye of the organiser's points
                results.append(trf.Result(None, None, {1.0: "F", 0.5: "H", 0.0: "Z"}[played.points]))
            elif finished:
                code = {1.0: "1", 0.5: "=", 0.0: "0"}[played.points]
                results.append(trf.Result(played.opponent, played.colour, code))
            elif match is not None and match.status in ("queued", "running"):
                results.append(None)  # still being played: no result yet
            else:
                results.append(trf.Result(None, None, "Z"))
        while results and results[-1] is None:
            results.pop()
        version = entrant.version
        label = name(version) if name else f"{version.bot.name} v{version.number}"
        report.players.append(trf.Player(seed, label, results=results))
    return trf.write(report)
