"""The referee adapter: one game of a claimed match through ``runner.match.play_game``, watched as it goes."""

from __future__ import annotations

from engines import get_game
from runner.bots import Bot
from tournaments.referee import InfrastructureError, limits
from tournaments.services.matches import MatchPlan

from . import live


def play_game(plan: MatchPlan, number: int, white_bot: Bot, black_bot: Bot, sandbox) -> dict:
    """Game ``number`` of the match; the runner's record comes back. Watchers see the game as it goes."""
    from runner import match as runner_match  # lazy: start-up time; the sandbox (ctypes, seccomp) loads with it
    from runner.sandbox import SandboxError  # lazy: as above

    opening = plan.start(number)
    start = {"game": plan.game, "initial": opening or get_game(plan.game).initial().text(), "white": white_bot.name,
             "black": black_bot.name, "tc": plan.time_control}
    with live.Game(plan.match_id, number, start) as watchers:
        try:
            record = runner_match.play_game(
                plan.game, white_bot, black_bot, tc=plan.time_control, sandbox=sandbox, limits=limits(),
                seed=plan.match_id * 1000 + number, match_id=f"m{plan.match_id}-g{number}", on_ply=watchers.ply,
                start=opening,
            )
        except SandboxError as error:
            raise InfrastructureError(f"sandbox failed during game {number}: {error}") from error
        watchers.over(record)
    return record
