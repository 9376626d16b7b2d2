"""Berger tables: the round-robin schedule by the circle method (FIDE Handbook C.05, Annex 1)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

BYE = None


def berger_rounds(players: Sequence[Hashable]) -> list[list[tuple]]:
    """Rounds of (white, black) pairings; with an odd count one player per round sits out (a bye,
    shown as a pairing with ``None``). Every two players meet once, and no player's number of
    whites and blacks differ by more than one.
    """
    if len(set(players)) != len(players):
        raise ValueError("a round-robin needs distinct players")
    table = list(players) + ([BYE] if len(players) % 2 else [])
    n = len(table)
    if n < 2:
        return []
    rounds = []
    for number in range(n - 1):
        pairs = []
        for board in range(n // 2):
            home, away = table[board], table[n - 1 - board]
            # The fixed player (last in the table) takes white every other round.
            if board == 0 and number % 2:
                home, away = away, home
            pairs.append((home, away))
        rounds.append(pairs)
        # Everybody but the fixed last player moves n/2 - 1 seats round the circle, which gives
        # the rounds in the order the printed Berger tables list them.
        shift = n // 2 - 1
        circle = table[: n - 1]
        table = circle[len(circle) - shift:] + circle[: len(circle) - shift] + [table[n - 1]]
    return rounds


def double_round(rounds: list[list[tuple]]) -> list[list[tuple]]:
    """Two cycles: the first with its last two rounds swapped, then the table's rounds again, colours swapped.

    The swap is FIDE's advice for double round-robins (Handbook C.05, Annex 1): played straight through,
    the last round of the first cycle and the first of the second give someone the same colour twice
    more after it had it already, three games running.
    """
    first = rounds[:-2] + rounds[-1:-3:-1] if len(rounds) >= 2 else list(rounds)
    return first + [[(black, white) for white, black in pairs] for pairs in rounds]
