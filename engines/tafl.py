"""Tafl 9x9 (game id ``tafl9``): the referee for ``docs/rules/tafl9.md``."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .core import (
    BLACK,
    NONE,
    WHITE,
    BadPosition,
    BoardPoint,
    BoundedCache,
    Game,
    IllegalAction,
    Outcome,
    Position,
    Termination,
    digits_for_empty_runs,
)

RULESET = "tafl9/2026.1"
INITIAL_TFEN = "3bbb3/4b4/4w4/b3w3b/bbwwkwwbb/b3w3b/4w4/4b4/3bbb3 w 0"
PASS = "pass"  # the only action of a side without a move, when D15 allows passing

FILES = "ABCDEFGHI"
THRONE = 40  # E5
CORNERS = (0, 8, 72, 80)  # A1, I1, A9, I9
ESCAPES = (27, 36, 45, 3, 4, 5, 35, 44, 53, 75, 76, 77)  # A4 A5 A6 D1 E1 F1 I4 I5 I6 D9 E9 F9
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))  # E, W, N, S: the order captures are listed in (book T12)

# Cell values. Empty special squares keep a value of their own.
_EMPTY, _BLACK, _WHITE, _KING, _KING_THRONE, _THRONE, _CORNER, _EXIT = range(8)
# TFEN text: cell value -> letter, every empty square (plain or special) a "1" until runs are counted.
_LETTERS = bytes.maketrans(bytes(range(8)), b"1bwkk111")
_TOP_DOWN = tuple(slice(rank * 9, rank * 9 + 9) for rank in range(8, -1, -1))  # TFEN lists rank 9 first
_RANK_TEXTS = BoundedCache(8192)  # a rank's 9 cell values -> its TFEN text

# Results of one move (before the draw rules).
_GOES_ON, _KING_CAPTURED, _ESCAPED = 0, 1, 2

KING_ARMED = ("hammer-and-anvil", "hammer", "anvil", "unarmed")
KING_CAPTURE_CHECKS = ("adjacent_black_move", "any_black_move")


@dataclass(frozen=True)
class Settings:
    """The decisions of docs/rules/tafl9.md §9, each with the book's default."""

    ranks_numbered_from_bottom: bool = True  # D1: A1 bottom-left; False names rank 1 at the top
    initial_tfen: str = INITIAL_TFEN  # D2: standard Tablut layout
    no_capture_limit_plies: int = 30  # D3: 30 plies (the alternative reading is 60)
    throne_hostile_when_empty: bool = True  # D4: the empty throne is an anvil for every soldier
    throne_hostile_when_occupied: bool = True  # D4: ... and so is the throne holding the king
    corners_hostile: bool = False  # D5: corners are not anvils
    king_throne_capture: bool = True  # D6: king + empty throne capture a black soldier
    king_armed: str = "hammer-and-anvil"  # D7: or "hammer", "anvil", "unarmed"
    king_capture_check: str = "adjacent_black_move"  # D8: or "any_black_move"
    king_capturable_on_edge: bool = False  # D9: True: 3 black neighbours take him on an edge
    king_escapes_by_passing: bool = False  # D10: the king must land on an escape square
    escape_squares_open_to_soldiers: bool = True  # D10: anyone may stop on escape squares
    throne_crossable_when_occupied: bool = False  # D11: nobody jumps the king on his throne
    king_may_return_to_throne: bool = False  # D12: once left, nobody stops on E5 again
    throne_crossable_when_empty: bool = True  # D12: ... but everyone may pass over it
    all_attackers_captured_wins: bool = False  # D13: Black without pieces is a draw, not a White win
    repetition_draw_count: int = 0  # D14: 0 = no repetition rule; n = draw when a position occurs n times
    passing_allowed: bool = False  # D15: no passing; no legal move is a draw
    captures_mandatory: bool = False  # D16: captures are automatic but capturing moves optional
    king_capture_resets_counter: bool = True  # D17: the counter reads 0 after a king capture

    def __post_init__(self):
        if self.no_capture_limit_plies < 1:
            raise ValueError(f"no_capture_limit_plies must be at least 1, got {self.no_capture_limit_plies}")
        if self.king_armed not in KING_ARMED:
            raise ValueError(f"king_armed must be one of {', '.join(KING_ARMED)}, got {self.king_armed!r}")
        if self.king_capture_check not in KING_CAPTURE_CHECKS:
            raise ValueError(
                f"king_capture_check must be one of {', '.join(KING_CAPTURE_CHECKS)}, "
                f"got {self.king_capture_check!r}"
            )
        if self.repetition_draw_count < 0 or self.repetition_draw_count == 1:
            raise ValueError(
                f"repetition_draw_count must be 0 (off) or at least 2, got {self.repetition_draw_count}"
            )
        try:
            _read_tfen(self.initial_tfen, self.no_capture_limit_plies)
        except BadPosition as exc:
            raise ValueError(f"initial_tfen: {exc}") from None


