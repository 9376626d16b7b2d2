"""Game records: JSON that replays through the referee to the same end."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .core import NONE, SIDES, BadRecord, IllegalAction, Outcome, Position, RefereeError, Termination
from .registry import get_game

REQUIRED_KEYS = ("game", "ruleset", "settings", "initial", "actions", "winner", "reason", "plies")

# Control characters but newline and tab, and lone surrogates: PostgreSQL refuses NUL in text and in
# jsonb, no database encodes a surrogate, and the rest only garbles logs and pages. Escaped rather than
# dropped, so the reader still sees what was sent.
UNSAFE_CHARS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _escaped(char: re.Match) -> str:
    code = ord(char.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """``text`` from a bot (stderr, a logged line, a detail, a reason) made safe to store in any database."""
    return UNSAFE_CHARS.sub(_escaped, text)


def make_record(
    initial: Position,
    actions: Iterable[str],
    outcome: Outcome,
    *,
    final: Position | None = None,
    times: list[int | None] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The record of a game played from ``initial``; ``extra`` keys (white, black, tc, …) are kept."""
    actions = list(actions)
    game = initial.game
    record: dict[str, Any] = {
        "game": game.id,
        "ruleset": game.ruleset,
        "settings": game.settings_dict(initial.settings),
        "initial": initial.text(),
        "actions": actions,
        **outcome.words(),
        "plies": len(actions),
    }
    if final is not None:
        record["final"] = final.text()
    if times is not None:
        record["times"] = list(times)
    record.update(extra)
    return record


def record_of_play(initial: Position, actions: Iterable[str], **extra: Any) -> dict[str, Any]:
    """Play ``actions`` from ``initial`` and record the game; the outcome comes from the rules."""
    position = initial
    played = []
    for action in actions:
        action = position.canonical_action(action)
        position = position.play(action)
        played.append(action)
    outcome = position.outcome() or Outcome(Termination.MAX_PLIES, NONE)
    return make_record(initial, played, outcome, final=position, **extra)


def replay(record: dict[str, Any]) -> Position:
    """The final position of a record, checking only that every action is legal."""
    return _replay(_checked_header(record), record["actions"])


def verify_record(record: dict[str, Any]) -> Position:
    """Replay ``record`` and check its result; raises ``BadRecord`` naming the first fault."""
    position = _replay(_checked_header(record), record["actions"])
    try:
        termination = Termination(record["reason"])
    except ValueError:
        raise BadRecord(f"reason {record['reason']!r} is not a termination of protocol §6") from None
    if record["plies"] != len(record["actions"]):
        raise BadRecord(f"plies is {record['plies']} but the record has {len(record['actions'])} actions")
    final = record.get("final")
    if final is not None and final != position.text():
        raise BadRecord(f"final position {final!r} differs from the replayed {position.text()!r}")
    outcome = position.outcome()
    if outcome is not None:
        if {"winner": record["winner"], "reason": record["reason"]} != outcome.words():
            raise BadRecord(
                f"result winner={record['winner']} reason={record['reason']} differs from the rules' {outcome}"
            )
    elif not termination.by_runner:
        raise BadRecord(f"reason {record['reason']!r} but the replayed game is not over")
    times = record.get("times")
    if times is not None and (not isinstance(times, list) or len(times) != len(record["actions"])):
        raise BadRecord("times must be a list with one entry per action")
    return position


def _checked_header(record: Any) -> Position:
    if not isinstance(record, dict):
        raise BadRecord("a record must be a JSON object")
    missing = [key for key in REQUIRED_KEYS if key not in record]
    if missing:
        raise BadRecord(f"record lacks key(s) {', '.join(missing)}")
    if not isinstance(record["actions"], list) or not all(isinstance(a, str) for a in record["actions"]):
        raise BadRecord("actions must be a list of strings")
    if record["winner"] not in (*SIDES, NONE):
        raise BadRecord(f"winner must be white, black or none, not {record['winner']!r}")
    try:
        game = get_game(record["game"])
        if record["ruleset"] != game.ruleset:
            raise BadRecord(f"ruleset {record['ruleset']!r} is not this referee's {game.ruleset!r}")
        return game.parse(record["initial"], record["settings"])
    except BadRecord:
        raise
    except RefereeError as exc:
        raise BadRecord(f"record header: {exc}") from None


def _replay(position: Position, actions: list[str]) -> Position:
    for number, action in enumerate(actions, start=1):
        try:
            position = position.play(action)
        except IllegalAction as exc:
            raise BadRecord(f"action {number} ({action}) is illegal: {exc}") from None
    return position
