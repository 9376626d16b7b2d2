"""Alpha-beta over the referee's own move generator, with a Tafl evaluation.

White (the king's side) wants open lines from the king to the 12 escape
squares; Black wants attackers around the king and its exits closed. An
open line with White to move, or two with Black to move, is as good as an
escape; soldiers the side to act can take count as nearly taken.
"""

from engines.botkit import AlphaBeta, run
from engines.core import WHITE

ESCAPES = {(0, 3), (0, 4), (0, 5), (8, 3), (8, 4), (8, 5), (3, 0), (4, 0), (5, 0), (3, 8), (4, 8), (5, 8)}
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))
THRONE = (4, 4)
CORNERS = {(0, 0), (0, 8), (8, 0), (8, 8)}


def squares(text: str) -> dict[tuple[int, int], str]:
    """(file, rank) -> piece letter, from the board field of a TFEN."""
    board = {}
    for row, rank_text in enumerate(text.split()[0].split("/")):
        file = 0
        for char in rank_text:
            if char.isdigit():
                file += int(char)
            else:
                board[(file, 8 - row)] = char
                file += 1
    return board


def escape_lines(board, king) -> int:
    """Directions in which the king could land on an escape square with one move."""
    count = 0
    for df, dr in STEPS:
        f, r = king[0] + df, king[1] + dr
        while 0 <= f <= 8 and 0 <= r <= 8 and (f, r) not in board:
            if (f, r) in ESCAPES:
                count += 1
                break
            f, r = f + df, r + dr
    return count


def reaches(board, square, mine: set[str]) -> bool:
    """Can a piece of ``mine`` (piece letters) move onto the empty ``square`` with one move?"""
    for df, dr in STEPS:
        f, r = square[0] + df, square[1] + dr
        while 0 <= f <= 8 and 0 <= r <= 8:
            if (f, r) in board:
                if board[(f, r)] in mine:
                    return True
                break
            f, r = f + df, r + dr
    return False


def takeable(board, mine: set[str], victim: str) -> int:
    """Soldiers ``victim`` that one move of ``mine`` would take (custodially, against a piece or the throne)."""
    count = 0
    for (f, r), piece in board.items():
        if piece != victim:
            continue
        for df, dr in STEPS:
            anvil, hammer = (f + df, r + dr), (f - df, r - dr)
            if (board.get(anvil) in mine or anvil == THRONE) and 0 <= hammer[0] <= 8 and 0 <= hammer[1] <= 8 \
                    and hammer not in board and hammer not in CORNERS and hammer != THRONE \
                    and reaches(board, hammer, mine):
                count += 1
                break
    return count


def evaluate(position) -> float:
    board = squares(position.text())
    king = next((sq for sq, piece in board.items() if piece == "k"), None)
    if king is None:
        return -1000.0
    pieces = list(board.values())
    besiegers = sum(board.get((king[0] + df, king[1] + dr)) == "b" for df, dr in STEPS)
    exits = escape_lines(board, king)
    if exits and position.turn == WHITE:
        return 500.0  # the king escapes with the next move
    if exits >= 2:
        return 400.0  # one Black move closes only one line
    edge = min(king[0], king[1], 8 - king[0], 8 - king[1])
    white_takes, black_takes = takeable(board, {"w", "k"}, "b"), takeable(board, {"b"}, "w")
    if position.turn == WHITE:  # the side to act takes; the other only threatens
        threats = 0.9 * white_takes - 0.3 * 2.0 * min(black_takes, 2)
    else:
        threats = 0.3 * min(white_takes, 2) - 0.9 * 2.0 * black_takes
    return (2.0 * pieces.count("w") - 1.0 * pieces.count("b") + 6.0 * min(exits, 2)
            - 1.5 * besiegers - 0.3 * edge + threats)


if __name__ == "__main__":
    run(AlphaBeta(evaluate), name="tafl9-search")
