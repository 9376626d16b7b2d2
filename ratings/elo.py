"""Logistic Elo, the one formula both the live update and the replay use (so they agree to the bit)."""

from __future__ import annotations

from dataclasses import dataclass

from engines.core import BLACK, WHITE, points

SCORES = {"win": 1.0, "draw": 0.5, "loss": 0.0}


@dataclass(frozen=True)
class EloRules:
    start: float = 1500.0
    k_provisional: int = 40
    provisional_games: int = 20
    k: int = 20

    def k_for(self, games_played: int) -> int:
        """The K of a bot that has played ``games_played`` rated games before this one."""
        return self.k_provisional if games_played < self.provisional_games else self.k


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def updated(rating: float, opponent: float, score: float, k: int) -> float:
    return rating + k * (score - expected_score(rating, opponent))


def scores_for(winner: str) -> tuple[float, float]:
    """(white's score, black's score) for a game's winner: white, black or none (``engines.core.points``)."""
    return points(winner, WHITE), points(winner, BLACK)


def rules_from_settings() -> EloRules:
    from django.conf import settings

    arena = settings.ARENA
    return EloRules(
        start=float(arena["ELO_START"]),
        k_provisional=int(arena["ELO_K_PROVISIONAL"]),
        provisional_games=int(arena["ELO_PROVISIONAL_GAMES"]),
        k=int(arena["ELO_K"]),
    )
