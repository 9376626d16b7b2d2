"""The public face of Altai Shatra: an immutable position over the mutable core."""

from __future__ import annotations

from bisect import bisect_left

from ..core import BLACK, NONE, WHITE, BadPosition, BoardPoint, Game, Outcome, Position, Termination
from .board import _Board, _draw_reason, _piece_counts
from .notation import TEMDEK_TEXT, _marked_board_text, _rank_groups, _read_fen
from .rules import MAX_PLIES, RULESET, Settings, _rules
from .tables import BIT, LABEL, LAST_RANK, LETTERS, SQUARES, TYPE_OF_PROMOTION


class _SortedLabels:
    """A sorted list of move labels seen as a collection whose ``in`` bisects rather than compares every label."""

    __slots__ = ("labels",)

    def __init__(self, labels: list[str]):
        self.labels = labels

    def __contains__(self, label) -> bool:
        labels = self.labels
        i = bisect_left(labels, label)
        return i < len(labels) and labels[i] == label

    def __iter__(self):
        return iter(self.labels)

    def __len__(self) -> int:
        return len(self.labels)


class ShatraPosition(Position):
    """An immutable Altai Shatra position; ``play`` returns a new one."""

    __slots__ = ("settings", "_rules", "_board", "_side", "_temdeks", "_ep_square", "_noprogress", "_ply", "_urgent",
                 "_winner", "_bare", "_history", "_known", "_first", "_captured", "_moves", "_labels", "_outcome",
                 "_text", "_groups", "_earlier", "_counts")

    def __init__(self, settings, rules, board, side, temdeks, ep_square, noprogress, ply, urgent, winner, bare, history,
                 known, captured, counts):
        """``board`` is bytes, ``temdeks`` a pair, ``history`` the earlier keys, ``known`` the (labels, moves) of each
        (as ``_legal`` leaves them), ``counts`` as ``_piece_counts``."""
        self.settings = settings
        self._rules = rules
        self._board = board
        self._side = side
        self._temdeks = temdeks
        self._ep_square = ep_square
        self._noprogress = noprogress
        self._ply = ply
        self._urgent = urgent
        self._winner = winner
        self._bare = bare
        self._history = history + ((board, side, temdeks[0], temdeks[1], ep_square, urgent),)
        self._known = known
        self._first = None  # where the current key first comes in the history, once _legal looked
        self._captured = captured
        self._moves = None
        self._labels = None
        self._outcome = False
        self._text = None
        self._groups = None  # the board's rank groups once text() wrote them (without urgent marks)
        self._earlier = None  # (the groups of the position before, the squares play changed) if known
        self._counts = counts

    def _core(self, hist=()) -> _Board:
        return _Board(self._rules, self._board, self._side, self._temdeks, self._ep_square, self._noprogress,
                      self._ply, self._urgent, self._winner, self._bare, hist, self._counts)

    @property
    def turn(self) -> str:
        return WHITE if self._side == 0 else BLACK

    def pieces(self) -> dict[str, str]:
        names, board, urgent = self._rules.names, self._board, self._urgent
        found = {}
        for sq in SQUARES:
            piece = board[sq]
            if piece:
                code = "wb"[piece >> 3] + LETTERS[piece & 7]
                found[names[sq]] = code + "!" if urgent & BIT[sq] else code
        return found

    @property
    def ply(self) -> int:
        return self._ply

    @property
    def captured(self) -> tuple[str, ...]:
        return self._captured

    def _legal(self) -> list[str]:
        """The labels of the legal moves (game over or not), sorted.

        Quiet moves are generated as labels only (play rebuilds the one it needs); ``_moves`` keeps the capture
        series (and, under the biy-safety filter, every move).
        """
        if self._labels is None:
            hist = self._history
            self._first = hist.index(hist[-1])
            if self._first < len(hist) - 1:  # a repeated position: its legal moves are those it had before
                self._labels, self._moves = self._known[self._first]
                return self._labels
            rules = self._rules
            if rules.settings.may_leave_biy_capturable:
                self._moves, labels = self._core().legal_parts(self._board, rules.label_rows)
                if self._moves:
                    labels += map(LABEL, self._moves)
            else:
                self._moves = self._core().legal(self._board)
                labels = list(map(LABEL, self._moves))
            labels.sort()
            self._labels = labels
        return self._labels

    def outcome(self) -> Outcome | None:
        if self._outcome is False:
            self._outcome = self._compute_outcome()
        return self._outcome

    def _compute_outcome(self) -> Outcome | None:
        if self._winner is not None:
            return Outcome(Termination.BIY_CAPTURED, WHITE if self._winner == 0 else BLACK)
        if not self._legal():
            if not self.settings.no_legal_move_loses:
                return Outcome(Termination.NO_LEGAL_MOVE, NONE)
            return Outcome(Termination.NO_LEGAL_MOVE, BLACK if self._side == 0 else WHITE)
        hist = self._history[self._first:]  # the earlier keys cannot be the current one
        reason = _draw_reason(self._rules, hist, self._noprogress, self._counts[1], self._bare, self._ply)
        return Outcome(reason, NONE) if reason else None

    def legal_moves(self) -> list[str]:
        if self.outcome() is not None:
            return []
        return self._legal()[:]

    def canonical_action(self, action: str) -> str:
        labels = self._labels
        if self._outcome is None and labels is not None and type(action) is str:  # a legal action, the usual case
            i = bisect_left(labels, action)
            if i < len(labels) and labels[i] == action:
                return action
        return super().canonical_action(action)

    def _legal_actions(self) -> _SortedLabels:
        return _SortedLabels(self._legal() if self.outcome() is None else [])

    def _why_illegal(self, wanted: str) -> str:
        """A short reason for an action that is not legal, where one is cheap to find."""
        names = self._rules.square_of
        parts = wanted.replace("*", "-").replace("x", "-").split("=")[0].split("-")
        if len(parts) < 2 or any(part not in names for part in parts):
            return "malformed: expected FROM-TO, FROM-TO=Q|R|B or a series FROMxTOxTO..."
        piece = self._board[names[parts[0]]]
        if not piece or piece >> 3 != self._side:
            return f"no {self.turn} piece on {parts[0]}"
        legal = self._legal()
        if any(label.lower().startswith(wanted + "x") for label in legal):
            return "the series must go on"
        if all("x" in label for label in legal):
            return "a capture is compulsory"
        if all(not label.lower().startswith(parts[0] + "-") and not label.lower().startswith(parts[0] + "x")
               for label in legal):
            return f"the piece on {parts[0]} has no legal move here"
        return f"not a legal move of the piece on {parts[0]}"

    def _move(self, label: str) -> tuple:
        """The move tuple of a legal action's label: a capture series as generated, a quiet move or drop rebuilt from
        its squares (its label names it fully)."""
        if "x" in label:
            return next(m for m in self._moves if m[6] == label)
        frm, to, letter = self._rules.quiet_labels.get(label) or self._rules.quiet_squares(label)
        piece = TYPE_OF_PROMOTION[letter] | self._side << 3 if letter else self._board[frm]
        return (frm, to, piece, (), letter, 0, label)

    def play(self, action: str) -> ShatraPosition:
        label = self.canonical_action(action)
        m = self._move(label)
        core = self._core()
        core.make(m)
        caps = m[3]
        names = self._rules.names
        # A capture removes a piece for good, so no earlier position can come back: repetition can forget them.
        history = () if caps else self._history
        known = () if caps else self._known + ((self._labels, self._moves),)
        after = ShatraPosition(
            self.settings, self._rules, bytes(core.board), core.side, (core.temdeks[0], core.temdeks[1]),
            core.ep_square, core.noprogress, core.ply, core.urgent, core.winner, core.bare, history, known,
            tuple([names[v] for v in caps]) if caps else (), (tuple(core.fortress_counts), core.total),
        )
        if self._groups is not None:
            # a capture may also promote the captured side's waiting shatras (A10)
            changed = m[:2] + caps + LAST_RANK[self._side ^ 1] if caps else m[:2]
            after._earlier = (self._groups, changed)
        return after

    def text(self) -> str:
        if self._text is None:
            tem = TEMDEK_TEXT[self._temdeks]
            ep = self._rules.names[self._ep_square] if self._ep_square >= 0 else "-"
            moveno = self._ply // 2 + 1
            if self._urgent:
                board = _marked_board_text(self._board, self._urgent)
            else:
                self._groups = _rank_groups(self._board, self._earlier)
                board = "/".join(self._groups)
            self._earlier = None
            self._text = f"{board} {'wb'[self._side]} {tem} {ep} {self._noprogress} {moveno}"
        return self._text

    def _perft(self, depth: int) -> int:
        return self._core(list(self._history)).perft(depth)


