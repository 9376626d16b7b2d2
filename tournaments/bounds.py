"""The server's bounds on what a match may ask for: its time control and its number of games."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines import BadSettings
from engines.protocol import TimeControl
from knobs import range_problems


def time_control_problem(text, arena: Mapping[str, Any]) -> str | None:
    """Why ``text`` is not an allowed time control, or None when it is."""
    try:
        tc = TimeControl.parse(text)
    except BadSettings as error:
        return str(error)
    if tc.mode == "move":
        low, high = arena["TIME_CONTROL_MOVE_MIN_MS"], arena["TIME_CONTROL_MOVE_MAX_MS"]
        if not low <= tc.base_ms <= high:
            return f"{tc.text()}: the time per action must be from {low} to {high} ms"
        return None
    if tc.base_ms > arena["TIME_CONTROL_CLOCK_BASE_MAX_MS"]:
        return f"{tc.text()}: the clock's base time must be at most {arena['TIME_CONTROL_CLOCK_BASE_MAX_MS']} ms"
    if tc.inc_ms > arena["TIME_CONTROL_CLOCK_INCREMENT_MAX_MS"]:
        return f"{tc.text()}: the increment must be at most {arena['TIME_CONTROL_CLOCK_INCREMENT_MAX_MS']} ms"
    return None


def games_problem(games, arena: Mapping[str, Any]) -> str | None:
    top = arena["MAX_GAMES_PER_MATCH"]
    if not isinstance(games, int) or isinstance(games, bool) or not 1 <= games <= top:
        return f"must be a whole number from 1 to {top}, got {games!r}"
    return None


def settings_problems(arena: Mapping[str, Any]) -> list[str]:
    """What is wrong with the bounds themselves, or with the defaults (the ladder's) that must lie inside them."""
    problems = range_problems(arena)  # each setting in its declared range
    if arena["TIME_CONTROL_MOVE_MIN_MS"] > arena["TIME_CONTROL_MOVE_MAX_MS"]:
        problems.append("ARENA_TIME_CONTROL_MOVE_MIN_MS is above ARENA_TIME_CONTROL_MOVE_MAX_MS")
    if problems:
        return problems
    problem = time_control_problem(arena["DEFAULT_TIME_CONTROL"], arena)
    if problem:
        problems.append(f"ARENA_DEFAULT_TIME_CONTROL is outside the bounds: {problem}")
    ladder_games = arena["DEFAULT_GAMES_PER_MATCH"] + arena["DEFAULT_GAMES_PER_MATCH"] % 2  # whole colour-swapped pairs
    if games_problem(arena["DEFAULT_GAMES_PER_MATCH"], arena) or games_problem(ladder_games, arena):
        problems.append(f"ARENA_DEFAULT_GAMES_PER_MATCH ({arena['DEFAULT_GAMES_PER_MATCH']}, played by the ladder in "
                        f"pairs: {ladder_games}) must be from 1 to ARENA_MAX_GAMES_PER_MATCH "
                        f"({arena['MAX_GAMES_PER_MATCH']})")
    return problems
