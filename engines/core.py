"""The shape every game shares: errors, outcomes, settings, positions."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar


class Winner(StrEnum):
    """Who won a game: a side, or ``none`` for a draw. A ``StrEnum``, so each member is the word the records, the
    wire and the database store (``Winner.WHITE == "white"``); the sides are ``WHITE`` and ``BLACK``."""

    WHITE = "white"
    BLACK = "black"
    NONE = "none"


WHITE, BLACK, NONE = Winner.WHITE, Winner.BLACK, Winner.NONE
SIDES = (WHITE, BLACK)
WINNERS = tuple(Winner)  # white, black, none: the values a stored game's winner takes


def other(side: str) -> str:
    return BLACK if side == WHITE else WHITE


class RefereeError(ValueError):
    """Every error the referee raises on bad input; the message names the problem."""


class UnknownGame(RefereeError):
    pass


class BadPosition(RefereeError):
    pass


class IllegalAction(RefereeError):
    pass


class BadSettings(RefereeError):
    pass


class BadRecord(RefereeError):
    pass


class Termination(StrEnum):
    """Every way a game ends: the ``reason=`` words of protocol §6, one vocabulary for the rules, the runner,
    the records, the database and the pages. A ``StrEnum``: each member is its word (``"king-captured"``), so
    it compares, formats and serialises (JSON, the wire, a database column) exactly as the word did."""

    # The rules of one game or another (protocol §6 "game reasons", each book's end of game).
    ESCAPE = "escape"  # tafl
    KING_CAPTURED = "king-captured"  # tafl
    PATH = "path"  # fidchell
    STRENGTH = "strength"  # fidchell
    CHALLENGE = "challenge"  # fidchell-2
    DEAD_POSITION = "dead-position"  # fidchell-1, a setting off by default (rules README)
    MAX_ACTIONS = "max-actions"  # fidchell
    BIY_CAPTURED = "biy-captured"  # shatra
    NO_PROGRESS = "no-progress"  # shatra
    BARE_BIYS = "bare-biys"  # shatra
    NO_LEGAL_MOVE = "no-legal-move"
    REPETITION = "repetition"
    NO_CAPTURE_LIMIT = "no-capture-limit"
    MAX_PLIES = "max-plies"  # shatra's rules, and the runner's cap in any game
    # The runner, when a bot failed or gave up (protocol §6 "errors and results").
    ILLEGAL_MOVE = "illegal-move"
    TIMEOUT = "timeout"
    CRASH = "crash"
    INIT_FAILED = "init-failed"
    RESIGN = "resign"
    BOT_ERROR = "bot-error"
    OUTPUT_LIMIT = "output-limit"
    VOID = "void"  # both bots failed before move 1: no result, the match is played again

    @property
    def by_rules(self) -> bool:
        """A game's rules end games this way (so a replayed record must end there too)."""
        return self in _BY_RULES

    @property
    def by_runner(self) -> bool:
        """The runner ends games this way when the rules have not ended them: a bot's fault, the ply cap, void."""
        return self in _BY_RUNNER

    @property
    def is_bot_fault(self) -> bool:
        """One bot lost by what it did or failed to do (the winner is the other)."""
        return self in _BOT_FAULTS

    @property
    def is_failure(self) -> bool:
        """Somebody failed the protocol: a bot's fault but a resignation (a bot that resigns chose to), or void."""
        return self in _FAILURES


_BY_RULES = frozenset({
    Termination.ESCAPE, Termination.KING_CAPTURED, Termination.PATH, Termination.STRENGTH, Termination.CHALLENGE,
    Termination.DEAD_POSITION, Termination.MAX_ACTIONS, Termination.BIY_CAPTURED, Termination.NO_PROGRESS,
    Termination.BARE_BIYS, Termination.NO_LEGAL_MOVE, Termination.REPETITION, Termination.NO_CAPTURE_LIMIT,
    Termination.MAX_PLIES,
})
_BOT_FAULTS = frozenset({
    Termination.TIMEOUT, Termination.CRASH, Termination.ILLEGAL_MOVE, Termination.INIT_FAILED, Termination.RESIGN,
    Termination.BOT_ERROR, Termination.OUTPUT_LIMIT,
})
_FAILURES = (_BOT_FAULTS - {Termination.RESIGN}) | {Termination.VOID}
_BY_RUNNER = _BOT_FAULTS | {Termination.MAX_PLIES, Termination.VOID}


