"""Alpha-beta over the referee's own move generator, with a Fidchell evaluation.

Both sides race for a chain from ring 1 to ring 7 and capture by
sandwiching, and a capture earns another action. So the evaluation counts
strength (stones on the board and in hand), the stones each side could take
with its next action (the side to act will take them; the other side only
threatens), and how many more stones each side needs for its chain: a 0-1
breadth-first search over the board graph where an own stone costs 0, an
empty point 1 and an enemy stone blocks.
"""

from engines.botkit import AlphaBeta, run
from engines.core import WHITE
from engines.fidchellkit import board_of, chain_distance, targets


def evaluate(position) -> float:
    geo, board = board_of(position)
    hands = dict(zip("WB", position.hands))
    mover = "W" if position.turn == WHITE else "B"
    king_live = position.king_state == "live"
    value = 0.0
    for me, sign in (("W", 1), ("B", -1)):
        placing = hands[me] > 0
        taken, _ = targets(geo, board, me, placing, king_live)
        distance = chain_distance(geo, board, me)
        if me == mover and distance == 1 and placing:
            return sign * 500.0  # the chain closes with the next placement
        threat = 0.9 * len(taken) if me == mover else 0.3 * min(len(taken), 2)
        value += sign * (board.count(me) + hands[me] + threat - 0.5 * distance)
    return value


def order(position, legal: list[str]) -> list[str]:
    """Actions landing where someone captures (to take, or to block a take) first."""
    geo, board = board_of(position)
    hands = dict(zip("WB", position.hands))
    king_live = position.king_state == "live"
    hot: set[str] = set()
    for me in "WB":
        taken, landings = targets(geo, board, me, hands[me] > 0, king_live)
        hot.update(geo.names[p] for p in landings | taken)
    return sorted(legal, key=lambda action: -sum(part in hot for part in action.lstrip("@").split("-")))


if __name__ == "__main__":
    run(AlphaBeta(evaluate, order=order), name="fidchell-1-search")
