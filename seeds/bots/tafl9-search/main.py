"""Alpha-beta over the referee's own move generator, with a Tafl evaluation.

White (the king's side) wants open lines from the king to the 12 escape
squares; Black wants attackers around the king and its exits closed.
"""

from engines.botkit import AlphaBeta, run

ESCAPES = {(0, 3), (0, 4), (0, 5), (8, 3), (8, 4), (8, 5), (3, 0), (4, 0), (5, 0), (3, 8), (4, 8), (5, 8)}
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


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


def open_escapes(board, king) -> int:
    """Escape squares the king could reach in one move."""
    count = 0
    for df, dr in STEPS:
        f, r = king[0] + df, king[1] + dr
        while 0 <= f <= 8 and 0 <= r <= 8 and (f, r) not in board and (f, r) != (4, 4):
            count += (f, r) in ESCAPES
            f, r = f + df, r + dr
    return count


def evaluate(position) -> float:
    board = squares(position.text())
    king = next((sq for sq, piece in board.items() if piece == "k"), None)
    if king is None:
        return -1000.0
    pieces = list(board.values())
    besiegers = sum(board.get((king[0] + df, king[1] + dr)) == "b" for df, dr in STEPS)
    exits = open_escapes(board, king)
    edge = min(king[0], king[1], 8 - king[0], 8 - king[1])
    return (2.0 * pieces.count("w") - 1.0 * pieces.count("b") + 6.0 * min(exits, 2)
            - 1.5 * besiegers - 0.3 * edge)


if __name__ == "__main__":
    run(AlphaBeta(evaluate), name="tafl9-search")
