"""Reading a Fidchell position for bots: capture targets and how far each side is from a chain.

Shared by the Fidchell reference bots; like ``botkit``, it works inside the sandbox.
"""

from collections import deque
from functools import lru_cache

from .core import BLACK, WHITE
from .fidchell import Geometry

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
    for colour, side in (("W", WHITE), ("B", BLACK)):
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


def strength(position) -> int:
    """White's strength less Black's: stones on the board plus stones in hand (the greedy bots' evaluation)."""
    white_hand, black_hand = position.hands
    return len(position.stones(WHITE)) + white_hand - len(position.stones(BLACK)) - black_hand
