"""Alpha-beta over the referee's own move generator, with a Fidchell evaluation.

Both sides race for a chain from ring 1 to ring 7, so besides strength the
evaluation rewards stones spread over many rings, the inner ones most.
"""

from engines.botkit import AlphaBeta, run


def side_terms(nodes: str) -> tuple[int, float]:
    if nodes == "-":
        return 0, 0.0
    rings = {int(node[1:].split("s")[0]) for node in nodes.split(",")}
    return len(nodes.split(",")), len(rings) + 0.5 * (1 in rings)


def evaluate(position) -> float:
    fields = dict(field.strip().split("=", 1) for field in position.text().split(";"))
    white_hand, black_hand = (int(n) for n in fields["H"].split("/"))
    white_stones, white_rings = side_terms(fields["W"])
    black_stones, black_rings = side_terms(fields["B"])
    strength = (white_stones + white_hand) - (black_stones + black_hand)
    return strength + 0.4 * (white_rings - black_rings)


run(AlphaBeta(evaluate), name="fidchell-1-search")
