"""A game record as plain text: header tags, then the actions numbered by ply (PGN-like); a tournament's games as
JSON Lines."""

from __future__ import annotations

import json
import re

from django.http import HttpResponse, StreamingHttpResponse
from rest_framework.utils.encoders import JSONEncoder

from engines import BLACK, NONE, WHITE, RefereeError, get_game
from tournaments.selectors import may_see_bot
from tournaments.swiss.export import tournament_trf

from . import selectors
from .serializers import PRIVATE_BOT, GameSerializer


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


def _initial_of(record: dict) -> str | None:
    """The game's own initial position (under the record's settings); None when the record names no game we know."""
    try:
        return get_game(record["game"]).initial(record.get("settings") or None).text()
    except (RefereeError, KeyError, TypeError):
        return None


def event_name(match) -> str:
    """What a match was played for: its tournament's name, the ladder, a version test (SPRT) or a challenge."""
    if match.tournament_id is not None:
        return match.tournament.name
    if match.priority == match.Priority.LADDER:
        return "Ladder"
    return "Version test" if match.sprt_tests.exists() else "Challenge"


def record_text(played) -> str:
    """``played`` is a Game row (white/black with their bots loaded). The tags, in order: Event, Variant (the
    game id), Ruleset, Match, Round (the tournament's round, only in a tournament), Game (the game's number in
    its match), White, Black, Date, Result, Winner, Termination, Plies, then SetUp "1" when the game started from
    another position than the game's initial one (an opening), Initial and TimeControl if known."""
    record = played.record or {}
    match = played.match
    result = {WHITE: "1-0", BLACK: "0-1", NONE: "1/2-1/2"}.get(played.winner, "*")
    tags = [
        ("Event", event_name(match)),
        ("Variant", record.get("game", "")),
        ("Ruleset", record.get("ruleset", "")),
        ("Match", played.match_id),
        *([("Round", match.round)] if match.round is not None else []),
        ("Game", played.number),
        ("White", f"{played.white.bot.name} v{played.white.number}"),
        ("Black", f"{played.black.bot.name} v{played.black.number}"),
        ("Date", f"{played.created_at:%Y.%m.%d}"),
        ("Result", result),
        ("Winner", played.winner),
        ("Termination", played.reason),
        ("Plies", played.plies),
    ]
    if record.get("initial"):
        if record["initial"] != _initial_of(record):  # PGN's convention: a game set up from another position
            tags.append(("SetUp", "1"))
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


TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')


def read_record_tags(text: str) -> dict[str, str]:
    """The header tags of a ``record_text``, by their present names, from a record written before the Event tag
    too: those called the game id ``Game`` and the game's number in its match ``Round``."""
    tags = {}
    for line in text.splitlines():
        found = TAG.match(line)
        if not found:
            break
        tags[found[1]] = re.sub(r"\\(.)", r"\1", found[2])
    if "Event" not in tags:  # an old record
        old = dict(tags)
        tags.pop("Round", None)
        if "Game" in old:
            tags["Variant"] = old["Game"]
        if "Round" in old:
            tags["Game"] = old["Round"]
        else:
            tags.pop("Game", None)
    return tags


def tournament_games_jsonl(user, tournament) -> StreamingHttpResponse:
    """The tournament's games ``user`` may see (a private bot's games only to its owner and staff), one JSON object
    a line, in the shape ``/api/games/{id}/`` gives an anonymous reader: never a bot's stderr or protocol log,
    whoever asks (a file is passed on; the owner reads their bot's stderr on the game's own page). Streamed, a
    few rows at a time: a big tournament is never held in memory whole."""
    games = (selectors.games_visible_to(user, with_record=True).filter(match__tournament=tournament)
             .order_by("match__round", "match_id", "number"))

    def lines():
        for game in games.iterator(chunk_size=200):  # no request in the serializer's context: the public record
            yield json.dumps(GameSerializer(game).data, cls=JSONEncoder, ensure_ascii=False) + "\n"

    response = StreamingHttpResponse(lines(), content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}-games.jsonl"'
    return response


def tournament_trf_response(user, tournament) -> HttpResponse:
    """The tournament's TRF16 as a download; a private bot's name only to its owner and staff."""
    def name(version) -> str:
        return f"{version.bot.name} v{version.number}" if may_see_bot(user, version.bot) else PRIVATE_BOT

    response = HttpResponse(tournament_trf(tournament, name), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.pk}.trf"'
    return response
