"""The server's bounds on what a match may ask for: its time control and its number of games."""

from __future__ import annotations

from engines import BadSettings
from engines.protocol import TimeControl


def time_control_problem(text, arena: dict) -> str | None:
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


def games_problem(games, arena: dict) -> str | None:
    top = arena["MAX_GAMES_PER_MATCH"]
    if not isinstance(games, int) or isinstance(games, bool) or not 1 <= games <= top:
        return f"must be a whole number from 1 to {top}, got {games!r}"
    return None


def settings_problems(arena: dict) -> list[str]:
    """What is wrong with the bounds themselves, or with the defaults (the ladder's) that must lie inside them."""
    problems = [f"ARENA_{name} must be at least 1, got {arena[name]}" for name in (
        "TIME_CONTROL_MOVE_MIN_MS", "TIME_CONTROL_MOVE_MAX_MS", "TIME_CONTROL_CLOCK_BASE_MAX_MS",
        "MAX_GAMES_PER_MATCH", "MAX_QUEUED_MATCHES_PER_PLAYER", "MAX_RUNNING_TOURNAMENTS_PER_PLAYER",
        "MAX_TOURNAMENT_ENTRANTS") if arena[name] < 1]
    if not 0 <= arena.get("LADDER_SHARE", 0.5) <= 1:
        problems.append(f"ARENA_LADDER_SHARE must be a fraction from 0 to 1, got {arena['LADDER_SHARE']}")
    problems += [f"ARENA_{name} must be at least 1, got {arena[name]}" for name in (
        "FAIR_SHARE_WINDOW_SECONDS", "OWNER_QUEUED_SECONDS") if arena.get(name, 1) < 1]
    if arena["TIME_CONTROL_CLOCK_INCREMENT_MAX_MS"] < 0:
        problems.append("ARENA_TIME_CONTROL_CLOCK_INCREMENT_MAX_MS must be 0 or more")
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