# ---------------------------------------------------------------- tables


def _square_names(from_bottom: bool) -> tuple[str, ...]:
    return tuple(FILES[sq % 9] + str(sq // 9 + 1 if from_bottom else 9 - sq // 9) for sq in range(81))


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 9 and 0 <= rank < 9


def _rays() -> tuple:
    rays = []
    for sq in range(81):
        f, r = sq % 9, sq // 9
        per_step = []
        for df, dr in STEPS:
            ray, nf, nr = [], f + df, r + dr
            while _on_board(nf, nr):
                ray.append(nr * 9 + nf)
                nf, nr = nf + df, nr + dr
            per_step.append(tuple(ray))
        rays.append(tuple(ray for ray in per_step if ray))
    return tuple(rays)


def _neighbours_and_beyond() -> tuple:
    """For each square t: the (neighbour, square beyond) pairs on the board, in STEPS order."""
    pairs = []
    for sq in range(81):
        f, r = sq % 9, sq // 9
        pairs.append(tuple(
            ((r + dr) * 9 + f + df, (r + 2 * dr) * 9 + f + 2 * df)
            for df, dr in STEPS if _on_board(f + 2 * df, r + 2 * dr)
        ))
    return tuple(pairs)


def _neighbours() -> tuple:
    return tuple(
        tuple((sq // 9 + dr) * 9 + sq % 9 + df for df, dr in STEPS if _on_board(sq % 9 + df, sq // 9 + dr))
        for sq in range(81)
    )


RAYS = _rays()
CAPTURE_PAIRS = _neighbours_and_beyond()
NEIGHBOURS = _neighbours()
ADJACENT = tuple(frozenset(n) for n in NEIGHBOURS)
IS_ESCAPE = bytes(1 if sq in ESCAPES else 0 for sq in range(81))
# The 9 ranks and 9 files: their squares in order, and the slice of the board's bytes that reads them.
LINES = tuple(tuple(range(r * 9, r * 9 + 9)) for r in range(9)) + tuple(tuple(range(f, 81, 9)) for f in range(9))
LINE_SLICES = tuple(slice(r * 9, r * 9 + 9) for r in range(9)) + tuple(slice(f, 81, 9) for f in range(9))
LINE_CACHE_SIZE = 2048  # line contents remembered per line and side


class _Rules:
    """Everything a settings instance decides, turned into tables once."""

    def __init__(self, settings: Settings):
        s = settings
        self.settings = s
        self.names = _square_names(s.ranks_numbered_from_bottom)
        self.square_of = {name: sq for sq, name in enumerate(self.names)}
        self.limit = s.no_capture_limit_plies
        empty = [_EMPTY] * 81
        empty[THRONE] = _THRONE
        for sq in CORNERS:
            empty[sq] = _CORNER
        if not s.escape_squares_open_to_soldiers:
            for sq in ESCAPES:
                empty[sq] = _EXIT
        self.empty = tuple(empty)
        self.soldier_passes = frozenset(
            [_EXIT]
            + ([_THRONE] if s.throne_crossable_when_empty else [])
            + ([_KING_THRONE] if s.throne_crossable_when_occupied else [])
        )
        self.king_lands = frozenset([_EXIT] + ([_THRONE] if s.king_may_return_to_throne else []))
        self.king_passes = frozenset([_EXIT] + ([_THRONE] if s.throne_crossable_when_empty else []))
        king_anvil = s.king_armed in ("hammer-and-anvil", "anvil")
        self.king_hammer = s.king_armed in ("hammer-and-anvil", "hammer")
        # anvil[value]: is a square holding this cell value hostile to the victim?
        vs_white = [False] * 8
        vs_white[_BLACK] = True
        vs_white[_THRONE] = s.throne_hostile_when_empty
        vs_white[_KING_THRONE] = s.throne_hostile_when_occupied
        vs_white[_CORNER] = s.corners_hostile
        vs_black = [False] * 8
        vs_black[_WHITE] = True
        vs_black[_KING] = king_anvil
        vs_black[_KING_THRONE] = king_anvil or s.throne_hostile_when_occupied
        vs_black[_THRONE] = s.throne_hostile_when_empty
        vs_black[_CORNER] = s.corners_hostile
        vs_black_king_hammer = list(vs_black)
        vs_black_king_hammer[_THRONE] = s.throne_hostile_when_empty and s.king_throne_capture
        self.anvil_vs_white = tuple(vs_white)
        self.anvil_vs_black = tuple(vs_black)
        self.anvil_vs_black_king_hammer = tuple(vs_black_king_hammer)
        self.check_any_black_move = s.king_capture_check == "any_black_move"
        on_edge_too = s.king_capturable_on_edge
        self.king_capturable = tuple(len(NEIGHBOURS[sq]) == 4 or on_edge_too for sq in range(81))
        self.escape_by_passing = s.king_escapes_by_passing
        self.king_capture_resets = s.king_capture_resets_counter
        self.fast_perft = not (s.passing_allowed or s.captures_mandatory or s.repetition_draw_count)
        self._code_moves()
        # [white_to_move][line]: {cells: codes}
        self.known_lines = tuple([BoundedCache(LINE_CACHE_SIZE) for _ in LINES] for _ in (0, 1))

    def _code_moves(self) -> None:
        """Number every conceivable move by the rank of its name, so that sorting codes sorts names."""
        names = self.names
        moves = sorted(((s, t) for s in range(81) for ray in RAYS[s] for t in ray),
                       key=lambda move: names[move[0]] + "-" + names[move[1]])
        self.move_of = tuple(moves)
        self.move_names = tuple(names[s] + "-" + names[t] for s, t in moves)
        self.code_of = [-1] * (81 * 81)  # [s * 81 + t]; -1 where s-t is no move along a line
        self.code_of_name = {}
        for code, (s, t) in enumerate(moves):
            self.code_of[s * 81 + t] = code
            self.code_of_name[self.move_names[code]] = code
        # line_rays[line][i]: from the line's i-th square, the (j, code) of each move onwards, then backwards.
        self.line_rays = tuple(
            tuple(
                tuple(tuple((j, self.code_of[squares[i] * 81 + squares[j]]) for j in way)
                      for way in (range(i + 1, 9), range(i - 1, -1, -1)))
                for i in range(9)
            )
            for squares in LINES
        )

    def line_moves(self, rays: tuple, line: bytes, white: bool) -> tuple:
        """The codes of the side's moves along one rank or file: ``line`` its cells, ``rays`` its line_rays."""
        soldier = _WHITE if white else _BLACK
        codes = []
        for i, v in enumerate(line):
            if v == soldier:
                lands, passes = (), self.soldier_passes
            elif white and (v == _KING or v == _KING_THRONE):
                lands, passes = self.king_lands, self.king_passes
            else:
                continue
            for ray in rays[i]:
                for j, code in ray:
                    c = line[j]
                    if c == _EMPTY or c in lands:
                        codes.append(code)
                    if c != _EMPTY and c not in passes:
                        break
        return tuple(codes)


@lru_cache(maxsize=64)
def _rules(settings: Settings) -> _Rules:
    return _Rules(settings)


# ---------------------------------------------------------------- the mutable core


class _Board:
    """A mutable position with make/unmake: the fast core of every rule."""

    __slots__ = ("cells", "white_to_move", "nocap", "king", "rules")

    def __init__(self, cells, white_to_move: bool, nocap: int, king: int, rules: _Rules):
        self.cells = cells
        self.white_to_move = white_to_move
        self.nocap = nocap
        self.king = king
        self.rules = rules

    def moves(self) -> list:
        """Every (from, to) move of the side to move, in square order."""
        cells = self.cells
        rules = self.rules
        moves = []
        append = moves.append
        if self.white_to_move:
            passes = rules.soldier_passes
            for s in range(81):
                v = cells[s]
                if v == _WHITE:
                    for ray in RAYS[s]:
                        for t in ray:
                            c = cells[t]
                            if c == _EMPTY:
                                append((s, t))
                            elif c not in passes:
                                break
                elif v == _KING or v == _KING_THRONE:
                    lands, king_passes = rules.king_lands, rules.king_passes
                    for ray in RAYS[s]:
                        for t in ray:
                            c = cells[t]
                            if c == _EMPTY:
                                append((s, t))
                                continue
                            if c in lands:
                                append((s, t))
                            if c not in king_passes:
                                break
        else:
            passes = rules.soldier_passes
            for s in range(81):
                if cells[s] == _BLACK:
                    for ray in RAYS[s]:
                        for t in ray:
                            c = cells[t]
                            if c == _EMPTY:
                                append((s, t))
                            elif c not in passes:
                                break
        return moves

    def make(self, s: int, t: int) -> tuple:
        """Play s-t (known legal); returns (result, captured squares, undo record)."""
        cells = self.cells
        rules = self.rules
        empty = rules.empty
        mover = cells[s]
        target = cells[t]
        cells[s] = empty[s]
        captured = []
        king_before = self.king
        result = _GOES_ON
        if mover == _BLACK:
            cells[t] = _BLACK
            anvil = rules.anvil_vs_white
            for n, r in CAPTURE_PAIRS[t]:
                if cells[n] == _WHITE and anvil[cells[r]]:
                    cells[n] = empty[n]
                    captured.append(n)
            k = self.king
            if k >= 0 and (rules.check_any_black_move or k in ADJACENT[t]) and rules.king_capturable[k]:
                for x in NEIGHBOURS[k]:
                    c = cells[x]
                    if c != _BLACK and c != _THRONE:
                        break
                else:
                    cells[k] = empty[k]
                    captured.append(k)
                    self.king = -1
                    result = _KING_CAPTURED
        elif mover == _WHITE:
            cells[t] = _WHITE
            anvil = rules.anvil_vs_black
            for n, r in CAPTURE_PAIRS[t]:
                if cells[n] == _BLACK and anvil[cells[r]]:
                    cells[n] = empty[n]
                    captured.append(n)
        else:
            cells[t] = _KING_THRONE if t == THRONE else _KING
            self.king = t
            if rules.king_hammer:
                anvil = rules.anvil_vs_black_king_hammer
                for n, r in CAPTURE_PAIRS[t]:
                    if cells[n] == _BLACK and anvil[cells[r]]:
                        cells[n] = empty[n]
                        captured.append(n)
            if IS_ESCAPE[t] or (rules.escape_by_passing and _passes_escape(s, t)):
                result = _ESCAPED
        nocap = self.nocap
        if captured and (result != _KING_CAPTURED or len(captured) > 1 or rules.king_capture_resets):
            self.nocap = 0
        else:
            self.nocap = nocap + 1
        self.white_to_move = not self.white_to_move
        return result, captured, (s, t, mover, target, nocap, king_before)

    def unmake(self, captured: list, undo: tuple) -> None:
        s, t, mover, target, nocap, king_before = undo
        cells = self.cells
        victim = _WHITE if mover == _BLACK else _BLACK
        for n in captured:
            cells[n] = victim
        if king_before >= 0 and self.king < 0:
            cells[king_before] = _KING_THRONE if king_before == THRONE else _KING
        cells[t] = target
        cells[s] = mover
        self.king = king_before
        self.nocap = nocap
        self.white_to_move = not self.white_to_move

    def perft(self, depth: int) -> int:
        if depth == 1:
            return self._leaves()
        total = 0
        limit = self.rules.limit
        for s, t in self.moves():
            result, captured, undo = self.make(s, t)
            if result == _GOES_ON and self.nocap < limit:
                total += self.perft(depth - 1)
            self.unmake(captured, undo)
        return total

    def _leaves(self) -> int:
        """perft(1): every move really made and unmade."""
        make, unmake = self.make, self.unmake
        count = 0
        for s, t in self.moves():
            _, captured, undo = make(s, t)
            unmake(captured, undo)
            count += 1
        return count


def _vacant(value: int) -> bool:
    """An empty cell, plain or special (throne, corner, closed escape square)."""
    return value == _EMPTY or value >= _THRONE


def _passes_escape(s: int, t: int) -> bool:
    """Does the straight path from s to t (both ends excluded) cross an escape square?"""
    step = 1 if abs(t - s) < 9 else 9
    if t < s:
        step = -step
    return any(IS_ESCAPE[sq] for sq in range(s + step, t, step))


# ---------------------------------------------------------------- notation


def _read_tfen(text: str, limit: int) -> tuple[list, bool, int, int]:
    """Parse a TFEN into (cells, white_to_move, no-capture count, king square or -1); raises BadPosition."""
    if not isinstance(text, str):
        raise BadPosition(f"tafl9: position must be a string, not {type(text).__name__}")
    fields = text.strip().split(" ")
    if len(fields) != 3:
        raise BadPosition(
            f"tafl9: expected 3 fields separated by single spaces (board, side to move, "
            f"no-capture plies), got {len(fields)} in {text!r}"
        )
    board, side, counter = fields
    rows = board.split("/")
    if len(rows) != 9:
        raise BadPosition(f"tafl9: expected 9 ranks separated by '/', got {len(rows)} in {board!r}")
    cells = [_EMPTY] * 81
    counts = {_BLACK: 0, _WHITE: 0, _KING: 0}
    king = -1
    for i, row in enumerate(rows):
        rank = 9 - i
        file = 0
        last_was_digit = False
        for ch in row:
            if ch in "123456789":
                if last_was_digit:
                    raise BadPosition(f"tafl9: rank {rank} {row!r} has two digits in a row")
                file += int(ch)
                last_was_digit = True
                continue
            last_was_digit = False
            piece = {"b": _BLACK, "w": _WHITE, "k": _KING}.get(ch)
            if piece is None:
                raise BadPosition(
                    f"tafl9: bad piece letter {ch!r} in rank {rank} {row!r} (expected b, w, k or 1-9)"
                )
            if file >= 9:
                raise BadPosition(f"tafl9: rank {rank} {row!r} is longer than 9 squares")
            sq = (rank - 1) * 9 + file
            counts[piece] += 1
            if piece == _KING:
                king = sq
                piece = _KING_THRONE if sq == THRONE else _KING
            cells[sq] = piece
            file += 1
        if file != 9:
            raise BadPosition(f"tafl9: rank {rank} {row!r} covers {file} squares, not 9")
    if side not in ("w", "b"):
        raise BadPosition(f"tafl9: side to move must be 'w' or 'b', got {side!r}")
    if not counter.isdigit() or not counter.isascii() or (len(counter) > 1 and counter[0] == "0"):
        raise BadPosition(
            f"tafl9: no-capture plies must be a number without sign or leading zeros, got {counter!r}"
        )
    nocap = int(counter)
    if nocap > limit:
        raise BadPosition(f"tafl9: no-capture plies {nocap} is above the limit {limit}")
    names = _square_names(True)
    for sq in CORNERS:
        if cells[sq] != _EMPTY:
            raise BadPosition(f"tafl9: corner {names[sq]} is occupied")
    if cells[THRONE] not in (_EMPTY, _KING_THRONE):
        raise BadPosition("tafl9: the throne E5 may hold only the king")
    if counts[_KING] > 1:
        raise BadPosition(f"tafl9: {counts[_KING]} kings, expected exactly one")
    if counts[_KING] == 0 and side != "w":
        raise BadPosition("tafl9: no king (only a move capturing him leaves none), yet black is to move")
    if counts[_BLACK] > 16:
        raise BadPosition(f"tafl9: {counts[_BLACK]} black soldiers, at most 16")
    if counts[_WHITE] > 8:
        raise BadPosition(f"tafl9: {counts[_WHITE]} white soldiers, at most 8")
    if king >= 0 and IS_ESCAPE[king] and side != "b":
        raise BadPosition(
            f"tafl9: the king on escape square {names[king]} has already won, yet white is to move"
        )
    return cells, side == "w", nocap, king


# ---------------------------------------------------------------- the position


class TaflPosition(Position):
    """An immutable Tafl 9x9 position; ``play`` returns a new one."""

    __slots__ = ("settings", "_rules", "_cells", "_white_to_move", "_nocap", "_king", "_ply",
                 "_captured", "_outcome", "_moves", "_history")

    def __init__(self, cells: bytes, white_to_move, nocap, king, rules: _Rules, ply=0, captured=(), history=(),
                 result=_GOES_ON):
        """``cells`` in board form: an empty special square carries its own cell value."""
        settings = rules.settings
        self.settings = settings
        self._rules = rules
        self._cells = cells
        self._white_to_move = white_to_move
        self._nocap = nocap
        self._king = king
        self._ply = ply
        self._captured = captured
        self._moves = None
        self._history = history + (self._key(),) if settings.repetition_draw_count else ()
        self._outcome = self._judge(result)

    def pieces(self) -> dict[str, str]:
        names = _square_names(self.settings.ranks_numbered_from_bottom)
        return {names[sq]: _PIECE_CODES[value] for sq, value in enumerate(self._cells) if value in _PIECE_CODES}

    # -- state

    def _key(self):
        return self._cells, self._white_to_move

    def _board(self) -> _Board:
        return _Board(list(self._cells), self._white_to_move, self._nocap, self._king, self._rules)

    def _move_list(self) -> list:
        """The codes of the legal moves (see ``_Rules._code_moves``), in no particular order."""
        if self._moves is None:
            self._moves = self._moves_by_line()
            if self.settings.captures_mandatory:
                self._moves = self._capturing_only(self._moves)
        return self._moves

    def _moves_by_line(self) -> list:
        """The moves of the side to move, rank by rank then file by file, each line's looked up by its cells."""
        rules = self._rules
        white = self._white_to_move
        cells = self._cells
        codes = []
        for rays, part, known in zip(rules.line_rays, LINE_SLICES, rules.known_lines[white]):
            line = cells[part]
            found = known.get(line)
            if found is None:
                found = known.keep(line, rules.line_moves(rays, line, white))
            codes += found
        return codes

    def _capturing_only(self, moves: list) -> list:
        board = self._board()
        move_of = self._rules.move_of
        capturing = []
        for code in moves:
            _, captured, undo = board.make(*move_of[code])
            if captured:
                capturing.append(code)
            board.unmake(captured, undo)
        return capturing or moves

    def _judge(self, result: int) -> Outcome | None:
        """§8 steps 4-8, for the position just reached (or just parsed)."""
        settings = self.settings
        if result == _KING_CAPTURED or self._king < 0:
            return Outcome(Termination.KING_CAPTURED, BLACK)
        if result == _ESCAPED or IS_ESCAPE[self._king]:
            return Outcome(Termination.ESCAPE, WHITE)
        if self._nocap >= self._rules.limit:
            return Outcome(Termination.NO_CAPTURE_LIMIT, NONE)
        repeats = settings.repetition_draw_count
        if repeats and self._history.count(self._key()) >= repeats:
            return Outcome(Termination.REPETITION, NONE)
        if not self._move_list():
            if settings.all_attackers_captured_wins and not self._white_to_move and _BLACK not in self._cells:
                return Outcome(Termination.NO_LEGAL_MOVE, WHITE)
            if not settings.passing_allowed:
                return Outcome(Termination.NO_LEGAL_MOVE, NONE)
        return None

    # -- the Position interface

    @property
    def turn(self) -> str:
        return WHITE if self._white_to_move else BLACK

    @property
    def ply(self) -> int:
        return self._ply

    @property
    def no_capture_plies(self) -> int:
        return self._nocap

    @property
    def captured(self) -> tuple[str, ...]:
        return self._captured

    def outcome(self) -> Outcome | None:
        return self._outcome

    def legal_moves(self) -> list[str]:
        if self._outcome is not None:
            return []
        moves = self._move_list()
        if not moves:
            return [PASS]  # only reachable when passing is allowed
        names = self._rules.move_names
        return [names[code] for code in sorted(moves)]

    def play(self, action: str) -> TaflPosition:
        if not isinstance(action, str):
            raise IllegalAction(f"tafl9: action must be a string, not {type(action).__name__}")
        if self._outcome is not None:
            raise IllegalAction(f"tafl9: illegal action {action!r}: the game is over ({self._outcome})")
        moves = self._move_list()
        rules = self._rules
        code = rules.code_of_name.get(action)  # an action in canonical form needs no parsing
        if code is None or code not in moves:
            wanted = action.strip().upper()
            if not moves and self.settings.passing_allowed and wanted == PASS.upper():
                return TaflPosition(self._cells, not self._white_to_move, self._nocap + 1, self._king,
                                    rules, self._ply + 1, (), self._history)
            s, t = self._parse_move(action, wanted)
            code = rules.code_of[s * 81 + t]
            if code not in moves:
                raise IllegalAction(f"tafl9: illegal action {action!r}: {self._why_illegal_move(s, t)}")
        return self._after(*rules.move_of[code])

    def _after(self, s: int, t: int) -> TaflPosition:
        """The position after the legal move s-t."""
        rules = self._rules
        board = _Board(bytearray(self._cells), self._white_to_move, self._nocap, self._king, rules)
        result, captured, _ = board.make(s, t)
        names = rules.names
        history = () if captured else self._history
        return TaflPosition(bytes(board.cells), board.white_to_move, board.nocap, board.king, rules,
                            self._ply + 1, tuple([names[sq] for sq in captured]), history, result)

    def _parse_move(self, action: str, wanted: str) -> tuple[int, int]:
        parts = wanted.split("-")
        square_of = self._rules.square_of
        if len(parts) != 2 or parts[0] not in square_of or parts[1] not in square_of:
            raise IllegalAction(f"tafl9: malformed action {action!r}: expected FROM-TO such as E3-H3")
        return square_of[parts[0]], square_of[parts[1]]

    def _why_illegal_move(self, s: int, t: int) -> str:
        """The reason words of book §11 where one applies."""
        cells, names = self._cells, self._rules.names
        mover = cells[s]
        own = (_WHITE, _KING, _KING_THRONE) if self._white_to_move else (_BLACK,)
        if _vacant(mover):
            return f"no piece on {names[s]}"
        if mover not in own:
            return f"not-your-piece: {names[s]} is not a {self.turn} piece"
        if s == t:
            return "the piece must move"
        if s % 9 != t % 9 and s // 9 != t // 9:
            return "not-orthogonal: pieces move along a rank or a file"
        step = (1 if t > s else -1) * (1 if s // 9 == t // 9 else 9)
        for sq in range(s + step, t, step):
            if cells[sq] == _KING_THRONE:
                return "path-blocked: the king sits on the throne E5"
            if not _vacant(cells[sq]) or (sq == THRONE and not self.settings.throne_crossable_when_empty):
                return f"path-blocked at {names[sq]}"
        if t in CORNERS:
            return f"corner: nobody may stop on {names[t]}"
        if t == THRONE:
            if _vacant(cells[t]):
                return "throne: nobody may stop on E5"
            return "occupied: the king is on the throne E5"
        if not _vacant(cells[t]):
            return f"occupied: {names[t]} holds a piece"
        if cells[t] == _EXIT:
            return f"escape square {names[t]} is closed to soldiers (D10 setting)"
        if self.settings.captures_mandatory:
            return "a capturing move is available and captures are mandatory"
        return "forbidden by the settings"

    def text(self) -> str:
        cells, known = self._cells, _RANK_TEXTS
        board = "/".join([known.get(cells[rank]) or _rank_text(cells[rank]) for rank in _TOP_DOWN])
        return f"{board} {'w' if self._white_to_move else 'b'} {self._nocap}"

    def _perft(self, depth: int) -> int:
        if not self._rules.fast_perft:
            return super()._perft(depth)
        return self._board().perft(depth)


def _rank_text(cells: bytes) -> str:
    """The TFEN text of a rank ("3bbb3") from its 9 cell values, remembered in ``_RANK_TEXTS``."""
    return _RANK_TEXTS.keep(cells, digits_for_empty_runs(cells.translate(_LETTERS).decode(), 9))


def _parse(text: str, settings: Settings) -> TaflPosition:
    cells, white_to_move, nocap, king = _read_tfen(text, settings.no_capture_limit_plies)
    rules = _rules(settings)
    board_form = bytes(v if v else rules.empty[sq] for sq, v in enumerate(cells))
    return TaflPosition(board_form, white_to_move, nocap, king, rules)


def _initial(settings: Settings) -> TaflPosition:
    return _parse(settings.initial_tfen, settings)


_PIECE_CODES = {_BLACK: "bs", _WHITE: "ws", _KING: "wk", _KING_THRONE: "wk"}  # Position.pieces


@lru_cache(maxsize=4)
def _board_points(settings: Settings) -> tuple[BoardPoint, ...]:
    names = _square_names(settings.ranks_numbered_from_bottom)
    kinds = {THRONE: "throne", **dict.fromkeys(CORNERS, "corner"), **dict.fromkeys(ESCAPES, "escape")}
    return tuple(BoardPoint(name, (sq % 9, sq // 9), kinds.get(sq, "")) for sq, name in enumerate(names))


# Every capture event resets the 30-ply count and at most 24 soldiers can be taken: 25 x 30 plies (§7).
MAX_PLIES = 25 * Settings().no_capture_limit_plies

TAFL9 = Game(
    id="tafl9",
    ruleset=RULESET,
    settings_type=Settings,
    initial_position=_initial,
    parse_position=_parse,
    max_plies=MAX_PLIES,
    board_points=_board_points,
)
TaflPosition.game = TAFL9
