"""The referee: Tafl 9x9, Fidchell (Rules One and 2) and Altai Shatra.

Standard library only, so a bot author can use it without the service::

    from engines import get_game
    game = get_game("tafl9")
    pos = game.initial()
    pos = pos.play(pos.legal_moves()[0])
"""

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
)
from .registry import GAME_IDS, get_game

__all__ = [
    "BLACK", "NONE", "WHITE", "BadPosition", "BadRecord", "BadSettings", "BoardPoint", "Game", "IllegalAction",
    "Outcome", "Position", "RefereeError", "Termination",
    "UnknownGame", "GAME_IDS", "get_game",
]
