"""Altai Shatra (game id ``shatra``): the referee for ``docs/rules/shatra.md``."""

from .notation import _read_fen
from .position import SHATRA, ShatraPosition
from .rules import MAX_PLIES, RULESET, START_FEN, Settings, _rules
from .tables import ALGEBRAIC_NAMES, BIT, LETTERS, NUMERIC_NAMES, RANK_SQUARES, SQUARES

__all__ = [
    "ALGEBRAIC_NAMES", "BIT", "LETTERS", "MAX_PLIES", "NUMERIC_NAMES", "RANK_SQUARES", "RULESET", "SHATRA",
    "SQUARES", "START_FEN", "Settings", "ShatraPosition", "_read_fen", "_rules",
]
