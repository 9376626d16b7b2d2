"""Altai Shatra (game id ``shatra``): the referee for ``docs/rules/shatra.md``.

Split along its seams: ``tables`` (the board, its geometry and every precomputed table), ``board`` (``_Board``,
the mutable make/unmake core shared by ``legal_moves``, ``play`` and ``perft``), ``notation`` (square names and
the position string), ``rules`` (the settings and the tables each turns into) and ``position``
(``ShatraPosition``, the immutable face the rest of the arena sees).
"""

from .notation import _read_fen
from .position import SHATRA, ShatraPosition
from .rules import MAX_PLIES, RULESET, START_FEN, Settings, _rules
from .tables import ALGEBRAIC_NAMES, BIT, LETTERS, NUMERIC_NAMES, RANK_SQUARES, SQUARES

__all__ = [
    "ALGEBRAIC_NAMES", "BIT", "LETTERS", "MAX_PLIES", "NUMERIC_NAMES", "RANK_SQUARES", "RULESET", "SHATRA",
    "SQUARES", "START_FEN", "Settings", "ShatraPosition", "_read_fen", "_rules",
]
