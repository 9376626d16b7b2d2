"""What the API shows of a gauntlet (its table per opponent) and a knockout (its bracket): serializers and the
rows they read, from ``tournaments.gauntlet`` and ``tournaments.knockout``."""

from __future__ import annotations

import math

from rest_framework import serializers

from tournaments.gauntlet import GauntletRow, GauntletTable
from tournaments.knockout import Bracket, round_name

from .serializers import EntrantVersionSerializer


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def gauntlet_row(row: GauntletRow) -> dict:
    elo = row.elo
    return {"opponent": row.opponent.version if row.opponent else None,
            "opponent_seed": row.opponent.seed if row.opponent else None,
            "matches": [match.pk for match in row.matches], "games": row.games, "wins": row.wins,
            "draws": row.draws, "losses": row.losses, "score": row.score, "pairs": len(row.pair_scores),
            "elo": _finite(elo.elo) if elo else None, "elo_margin": _finite(elo.margin) if elo else None,
            "elo_text": elo.words() if elo else None}


class GauntletRowSerializer(serializers.Serializer):
    opponent = EntrantVersionSerializer(allow_null=True, help_text="The opponent; null on the overall row.")
    opponent_seed = serializers.IntegerField(allow_null=True, help_text="The opponent's seed.")
    matches = serializers.ListField(child=serializers.IntegerField(), help_text="Ids of the mini-matches.")
    games = serializers.IntegerField(help_text="Games the champion played against it (counted ones).")
    wins = serializers.IntegerField(help_text="The champion's wins.")
    draws = serializers.IntegerField(help_text="Draws.")
    losses = serializers.IntegerField(help_text="The champion's losses.")
    score = serializers.FloatField(help_text="The champion's points.")
    pairs = serializers.IntegerField(help_text="Complete colour-swapped pairs (the Elo's unit when every game is "
                                               "in one; else it is counted game by game).")
    elo = serializers.FloatField(allow_null=True, help_text="The champion's Elo difference on the expected-score "
                                                            "scale; null before a game or when one side scored "
                                                            "everything.")
    elo_margin = serializers.FloatField(allow_null=True, help_text="Half-width of its 95% interval; null when "
                                                                   "unknown (too few games).")
    elo_text = serializers.CharField(allow_null=True, help_text="The same, for people.")


class GauntletSerializer(serializers.Serializer):
    champion = EntrantVersionSerializer(allow_null=True, help_text="The champion.")
    opponents = GauntletRowSerializer(many=True, help_text="One row per opponent, in seed order.")
    overall = GauntletRowSerializer(help_text="The champion against the whole field.")


def gauntlet(table: GauntletTable) -> dict:
    return {"champion": table.champion.version if table.champion else None,
            "opponents": [gauntlet_row(row) for row in table.rows], "overall": gauntlet_row(table.overall)}


class PairingSerializer(serializers.Serializer):
    high = EntrantVersionSerializer(allow_null=True, help_text="The higher seed; null while not known yet.")
    high_seed = serializers.IntegerField(allow_null=True, help_text="The higher seed's number; null if not known yet.")
    low = EntrantVersionSerializer(allow_null=True, help_text="The lower seed; null for a bye or not known yet.")
    low_seed = serializers.IntegerField(allow_null=True, help_text="The lower seed's number; null: bye or not known.")
    high_points = serializers.FloatField(help_text="The higher seed's points, tie-breaks included.")
    low_points = serializers.FloatField(help_text="The lower seed's points, tie-breaks included.")
    matches = serializers.ListField(child=serializers.IntegerField(),
                                    help_text="Ids of the mini-match, then of its tie-break pairs.")
    winner_seed = serializers.IntegerField(allow_null=True, help_text="Who advances; null while undecided.")
    note = serializers.CharField(help_text="`bye`, `after tie-breaks`, `level: the higher seed advances`, "
                                           "`playing`, `waiting`, or empty.")


class BracketRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField(help_text="The round's number, 1 first.")
    name = serializers.CharField(help_text="Final, Semi-finals, ...")
    pairings = PairingSerializer(many=True, help_text="In bracket order: neighbours' winners meet next.")


class BracketSerializer(serializers.Serializer):
    rounds = BracketRoundSerializer(many=True, help_text="The rounds, first to final.")
    winner_seed = serializers.IntegerField(allow_null=True, help_text="The knockout's winner; null until decided.")


def bracket(drawn: Bracket) -> dict:
    def pairing(p):
        return {"high": p.high.version if p.high else None, "high_seed": p.high.seed if p.high else None,
                "low": p.low.version if p.low else None, "low_seed": p.low.seed if p.low else None,
                "high_points": p.high_points, "low_points": p.low_points,
                "matches": [match.pk for match in p.matches], "winner_seed": p.winner.seed if p.winner else None,
                "note": p.note}

    return {"rounds": [{"round": number, "name": round_name(len(pairings), number),
                        "pairings": [pairing(p) for p in pairings]}
                       for number, pairings in enumerate(drawn.rounds, start=1)],
            "winner_seed": drawn.champion.seed if drawn.champion else None}
