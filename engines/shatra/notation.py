"""Altai Shatra's notation: square names and the position string (FEN, book §4.1)."""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING

from ..core import BLACK, WHITE, BadPosition, BoundedCache, digits_for_empty_runs
from .board import _Board
from .tables import (
    ALGEBRAIC_NAMES,
    BIT,
    E_,
    FORWARD,
    IN_FG,
    LAST_RANK,
    LETTER_OF_PIECE,
    LETTERS,
    PIECE_OF_LETTER,
    RANK_OF,
    RANK_SQUARES,
    REL,
    SQUARES,
    STEP,
    W_,
    B,
    K,
    P,
    Q,
    R,
)

if TYPE_CHECKING:
    from .rules import _Rules




def _read_fen(text: str, rules: _Rules):
    """The fields of a position string, checked against book §4.1; raises BadPosition naming the fault."""
    if not isinstance(text, str):
        raise BadPosition(f"shatra: position must be a string, not {type(text).__name__}")
    fields = text.split()
    if len(fields) != 6:
        raise BadPosition(
            f"shatra: position needs 6 fields (board side temdeks ep noprogress moveno), got {len(fields)}"
        )
    board_text, side_text, tem_text, ep_text, np_text, move_text = fields
    groups = board_text.split("/")
    if len(groups) != 14:
        raise BadPosition(f"shatra: board needs 14 ranks separated by '/', got {len(groups)}")
    board = [0] * 98
    urgent = 0
    for group, rank in zip(groups, range(14, 0, -1)):
        squares = RANK_SQUARES[rank]
        at = 0
        mark = False
        last_digit = False
        for ch in group:
            if ch == "!":
                if mark:
                    raise BadPosition(f"shatra: rank {rank} {group!r}: '!!'")
                mark = True
                last_digit = False
                continue
            if ch.isdigit():
                if mark:
                    raise BadPosition(f"shatra: rank {rank} {group!r}: '!' must precede a piece letter")
                if last_digit or ch == "0":
                    raise BadPosition(f"shatra: rank {rank} {group!r}: bad empty-square count")
                at += int(ch)
                last_digit = True
                if at > len(squares):
                    break
                continue
            if ch not in PIECE_OF_LETTER:
                raise BadPosition(f"shatra: rank {rank} {group!r}: bad piece letter {ch!r}")
            if at >= len(squares):
                at += 1
                break
            board[squares[at]] = PIECE_OF_LETTER[ch]
            if mark:
                urgent |= BIT[squares[at]]
            mark = False
            last_digit = False
            at += 1
        if mark:
            raise BadPosition(f"shatra: rank {rank} {group!r}: '!' must precede a piece letter")
        if at != len(squares):
            raise BadPosition(
                f"shatra: rank {rank} {group!r} covers {at} squares, it has {len(squares)}"
            )
    if side_text not in ("w", "b"):
        raise BadPosition(f"shatra: side to move must be w or b, got {side_text!r}")
    side = 0 if side_text == "w" else 1
    if tem_text not in ("-", "T", "t", "Tt"):
        raise BadPosition(f"shatra: temdek field must be -, T, t or Tt, got {tem_text!r}")
    tem = ["T" in tem_text, "t" in tem_text]
    for name, value in (("noprogress", np_text), ("move number", move_text)):
        if not value.isdigit() or not value.isascii():
            raise BadPosition(f"shatra: {name} must be a non-negative integer, got {value!r}")
    noprogress, moveno = int(np_text), int(move_text)
    if moveno < 1:
        raise BadPosition(f"shatra: move number must be at least 1, got {moveno}")

    biys = [[sq for sq in SQUARES if board[sq] == K | c << 3] for c in (0, 1)]
    for c, colour in ((0, WHITE), (1, BLACK)):
        if len(biys[c]) > 1:
            raise BadPosition(f"shatra: {colour} has {len(biys[c])} biys")
    if not biys[0] and not biys[1]:
        raise BadPosition("shatra: both biys are missing")
    winner = None
    for c, colour in ((0, WHITE), (1, BLACK)):
        if not biys[c]:
            if c != side:
                raise BadPosition(f"shatra: {colour} has no biy, but only the side to move can have lost it")
            winner = 1 - c
    for c, colour in ((0, WHITE), (1, BLACK)):
        counts = {t: sum(1 for sq in SQUARES if board[sq] == t | c << 3) for t in (Q, R, B)}
        for t in (Q, R, B):
            if counts[t] > rules.pool[t]:
                raise BadPosition(
                    f"shatra: {colour} has {counts[t]} pieces {LETTERS[t]!r}, the army allows {rules.pool[t]}"
                )
        if tem[c] and not any(board[sq] and board[sq] >> 3 == c for sq in SQUARES if IN_FG[c][sq]):
            raise BadPosition(
                f"shatra: {colour}'s temdek is on but {colour} has no piece in its fortress or gate"
            )
        waiting = [sq for sq in LAST_RANK[c] if board[sq] == P | c << 3]
        if waiting and rules.settings.delayed_promotion and any(counts[t] < rules.pool[t] for t in (Q, R, B)):
            raise BadPosition(
                f"shatra: {colour} shatra on {ALGEBRAIC_NAMES[waiting[0]]} would have promoted "
                "(a type is available)"
            )
    for sq in SQUARES:
        if urgent & BIT[sq]:
            c = board[sq] >> 3
            if not (IN_FG[c][sq] and tem[c]):
                raise BadPosition(
                    f"shatra: urgent mark on {ALGEBRAIC_NAMES[sq]}, "
                    "which is not a reserve piece in its own fortress"
                )
    ep = -1
    if ep_text != "-":
        if ep_text not in rules.square_of:
            raise BadPosition(f"shatra: bad en-passant square {ep_text!r}")
        ep = rules.square_of[ep_text]
        mover = 1 - side  # the side that double-stepped
        pawn = STEP[ep][FORWARD[mover]]
        origin = STEP[ep][FORWARD[1 - mover]]
        if (REL[mover][ep] != 6 or board[ep] or pawn < 0 or board[pawn] != P | mover << 3
                or origin < 0 or board[origin]):
            raise BadPosition(
                f"shatra: en-passant square {ep_text} is not behind a shatra that just double-stepped"
            )
        probe = _Board(rules, board, side, tem, ep, 0, 0, urgent, None, 0, ())
        if not any(probe._en_passant(s) for s in (STEP[pawn][E_], STEP[pawn][W_])
                   if s >= 0 and board[s] == P | side << 3):
            raise BadPosition(
                f"shatra: en-passant square {ep_text} given but no en-passant jump exists (write -)"
            )
    ply = 2 * (moveno - 1) + side
    return board, side, tem, ep, noprogress, ply, urgent, winner


