"""Alpha-beta over the referee's own move generator, with a Fidchell Rules 2 evaluation.

White wins by a chain from ring 1 to ring 7; Black wins by bringing White's
strength (stones on the board and in hand) below 7, or by a challenge that
White cannot answer with a capture within five actions. So the evaluation
counts White's strength (more as it nears 7), Black's, the stones each side
could take with its next action (the side to act will take them), how many
stones White still needs for its chain (a 0-1 breadth-first search: own
stone 0, empty point 1, Black stone blocked), and a pending challenge.
"""

from collections import deque
from functools import lru_cache

from engines.botkit import AlphaBeta, run
from engines.core import WHITE
from engines.fidchell import Geometry

EMPTY, OWN, ENEMY = 0, 1, 2
FAR = 12  # the distance of a side whose chain is blocked for good


@lru_cache(maxsize=4)
def geometry(ring_sizes: str, circles_are_lines: bool, ring_slide_max_steps: int) -> Geometry:
    sizes = tuple(int(n) for n in ring_sizes.split(","))
    return Geometry(sizes, circles_are_lines, ring_slide_max_steps)


def board_of(position) -> tuple[Geometry, list[str]]:
    """The geometry and a list node -> "W", "B" or "" (the centre holds "K")."""
    settings = position.settings
    geo = geometry(settings.ring_sizes, settings.circles_are_lines, settings.ring_slide_max_steps)
    board = [""] * geo.nr + ["K"]
    for colour, side in (("W", WHITE), ("B", "black")):
        for name in position.stones(side):
            board[geo.index[name]] = colour
    return geo, board


def can_reach(geo: Geometry, board: list[str], point: int, me: str, placing: bool) -> bool:
    """Can ``me`` put a stone on the empty ``point`` with one action?"""
    if placing:
        return True
    for ray in geo.ring_rays[point] + geo.radial_rays[point]:
        for node in ray:
            if board[node]:
                if board[node] == me:
                    return True
                break
    return False


def targets(geo, board, me: str, placing: bool, king_friendly: bool) -> tuple[set[int], set[int]]:
    """The enemy stones ``me`` could take with one action, and the points to land on for it."""
    enemy = "B" if me == "W" else "W"
    taken, landings = set(), set()
    for point in range(geo.nr):
        if board[point]:
            continue
        hits = [q for q, r in geo.capture_pairs[point]
                if board[q] == enemy and (board[r] == me or (board[r] == "K" and king_friendly))]
        if hits and can_reach(geo, board, point, me, placing):
            taken.update(hits)
            landings.add(point)
    return taken, landings


def chain_distance(geo: Geometry, board: list[str], me: str) -> int:
    """Fewest stones ``me`` must still add for a chain from ring 1 to ring 7."""
    enemy = "B" if me == "W" else "W"
    best = [FAR] * geo.nr
    queue = deque()
    for node in geo.inner_nodes:
        if board[node] != enemy:
            best[node] = 0 if board[node] == me else 1
            queue.append(node)
    while queue:
        node = queue.popleft()
        if node >= geo.outer_first:
            continue
        for near in geo.adjacent[node]:
            if board[near] == enemy:
                continue
            cost = best[node] + (board[near] != me)
            if cost < best[near]:
                best[near] = cost
                if board[near] == me:
                    queue.appendleft(near)
                else:
                    queue.append(near)
    return min(best[geo.outer_first:geo.nr])


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
