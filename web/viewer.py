"""What the replay viewer include (``web/_replay.html``, drawn by ``web/boards.py``) is given: the empty board as
SVG, the replay as JSON and, for a game being played, the URL to poll."""

from __future__ import annotations

try:
    from . import boards
except ImportError:  # TEMPORARY until branch h/boards (web/boards.py, web/_replay.html) is merged
    boards = None

TEMPLATE = "web/_replay.html" if boards is not None else "web/_replay_placeholder.html"


def replay(game_id: str, record: dict):
    if boards is None:
        return {"game": game_id, "initial": record.get("initial"), "actions": record.get("actions", []),
                "times": record.get("times", []), "winner": record.get("winner"), "reason": record.get("reason")}
    return boards.replay(record)


def context(game_id: str, record: dict, live_url: str = "") -> dict:
    return {"viewer_template": TEMPLATE, "board_svg": boards.board_svg(game_id) if boards is not None else "",
            "replay": replay(game_id, record), "live_url": live_url}