def points(winner: str, side: str) -> float:
    """The points ``side`` scores in a game ``winner`` won: 1 a win, 0.5 a draw (winner ``none``), 0 a loss."""
    if side not in SIDES:
        raise ValueError(f"side must be white or black, got {side!r}")
    if winner == NONE:
        return 0.5
    if winner in SIDES:
        return 1.0 if winner == side else 0.0
    raise ValueError(f"winner must be white, black or none, got {winner!r}")


@dataclass(frozen=True)
class Outcome:
    """How a game ended: the ``termination`` (a ``Termination``, a plain word is converted) and the
    ``winner``: white, black or none. ``reason`` is the termination's word, as it always was."""

    termination: Termination
    winner: Winner

    def __post_init__(self) -> None:
        # An unknown word or a winner that is not one is refused here, so no caller builds an Outcome the
        # records and the database could not hold (nor one with the arguments in the old order).
        if type(self.termination) is not Termination:
            object.__setattr__(self, "termination", Termination(self.termination))
        if type(self.winner) is not Winner:
            if self.winner not in WINNERS:
                raise ValueError(f"winner must be white, black or none, got {self.winner!r}")
            object.__setattr__(self, "winner", Winner(self.winner))

    @property
    def reason(self) -> str:
        return self.termination.value

    def points(self, side: str) -> float:
        """What ``side`` scores: 1 a win, 0.5 a draw, 0 a loss."""
        return points(self.winner, side)

    def words(self) -> dict[str, str]:
        """The result as a record, the wire and the database store it: ``{"winner": "white", "reason": "escape"}``."""
        return {"winner": self.winner.value, "reason": self.termination.value}

    def __str__(self) -> str:
        return f"winner={self.winner} reason={self.reason}"


class BoundedCache(dict):
    """What positions work out again and again (a line's moves, a rank's text), emptied whenever it reaches
    ``size`` entries: bounded memory, and no bookkeeping on a hit."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size

    def keep(self, key, value):
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value


_EMPTY_RUNS = tuple(("1" * n, str(n)) for n in range(19, 1, -1))  # longest first


def digits_for_empty_runs(text: str, longest: int) -> str:
    """FEN style: every run of "1"s (empty squares, at most ``longest``) becomes its length: "11b111" -> "2b3"."""
    for run, digits in _EMPTY_RUNS[19 - longest:]:
        text = text.replace(run, digits)
    return text


@dataclass(frozen=True)
class BoardPoint:
    """One square (Tafl, Shatra) or point (Fidchell) of a board: what a drawing of the board needs.

    ``coords``: on a grid (Tafl, Shatra) the (file, rank) counted from 0 at the bottom left as White sees
    the board; in Fidchell the (ring, index) of the name ``rRsK``, the index counted clockwise from north,
    and (0, 0) for the centre ``c``. ``kind`` is one or more words, space-separated, or empty for a plain
    one: Tafl ``throne``, ``corner``, ``escape``; Shatra ``fortress``, ``gate``; Fidchell ``centre``.
    """

    name: str
    coords: tuple[int, int]
    kind: str = ""


class Position:
    """One position of one game. Subclasses implement the abstract methods."""

    game: ClassVar[Game]  # set by Game for the class, or per instance by the module
    settings: Any

    @property
    def turn(self) -> str:
        """The side to act: ``white`` or ``black``."""
        raise NotImplementedError

    @property
    def ply(self) -> int:
        """Actions played since the start of the game, where the notation knows it."""
        raise NotImplementedError

    def legal_moves(self) -> list[str]:
        """Every legal action in canonical notation, sorted; empty once the game is over."""
        raise NotImplementedError

    def play(self, action: str) -> Position:
        """The position after ``action``; raises ``IllegalAction`` (self unchanged)."""
        raise NotImplementedError

    def outcome(self) -> Outcome | None:
        """``None`` while the game goes on."""
        raise NotImplementedError

    def text(self) -> str:
        """The position in the book's notation; ``Game.parse(p.text())`` gives ``p`` back."""
        raise NotImplementedError

    def pieces(self) -> dict[str, str]:
        """The piece on every occupied square or point, by its name: a side letter, ``w``/``b`` (``n`` for
        Fidchell's King, who belongs to nobody), then a kind letter: Tafl ``s`` soldier, ``k`` king;
        Fidchell ``s`` stone, ``k`` the King; Shatra ``k`` biy, ``q`` batyr, ``r`` tura, ``b`` yalkyn,
        ``p`` shatra, with a trailing ``!`` on an urgent reserve piece."""
        raise NotImplementedError

    @property
    def captured(self) -> tuple[str, ...]:
        """Squares whose pieces the action that led here removed (protocol ``played … x=``)."""
        return ()

    @property
    def phase(self) -> str | None:
        """An optional hint for ``go phase=`` (Fidchell: place, move, remove)."""
        return None

    def perft(self, depth: int) -> int:
        """Leaf positions ``depth`` actions deep, every leaf really played (0 below a finished game)."""
        if not isinstance(depth, int) or depth < 0:
            raise ValueError(f"{self.game.id}: perft depth must be a non-negative integer, got {depth!r}")
        if depth == 0:
            return 1
        if self.outcome() is not None:
            return 0
        return self._perft(depth)

    def _perft(self, depth: int) -> int:
        """``perft`` of this ongoing position, ``depth`` >= 1; games override it with their make/unmake core."""
        return sum(self.play(a).perft(depth - 1) for a in self.legal_moves())

    def divide(self, depth: int) -> dict[str, int]:
        """``perft(depth - 1)`` after each legal action."""
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"{self.game.id}: divide depth must be at least 1, got {depth!r}")
        return {a: self.play(a).perft(depth - 1) for a in self.legal_moves()}

    def canonical_action(self, action: str) -> str:
        """The legal action ``action`` names (case-insensitively); raises ``IllegalAction`` saying why."""
        if not isinstance(action, str):
            raise IllegalAction(f"{self.game.id}: an action must be a string, not {type(action).__name__}")
        legal = self._legal_actions()
        if action in legal:
            return action
        wanted = action.strip().lower()
        for label in legal:
            if label.lower() == wanted:
                return label
        outcome = self.outcome()
        why = f"the game is over ({outcome})" if outcome is not None else self._why_illegal(wanted)
        raise IllegalAction(f"{self.game.id}: illegal action {action!r} ({why}) in position {self.text()!r}")

    def _legal_actions(self) -> Collection[str]:
        """The legal actions' texts, for ``canonical_action``; games with a text-keyed cache return it."""
        return self.legal_moves()

    def _why_illegal(self, wanted: str) -> str:
        """Why ``wanted`` (stripped, lower case, not legal here) is refused; games say more where they can."""
        return "not a legal action here"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"<{self.game.id} {self.text()}>"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and self.game is other.game
            and self.settings == other.settings
            and self.text() == other.text()
        )

    def __hash__(self) -> int:
        return hash((self.game.id, self.text()))