# A rank's squares are consecutive: board -> the slice of each rank, rank 14 first.
_RANK_SLICES = tuple(slice(RANK_SQUARES[rank][0], RANK_SQUARES[rank][-1] + 1) for rank in range(14, 0, -1))
_RANKS = itemgetter(*_RANK_SLICES)
_CELL_TEXT = bytes(ord(LETTER_OF_PIECE.get(p, "1")) for p in range(256))  # a piece's letter, "1" if empty
TEMDEK_TEXT = {(False, False): "-", (True, False): "T", (False, True): "t", (True, True): "Tt"}


class _RankTexts(BoundedCache):
    """The pieces of one rank (a slice of the board) -> its FEN group without urgent marks, written once."""

    def __missing__(self, pieces: bytes) -> str:
        return self.keep(pieces, digits_for_empty_runs(pieces.translate(_CELL_TEXT).decode(), 7))


_RANK_TEXT = _RankTexts(100_000)


def _rank_groups(board: bytes, earlier=None) -> list[str]:
    """The FEN groups of the ranks without urgent marks, rank 14 first.

    ``earlier`` is (the groups of an earlier position, the squares changed since): only their ranks are redone.
    """
    if earlier is None:
        return list(map(_RANK_TEXT.__getitem__, _RANKS(board)))
    groups, changed = earlier
    groups = groups.copy()
    for sq in changed:
        i = 14 - RANK_OF[sq]
        groups[i] = _RANK_TEXT[board[_RANK_SLICES[i]]]
    return groups


def _marked_board_text(board, urgent) -> str:
    """The board field of a position with urgent marks."""
    return "/".join(
        _rank_text([board[sq] for sq in RANK_SQUARES[rank]], [urgent & BIT[sq] for sq in RANK_SQUARES[rank]])
        for rank in range(14, 0, -1)
    )


def _rank_text(pieces, urgent_marks=()) -> str:
    """One rank's FEN group; ``urgent_marks[i]`` (if given) puts '!' before the i-th square's piece."""
    out, run = [], 0
    for i, p in enumerate(pieces):
        if not p:
            run += 1
            continue
        if run:
            out.append(str(run))
            run = 0
        out.append("!" + LETTER_OF_PIECE[p] if urgent_marks and urgent_marks[i] else LETTER_OF_PIECE[p])
    if run:
        out.append(str(run))
    return "".join(out)