def _parse(text: str, settings: Settings) -> ShatraPosition:
    rules = _rules(settings)
    board, side, tem, ep, noprogress, ply, urgent, winner = _read_fen(text, rules)
    # README: from a FEN, the bare-biys count (D3) is taken from the no-progress field.
    return ShatraPosition(settings, rules, bytes(board), side, tuple(tem), ep, noprogress, ply, urgent, winner,
                          noprogress, (), (), (), _piece_counts(board))


def _initial(settings: Settings) -> ShatraPosition:
    fields = settings.start_position.split()
    fields[1] = "w" if settings.first_side == WHITE else "b"
    return _parse(" ".join(fields), settings)


def _check_start(settings: Settings) -> None:
    try:
        _read_fen(settings.start_position, _rules(settings))
    except BadPosition as exc:
        raise ValueError(f"start_position: {exc}") from None


def _board_points(settings: Settings) -> tuple[BoardPoint, ...]:
    names = _rules(settings).names
    points = []
    for sq in SQUARES:
        file, rank = sq % 7, sq // 7 + 1
        kind = "fortress" if rank <= 3 or rank >= 12 else "gate" if rank in (4, 11) else ""
        points.append(BoardPoint(names[sq], (file, rank - 1), kind))
    return tuple(points)


SHATRA = Game(
    id="shatra",
    ruleset=RULESET,
    settings_type=Settings,
    initial_position=_initial,
    parse_position=_parse,
    max_plies=MAX_PLIES,
    check_settings=_check_start,
    board_points=_board_points,
)
ShatraPosition.game = SHATRA
