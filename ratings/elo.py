"""Logistic Elo, the one formula both the live update and the replay use (so they agree to the bit). Pure math:
the service passes the settings in (``ratings.services.rules_from_settings``)."""

from __future__ import annotations

from dataclasses import dataclass

from engines.core import BLACK, WHITE, points
from knobs import Arena

START = float(Arena.ELO_START.default)  # a new bot's Elo, and the fit's pool average, unless the settings say otherwise


@dataclass(frozen=True)
class EloRules:
    """The settings' defaults unless given (``ratings.services.rules_from_settings`` gives the settings')."""

    start: float = START
    k_provisional: int = Arena.ELO_K_PROVISIONAL.default
    provisional_games: int = Arena.ELO_PROVISIONAL_GAMES.default
    k: int = Arena.ELO_K.default

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