@dataclass(frozen=True)
class Game:
    """A game id with its ruleset version, its settings and its position type.

    ``initial`` and ``parse`` are the module's constructors; both take a
    settings instance. ``max_plies`` is the longest game the book allows.
    """

    id: str
    ruleset: str
    settings_type: type
    initial_position: Any  # callable(settings) -> Position
    parse_position: Any  # callable(text, settings) -> Position, raises BadPosition
    max_plies: int
    # callable(settings), raises ValueError: the checks a settings type cannot make by itself (Shatra's start
    # position needs the position reader, which needs the settings' tables)
    check_settings: Any = None
    board_points: Any = None  # callable(settings) -> tuple[BoardPoint, ...]

    def points(self, settings=None) -> tuple[BoardPoint, ...]:
        """Every square or point of the board these settings play on, in the engine's order."""
        return self.board_points(self.settings(settings))

    def settings(self, values: Mapping[str, Any] | Any | None = None):
        """A settings instance from a mapping of decision names (the book's defaults for the rest)."""
        if values is None:
            return self.settings_type()
        if isinstance(values, self.settings_type):
            return values
        if not isinstance(values, Mapping):
            raise BadSettings(f"{self.id}: settings must be a mapping, not {type(values).__name__}")
        fields = {f.name: f for f in dataclasses.fields(self.settings_type)}
        unknown = sorted(set(values) - set(fields))
        if unknown:
            raise BadSettings(f"{self.id}: unknown setting(s) {', '.join(unknown)}")
        defaults = self.settings_type()  # built (and validated) once, not once per value
        for name, value in values.items():
            default = getattr(defaults, name)
            if type(value) is not type(default) and not (isinstance(default, float) and isinstance(value, int)):
                raise BadSettings(f"{self.id}: setting {name} must be {type(default).__name__}, got {value!r}")
        try:
            settings = self.settings_type(**values)
            if self.check_settings is not None:
                self.check_settings(settings)
            return settings
        except (TypeError, ValueError) as exc:
            raise BadSettings(f"{self.id}: {exc}") from None

    def initial(self, settings=None) -> Position:
        return self.initial_position(self.settings(settings))

    def parse(self, text: str, settings=None) -> Position:
        if not isinstance(text, str) or not text.strip():
            raise BadPosition(f"{self.id}: empty position text")
        return self.parse_position(text, self.settings(settings))

    def settings_dict(self, settings=None) -> dict[str, Any]:
        return dataclasses.asdict(self.settings(settings))
