"""The live page's Server-Sent Events: each ply of a running match as the worker publishes it
(``play.live``), then the match's next game, then ``end`` when the match is over."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator

from api.streaming import HEARTBEAT_SECONDS, RETRY_MS, STREAM_BYTES, STREAM_SECONDS, Slots
from play import live
from tournaments.models import Game, Match
from tournaments.services.matches import colours

from . import boards

TICK_SECONDS = 0.25  # how often a stream looks at the live entry: a ply is on the page within about 0.3 s
ASK_DATABASE_SECONDS = 1.0  # how often, while the live entries show nothing new, it asks whether the match ended
STREAMS_PER_PROCESS = 32

EVENT_ID = re.compile(r"(\d{1,6}):(\d{1,7})(\+?)")


class BadPlace(ValueError):
    """A resume point the stream cannot start from; the message names the field."""


def resume_point(last_event_id: str | None, game: str | None, have: str | None, games: int) -> tuple[int, int, bool]:
    """(game number, plies the client has of it, whether it has seen that game end) from the reconnecting
    browser's Last-Event-ID header, else from the page's ``?game=&have=``; (current game, 0, False) without
    either (``game`` 0 here)."""
    if last_event_id:
        found = EVENT_ID.fullmatch(last_event_id)
        if found is None:
            raise BadPlace("Last-Event-ID must be <game>:<plies>, as the stream's own ids are")
        number, held, over = int(found[1]), int(found[2]), found[3] == "+"
    else:
        if game is not None and not (game.isdigit() and len(game) <= 6):
            raise BadPlace("game must be a game number of the match (from 1)")
        if have is not None and not (have.isdigit() and len(have) <= 7):
            raise BadPlace("have must be the number of plies the page has (0 or more)")
        number, held, over = int(game or 0), int(have or 0), False
    if not 0 <= number <= games or (last_event_id and number == 0):
        raise BadPlace(f"game must be from 1 to {games}, the match's games")
    return number, held, over


SLOTS = Slots(STREAMS_PER_PROCESS)


def events(match: Match, number: int, have: int, over_seen: bool) -> Iterator[bytes]:
    """The stream for a watcher who has ``have`` plies (0: none, 1: the start position) of game ``number``."""
    names = {}

    def named(n: int) -> dict:
        if n not in names:
            white, black = colours(match, n)
            names[n] = {"number": n, "white": white.bot.name, "black": black.bot.name}
        return names[n]

    started = last_write = time.monotonic()
    asked = 0.0
    running = match.status == Match.Status.RUNNING
    written = 0
    number = number or live.current(match.pk) or 1
    yield f"retry: {RETRY_MS}\n\n".encode()
    while time.monotonic() - started < STREAM_SECONDS and written < STREAM_BYTES:
        # Once the match is over its stored games are the truth (a live entry may have missed the last ply).
        record = (None if running else _stored(match.pk, number)) or live.game(match.pk, number)
        complete = record is not None and have == len(record.get("actions") or []) + 1
        over = bool(record and record.get("reason"))
        if record is not None and not (complete and over == over_seen):
            if have > len(record.get("actions") or []) + 1:  # the game started again (a requeued match): from 0
                have = 0
            try:
                body = {**named(number), **boards.replay(record, have - 1 if have else None)}
            except ValueError as error:  # a record the referee cannot replay: nothing more to show
                yield f"event: end\ndata: {json.dumps({'detail': str(error)})}\n\n".encode()
                return
            have, over_seen = len(record["actions"]) + 1, body["over"]
            event = (f"id: {number}:{have}{'+' if over_seen else ''}\nevent: plies\n"
                     f"data: {json.dumps(body, separators=(',', ':'))}\n\n").encode()
            written += len(event)
            last_write = time.monotonic()
            yield event
            continue
        if over_seen and number < match.games_per_match and (
                live.game(match.pk, number + 1) is not None or (not running and _stored(match.pk, number + 1))):
            number, have, over_seen = number + 1, 0, False  # the next game has started: the page moves on
            continue
        if time.monotonic() - asked > ASK_DATABASE_SECONDS:
            # Nothing new on the channel: has the match ended (its games are then stored), or been put back?
            asked = time.monotonic()
            running = Match.objects.filter(pk=match.pk, status=Match.Status.RUNNING).exists()
            if not running and (over_seen or record is None) and (
                    number >= match.games_per_match or not _stored(match.pk, number + 1)) and (
                    record is not None or not _stored(match.pk, number)):
                yield b"event: end\ndata: {}\n\n"
                return
            if not running:
                continue
            playing = live.current(match.pk)
            if playing is not None and playing < number:  # put back and started again: follow it from there
                number, have, over_seen = playing, 0, False
                continue
        if time.monotonic() - last_write > HEARTBEAT_SECONDS:
            last_write = time.monotonic()
            yield b": still watching\n\n"
        time.sleep(TICK_SECONDS)


def _stored(match_id: int, number: int) -> dict | None:
    """Game ``number``'s stored record, once its match is finished (the source of truth from then on)."""
    return Game.objects.filter(match_id=match_id, number=number).values_list("record", flat=True).first()
