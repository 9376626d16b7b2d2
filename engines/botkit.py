"""A small kit for writing BGTP/1 bots in Python with the referee as a library."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TextIO

from .core import BLACK, WHITE, Position, RefereeError
from .registry import get_game

WIN = 1_000_000.0


# Share of a fixed move time a bot spends; the rest absorbs start-up, pipes and a loaded machine.
MOVETIME_SHARE = 0.6


@dataclass(frozen=True)
class Clock:
    """The time this bot may spend on one action, from a ``go`` line's fields.

    ``started`` is when the ``go`` line arrived, so parsing the position counts too.
    """

    budget_ms: float
    started: float = field(default_factory=time.monotonic)

    @classmethod
    def from_go(cls, fields: dict[str, str]) -> Clock:
        try:
            if "movetime" in fields:
                return cls(max(1.0, int(fields["movetime"]) * MOVETIME_SHARE))
            side = "w" if fields.get("side") == WHITE else "b"
            left = int(fields.get(f"{side}time", 1000))
            increment = int(fields.get(f"{side}inc", 0))
        except ValueError as error:
            raise RefereeError(f"go: a time field is not a whole number of ms: {error}") from None
        return cls(max(1.0, min(left * 0.4, left / 40 + increment * 0.6)))

    def deadline(self) -> float:
        return self.started + self.budget_ms / 1000


def run(player: Callable, *, name: str, stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> None:
    """Speak BGTP/1 on stdin/stdout, asking ``player`` for an action at every ``go``."""
    game = position_text = None
    legal: list[str] = []

    def say(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    for line in stdin:
        keyword, _, rest = line.strip().partition(" ")
        if keyword == "bgtp":
            say(f"bgtp 1 name={name}")
        elif keyword == "newgame":
            fields = _fields(rest.split())
            game = get_game(fields["game"])
            random.seed(fields.get("seed"))
            say("ready")
        elif keyword == "position":
            position_text = rest
        elif keyword == "legal":
            legal = rest.split()
        elif keyword == "go":
            clock = Clock.from_go(_fields(rest.split()))
            position = game.parse(position_text)
            say(f"move {player(position, list(legal), clock)}")
        elif keyword == "quit":
            return


def _fields(tokens: Iterable[str]) -> dict[str, str]:
    return dict(token.split("=", 1) for token in tokens if "=" in token)


def random_player(position: Position, legal: list[str], clock: Clock) -> str:
    return random.choice(legal)


def score(position: Position, evaluate: Callable[[Position], float]) -> float:
    """The position's value for White: the result if the game is over, else ``evaluate``."""
    outcome = position.outcome()
    if outcome is None:
        return evaluate(position)
    return {WHITE: WIN, BLACK: -WIN}.get(outcome.winner, 0.0)


class Greedy:
    """One ply deep: the action whose resulting position ``evaluate`` likes best.

    It stops looking when its time is up, which on a quiet machine it never is.
    """

    def __init__(self, evaluate: Callable[[Position], float]):
        self.evaluate = evaluate

    def __call__(self, position: Position, legal: list[str], clock: Clock) -> str:
        sign = 1 if position.turn == WHITE else -1
        deadline = clock.deadline()
        actions = random.sample(legal, len(legal))  # ties are broken at random
        best_value, best = None, actions[0]
        for action in actions:
            value = sign * score(position.play(action), self.evaluate)
            if best_value is None or value > best_value:
                best_value, best = value, action
            if time.monotonic() > deadline:  # a loaded machine: the best so far beats a timeout
                break
        return best


class OutOfTime(Exception):
    pass


class AlphaBeta:
    """Iterative deepening minimax with alpha-beta pruning.

    Which side is to act comes from the position, not from alternation, so
    Fidchell's extra turns are searched correctly. Inside the tree, actions
    that capture are tried first; at the root each iteration tries the
    actions in the order the previous one ranked them, best first, and the
    positions after them are kept between iterations. ``order`` is an
    optional cheap hint ``order(position, legal) -> legal`` (most promising
    first) for the first iteration, which matters when a position has more
    actions than the clock lets the bot even play once. When time runs out
    mid-iteration, the best action found so far in it is kept, because the
    previous best was searched first.
    """

    def __init__(self, evaluate: Callable[[Position], float], max_depth: int = 64,
                 order: Callable[[Position, list[str]], list[str]] | None = None):
        self.evaluate = evaluate
        self.max_depth = max_depth
        self.order = order
        self.nodes = 0
        self.depth = 0

    def __call__(self, position: Position, legal: list[str], clock: Clock) -> str:
        self.deadline = clock.deadline()
        self.nodes = self.depth = 0
        actions = list(legal)
        random.shuffle(actions)  # ties are broken at random
        if self.order is not None:
            actions = self.order(position, actions)
        best = actions[0]
        if len(actions) == 1:
            return best
        children: dict[str, Position] = {}
        for depth in range(1, self.max_depth + 1):
            self.partial = None
            try:
                value, actions = self.root(position, actions, children, depth)
            except OutOfTime:
                if self.partial is not None:
                    best = self.partial
                break
            best, self.depth = actions[0], depth
            if abs(value) >= WIN:
                break
        return best

    def root(self, position: Position, actions: list[str], children: dict[str, Position],
             depth: int) -> tuple[float, list[str]]:
        """Search every action to ``depth``; return the value and the actions, best first."""
        sign = 1 if position.turn == WHITE else -1
        alpha, beta = -2 * WIN, 2 * WIN
        values: dict[str, float] = {}
        for action in actions:
            child = children.get(action)
            if child is None:
                child = children[action] = position.play(action)
            low, high = (alpha, beta) if sign > 0 else (-beta, -alpha)  # the window for White
            value = sign * self.search(child, depth - 1, low, high)
            values[action] = value
            if value > alpha:
                alpha, self.partial = value, action
        ranked = sorted(actions, key=lambda a: -values[a])  # stable: ties keep the earlier order
        return sign * alpha, ranked

    def search(self, position: Position, depth: int, alpha: float, beta: float) -> float:
        """The minimax value for White of ``position`` searched ``depth`` plies, within (alpha, beta)."""
        self.nodes += 1
        if time.monotonic() > self.deadline:
            raise OutOfTime
        if depth == 0 or position.outcome() is not None:
            return score(position, self.evaluate) * (1 + depth * 1e-6)  # prefer quicker wins
        maximise = position.turn == WHITE
        children = self.expand(position)
        for child in children:
            value = self.search(child, depth - 1, alpha, beta)
            if maximise:
                alpha = max(alpha, value)
            else:
                beta = min(beta, value)
            if alpha >= beta:
                break
        return alpha if maximise else beta

    def expand(self, position: Position) -> list[Position]:
        """The positions after each legal action, captures first, watching the clock as it goes."""
        children = []
        for count, action in enumerate(position.legal_moves(), 1):
            children.append(position.play(action))
            if count % 8 == 0 and time.monotonic() > self.deadline:
                raise OutOfTime
        children.sort(key=lambda child: -len(child.captured))
        return children


if __name__ == "__main__":  # ``python3 -m engines.botkit``: the random player, e.g. for smoke tests
    run(random_player, name="random")
