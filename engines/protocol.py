"""The lines and texts of BGTP/1 (``docs/protocol.md``) that both ends of a game share."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .core import BadSettings

# --- time controls -------------------------------------------------------------------------------

# The grammar, once: the parser below, the API's schema pattern and every help text say it from here.
TIME_CONTROL_GRAMMAR = r"move:([0-9]{1,9})|clock:([0-9]{1,9})\+([0-9]{1,9})"
TIME_CONTROL_SYNTAX = "move:MS or clock:BASE_MS+INC_MS"
TIME_CONTROL_HELP = "`move:MS` per action, or `clock:BASE_MS+INC_MS`."


def time_control_help(move_min_ms: int, move_max_ms: int, base_max_ms: int, inc_max_ms: int, default: str) -> str:
    """The help text of a time control a person may choose, with the server's bounds and default."""
    return (f"`move:MS` (from {move_min_ms} to {move_max_ms} ms per action) or `clock:BASE_MS+INC_MS` (base up to "
            f"{base_max_ms} ms, increment up to {inc_max_ms} ms); the server's default ({default}) when left out.")


@dataclass(frozen=True)
class TimeControl:
    """``clock:<base>+<inc>`` (Fischer clock) or ``move:<ms>`` (fixed budget per action), protocol §5."""

    mode: str  # "clock" or "move"
    base_ms: int
    inc_ms: int = 0

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        if not isinstance(text, str):
            raise BadSettings(f"time control must be a string like clock:60000+500 or move:1000, not {text!r}")
        match = re.fullmatch(TIME_CONTROL_GRAMMAR, text.strip())
        if match is None:
            raise BadSettings(f"bad time control {text!r}; expected {TIME_CONTROL_SYNTAX}")
        if match.group(1) is not None:
            budget = int(match.group(1))
            if budget <= 0:
                raise BadSettings(f"bad time control {text!r}: the budget per action must be positive")
            return cls("move", budget)
        base, inc = int(match.group(2)), int(match.group(3))
        if base <= 0:
            raise BadSettings(f"bad time control {text!r}: the base time must be positive")
        return cls("clock", base, inc)

    def text(self) -> str:
        return f"move:{self.base_ms}" if self.mode == "move" else f"clock:{self.base_ms}+{self.inc_ms}"

    def thinking_seconds(self, plies: int) -> float:
        """The bots' thinking time over a game of ``plies`` actions when each uses all it may: every action's
        budget, or both whole clocks and one increment per action."""
        if self.mode == "move":
            return plies * self.base_ms / 1000
        return (2 * self.base_ms + plies * self.inc_ms) / 1000


# --- referee lines ------------------------------------------------------------------------------


def played_line(side: str, action: str, position, ply: int) -> str:
    """``played`` for ``action`` by ``side``, which led to ``position`` at ``ply`` (protocol §4)."""
    line = f"played {side} {action}"
    if position.captured:
        line += " x=" + ",".join(position.captured)
    return f"{line} ply={ply}"


def go_prefix(side: str, ply: int, extra: bool, phase: str | None) -> str:
    """A ``go`` line up to its clock fields (protocol §4)."""
    words = [f"go side={side} ply={ply}"]
    if extra:
        words.append("extra=1")
    if phase:
        words.append(f"phase={phase}")
    return " ".join(words)
