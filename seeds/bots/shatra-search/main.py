"""Alpha-beta over the referee's own move generator, with a Shatra evaluation.

Material first (batyr, turas, yalkyns, shatras), then shatras that have
crossed the ditch; a biy that leaves its fortress and gate is a target.
Captures are compulsory and come in series, so the side to act will take
what it can: the evaluation adds most of the best series the side to act
has (found from the capture actions' landing squares), and a biy that can
be taken is as good as lost.
"""

from engines.botkit import AlphaBeta, run
from engines.core import WHITE

VALUES = {"q": 9.0, "r": 5.0, "b": 3.0, "p": 1.0, "k": 100.0}
FIRST_FILE = {7: 0, 3: 2, 1: 3}  # a full rank starts on file a, a fortress rank on c, a gate on d


def squares(position) -> dict[tuple[int, int], str]:
    """(file, rank) -> piece letter, from the board field of the position's text (rank 14 first)."""
    board = {}
    for index, rank_text in enumerate(position.text().split()[0].replace("!", "").split("/")):  # ! marks urgency
        width = sum(int(char) if char.isdigit() else 1 for char in rank_text)
        file = FIRST_FILE[width]
        for char in rank_text:
            if char.isdigit():
                file += int(char)
            else:
                board[(file, 14 - index)] = char
                file += 1
    return board


def square(name: str) -> tuple[int, int]:
    return ord(name[0]) - ord("a"), int(name[1:])


def series_value(board, action: str, white: bool) -> float:
    """What the capture series ``action`` (landing squares joined by x) takes."""
    stops = [square(name) for name in action.split("=")[0].split("x")]  # "=q" names a promotion
    start, taken = stops[0], set()
    for (f0, r0), (f1, r1) in zip(stops, stops[1:]):
        df, dr = (f1 > f0) - (f1 < f0), (r1 > r0) - (r1 < r0)
        f, r = f0 + df, r0 + dr
        while (f, r) != (f1, r1) and abs(f - f0) <= 7 and abs(r - r0) <= 14:
            piece = board.get((f, r))
            if piece and (f, r) != start and piece.islower() == white:
                taken.add((f, r))
            f, r = f + df, r + dr
    return sum(VALUES[board[sq].lower()] for sq in taken)


def evaluate(position) -> float:
    board = squares(position)
    total = 0.0
    for (_file, rank), char in board.items():
        sign = 1.0 if char.isupper() else -1.0
        if char.lower() != "k":
            total += sign * VALUES[char.lower()]
        if char == "K" and rank > 4:  # out of its fortress and gate, the biy is a target
            total -= 1.5 + 0.3 * (rank - 4)
        elif char == "k" and rank < 11:
            total += 1.5 + 0.3 * (11 - rank)
        elif char == "P" and rank >= 8:
            total += 0.2 * (rank - 7)
        elif char == "p" and rank <= 7:
            total -= 0.2 * (8 - rank)
    white = position.turn == WHITE
    best = max((series_value(board, a, white) for a in position.legal_moves() if "x" in a), default=0.0)
    return total + (0.9 if white else -0.9) * best


if __name__ == "__main__":
    run(AlphaBeta(evaluate), name="shatra-search")
