"""Opening suites from the referee: distinct start positions a few random legal plies deep, reproducible from a seed.

See docs/openings.md for how the arena stores and plays them.
"""

from __future__ import annotations

import random

from .core import BadPosition, Position
from .registry import get_game

MAX_COUNT = 1000
MAX_PLIES = 40
# How many random walks one wanted position may cost before the suite is called impossible (few distinct
# positions that shallow: Fidchell's first placement has only so many points).
TRIES_PER_POSITION = 200


def playable_start(game_id: str, position: Position) -> str | None:
    """Why ``position`` cannot start a game of ``game_id`` (over, no legal action, left its first phase), or None."""
    if position.outcome() is not None:
        return "the game is over"
    if not position.legal_moves():
        return "the side to act has no legal action"
    initial = get_game(game_id).initial(position.settings)
    if position.phase != initial.phase:  # Fidchell: still placing, so the runner starts it like a fresh game
        return f"it is in the {position.phase} phase, not {initial.phase}"
    return None


def make_openings(game_id: str, count: int, plies: int, seed: int) -> list[str]:
    """The positions of ``opening_lines``: what a suite stores."""
    return [text for text, _ in opening_lines(game_id, count, plies, seed)]


def opening_lines(game_id: str, count: int, plies: int, seed: int) -> list[tuple[str, list[str]]]:
    """``count`` distinct positions of ``game_id``, each after ``plies`` random legal actions from the initial one,
    with the actions that lead there.

    The same arguments give the same list (``random.Random(seed)`` is the only chance). A walk that ends the game,
    leaves the side to act nothing legal, leaves the placement phase or ends where the same side must act again
    (an extra turn half done) is thrown away. Raises ``ValueError`` when the numbers are out of range or the game
    has too few such positions that deep.
    """
    game = get_game(game_id)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise ValueError(f"count must be a whole number from 1 to {MAX_COUNT}, got {count!r}")
    if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_PLIES:
        raise ValueError(f"plies must be a whole number from 1 to {MAX_PLIES}, got {plies!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be a whole number, got {seed!r}")
    chance = random.Random(seed)
    initial = game.initial()
    found: list[tuple[str, list[str]]] = []
    seen: set[str] = set()
    for _ in range(count * TRIES_PER_POSITION):
        position, line = _walk(initial, plies, chance)
        if position is None:
            continue
        text = position.text()
        if text not in seen:
            seen.add(text)
            found.append((text, line))
            if len(found) == count:
                return found
    raise ValueError(f"{game_id}: found only {len(found)} distinct playable positions {plies} plies deep, "
                     f"not {count}")


def _walk(position: Position, plies: int, chance: random.Random) -> tuple[Position | None, list[str]]:
    mover = None
    line: list[str] = []
    for _ in range(plies):
        legal = position.legal_moves()
        if not legal:
            return None, line
        mover = position.turn
        line.append(chance.choice(legal))
        position = position.play(line[-1])
    if position.turn == mover or playable_start(position.game.id, position) is not None:
        return None, line
    return position, line


def parse_opening(game_id: str, text: str) -> Position:
    """The position ``text`` names, if it can start a game of ``game_id``; raises ``BadPosition`` saying why not."""
    position = get_game(game_id).parse(text)
    problem = playable_start(game_id, position)
    if problem is not None:
        raise BadPosition(f"{game_id}: {text!r} cannot start a game: {problem}")
    return position
