"""Alpha-beta over the referee's own move generator, with a Fidchell Rules 2 evaluation.

White wins by a chain from ring 1 to ring 7; Black wins by bringing White's
strength (stones on the board and in hand) below 7, or by a challenge that
White cannot answer with a capture within five actions. So the evaluation
counts White's strength (more as it nears 7), Black's, the stones each side
could take with its next action (the side to act will take them), how many
stones White still needs for its chain (a 0-1 breadth-first search: own
stone 0, empty point 1, Black stone blocked), and a pending challenge.
"""

from engines.botkit import AlphaBeta, run
from engines.core import WHITE
from engines.fidchellkit import board_of, chain_distance, targets


def king_friendly(position, me: str) -> bool:
    return position.king_state == "both" or me == "W"


def evaluate(position) -> float:
    geo, board = board_of(position)
    hands = dict(zip("WB", position.hands))
    mover = "W" if position.turn == WHITE else "B"
    taken = {me: targets(geo, board, me, hands[me] > 0, king_friendly(position, me))[0] for me in "WB"}
    distance = chain_distance(geo, board, "W")
    if mover == "W" and distance == 1 and hands["W"] > 0:
        return 500.0  # the chain closes with the next placement
    white = board.count("W") + hands["W"]
    black = board.count("B") + hands["B"]
    value = 1.5 * white - black - 3.0 * max(0, 10 - white) - 0.6 * distance
    for me, sign in (("W", 1), ("B", -1)):
        value += sign * (0.9 * len(taken[me]) if me == mover else 0.3 * min(len(taken[me]), 2))
    return value + challenge_value(position.challenge, mover, taken["W"])


def challenge_value(challenge: str, mover: str, white_takes: set[int]) -> float:
    """A pending challenge is won by Black unless White captures in time; a defeated one costs Black two stones."""
    if challenge == "R":
        return 2.0
    if not challenge.isdigit():
        return 0.0
    if mover == "W" and white_takes:
        return 2.0
    return -(4.0 + 8.0 / int(challenge))


def order(position, legal: list[str]) -> list[str]:
    """Actions landing where someone captures (to take, or to block a take) first."""
    geo, board = board_of(position)
    hands = dict(zip("WB", position.hands))
    hot: set[str] = set()
    for me in "WB":
        taken, landings = targets(geo, board, me, hands[me] > 0, king_friendly(position, me))
        hot.update(geo.names[p] for p in landings | taken)
    return sorted(legal, key=lambda action: -sum(part in hot for part in action.lstrip("@").rstrip("!").split("-")))


if __name__ == "__main__":
    run(AlphaBeta(evaluate, order=order), name="fidchell-2-search")
