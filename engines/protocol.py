"""The lines and texts of BGTP/1 (``docs/protocol.md``) that both ends of a game share."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .core import BadSettings

# --- time controls -------------------------------------------------------------------------------


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
        match = re.fullmatch(r"clock:(\d{1,9})\+(\d{1,9})|move:(\d{1,9})", text.strip())
        if match is None:
            raise BadSettings(f"bad time control {text!r}; expected clock:BASE_MS+INC_MS or move:MS")
        if match.group(3) is not None:
            budget = int(match.group(3))
            if budget <= 0:
                raise BadSettings(f"bad time control {text!r}: the budget per action must be positive")
            return cls("move", budget)
        base, inc = int(match.group(1)), int(match.group(2))
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
