"""A game record as plain text: header tags, then the actions numbered by ply (PGN-like)."""

from __future__ import annotations

from engines import RefereeError, get_game


def _tag(name: str, value) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'[{name} "{text}"]'


def _sides(record: dict) -> list[str] | None:
    """The side that played each action, from a replay; None when the record does not replay."""
    try:

        position = get_game(record["game"]).parse(record["initial"], record.get("settings") or None)
        sides = []
        for action in record["actions"]:
            sides.append(position.turn)
            position = position.play(action)
        return sides
    except (RefereeError, KeyError, TypeError, ValueError):
        return None


def record_text(played) -> str:
    """``played`` is a Game row (white/black with their bots loaded)."""
    record = played.record or {}
    result = {"white": "1-0", "black": "0-1", "none": "1/2-1/2"}.get(played.winner, "*")
    tags = [
        ("Game", record.get("game", "")),
        ("Ruleset", record.get("ruleset", "")),
        ("Match", played.match_id),
        ("Round", played.number),
        ("White", f"{played.white.bot.name} v{played.white.number}"),
        ("Black", f"{played.black.bot.name} v{played.black.number}"),
        ("Date", f"{played.created_at:%Y.%m.%d}"),
        ("Result", result),
        ("Winner", played.winner),
        ("Termination", played.reason),
        ("Plies", played.plies),
    ]
    if record.get("initial"):
        tags.append(("Initial", record["initial"]))
    if record.get("tc"):
        tags.append(("TimeControl", record["tc"]))
    lines = [_tag(name, value) for name, value in tags]
    lines.append("")
    actions = [str(a) for a in record.get("actions", [])]
    sides = _sides(record) if actions else []
    for ply, action in enumerate(actions, 1):
        side = f" {sides[ply - 1]}" if sides else ""
        lines.append(f"{ply}.{side} {action}")
    lines.append(result)
    return "\n".join(lines) + "\n"
