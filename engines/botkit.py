"""A small kit for writing BGTP/1 bots in Python with the referee as a library.

Inside the arena's sandbox ``import engines`` works, so a bot can let the
referee generate and play actions and spend its own code on choosing one::

    from engines.botkit import AlphaBeta, run

    def evaluate(position) -> float:        # from White's point of view
        text = position.text()
        return text.count("w") - text.count("b")

    run(AlphaBeta(evaluate), name="my-bot")

A *player* is a callable ``player(position, legal, clock) -> action``;
``clock`` is a ``Clock`` built from the ``go`` line.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass
from typing import Callable, Iterable, TextIO

from .core import WHITE, Position
from .registry import get_game

WIN = 1_000_000.0


@dataclass(frozen=True)
class Clock:
    """The time this bot may spend on one action, from a ``go`` line's fields."""

    budget_ms: float

    @classmethod
    def from_go(cls, fields: dict[str, str]) -> "Clock":
        if "movetime" in fields:
            return cls(int(fields["movetime"]) * 0.4)
        side = "w" if fields.get("side") == WHITE else "b"
        left = int(fields.get(f"{side}time", 1000))
        increment = int(fields.get(f"{side}inc", 0))
        return cls(max(1.0, min(left * 0.4, left / 40 + increment * 0.6)))

    def deadline(self) -> float:
        return time.monotonic() + self.budget_ms / 1000


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
            position = game.parse(position_text)
            say(f"move {player(position, legal, Clock.from_go(_fields(rest.split())))}")
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
    return {"white": WIN, "black": -WIN}.get(outcome.winner, 0.0)


class Greedy:
    """One ply deep: the action whose resulting position ``evaluate`` likes best."""

    def __init__(self, evaluate: Callable[[Position], float]):
        self.evaluate = evaluate

    def __call__(self, position: Position, legal: list[str], clock: Clock) -> str:
        sign = 1 if position.turn == WHITE else -1
        values = [(sign * score(position.play(a), self.evaluate), random.random(), a) for a in legal]
        return max(values)[2]


class OutOfTime(Exception):
    pass


class AlphaBeta:
    """Iterative deepening minimax with alpha-beta pruning.

    Which side is to act comes from the position, not from alternation, so
    Fidchell's extra turns are searched correctly. The best action of the
    deepest finished iteration is played when the time is up.
    """

    def __init__(self, evaluate: Callable[[Position], float], max_depth: int = 64):
        self.evaluate = evaluate
        self.max_depth = max_depth

    def __call__(self, position: Position, legal: list[str], clock: Clock) -> str:
        self.deadline = clock.deadline()
        random.shuffle(legal)
        best = legal[0]
        try:
            for depth in range(1, self.max_depth + 1):
                value, best = self.root(position, legal, depth, best)
                if abs(value) >= WIN:
                    break
        except OutOfTime:
            pass
        return best

    def root(self, position: Position, legal: list[str], depth: int, first: str) -> tuple[float, str]:
        maximise = position.turn == WHITE
        alpha, beta, best = -2 * WIN, 2 * WIN, first
        for action in [first] + [a for a in legal if a != first]:
            value = self.search(position.play(action), depth - 1, alpha, beta)
            if maximise and value > alpha:
                alpha, best = value, action
            elif not maximise and value < beta:
                beta, best = value, action
        return (alpha if maximise else beta), best

    def search(self, position: Position, depth: int, alpha: float, beta: float) -> float:
        if time.monotonic() > self.deadline:
            raise OutOfTime
        if depth == 0 or position.outcome() is not None:
            return score(position, self.evaluate) * (1 + depth * 1e-6)  # prefer quicker wins
        maximise = position.turn == WHITE
        for action in position.legal_moves():
            value = self.search(position.play(action), depth - 1, alpha, beta)
            if maximise:
                alpha = max(alpha, value)
            else:
                beta = min(beta, value)
            if alpha >= beta:
                break
        return alpha if maximise else beta
