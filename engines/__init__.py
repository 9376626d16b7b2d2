"""The referee: Tafl 9x9, Fidchell (Rules One and 2) and Altai Shatra."""

from .core import (
    BLACK,
    NONE,
    WHITE,
    BadPosition,
    BadRecord,
    BadSettings,
    BoardPoint,
    Game,
    IllegalAction,
    Outcome,
    Position,
    RefereeError,
    Termination,
    UnknownGame,
    Winner,
)
from .registry import GAME_IDS, get_game

__all__ = [
    "BLACK", "NONE", "WHITE", "BadPosition", "BadRecord", "BadSettings", "BoardPoint", "Game", "IllegalAction",
    "Outcome", "Position", "RefereeError", "Termination",
    "UnknownGame", "Winner", "GAME_IDS", "get_game",
]
