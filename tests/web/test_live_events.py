"""The live page's Server-Sent Events (``web.streams``): each ply as the worker publishes it, the match's next game,
the end; bounded streams that resume from their Last-Event-ID; refusals that name the field and change nothing.
Rerun on PostgreSQL (the stream reads the match's status and stored games from the database)."""

from __future__ import annotations

import json
import socket
import time

import pytest
from django.test import Client

from engines import get_game
from engines.record import record_of_play
from play import live
from tests.postgresql import rerun_on_postgresql
from tests.support import make_bot, ready_version
from web import streams

THREADED = {"wsgi.multithread": True}  # as runserver and gunicorn's gthread workers say; Django's test client says no


def running_match(player, other_player, games: int = 2):
    from tournaments.services import claim_match, create_match

    white = ready_version(make_bot(player, "north"))
    black = ready_version(make_bot(other_player, "south"))
    match = create_match(white, black, games=games, rated=False, time_control="move:200")
    token = claim_match(match.pk, "test-worker")
    match.refresh_from_db()
    return match, token


def game_so_far(plies: int, seed: int = 0, over: bool = False) -> dict:
    """A tafl9 game of ``plies`` legal actions (the first legal action each time, from ``seed`` on), as the worker
    publishes it; over: with the runner's result."""
    position = get_game("tafl9").initial()
    initial, actions = position, []
    for ply in range(plies):
        legal = position.legal_moves()
        actions.append(legal[(seed + ply) % len(legal)])
        position = position.play(actions[-1])
    record = record_of_play(initial, actions)
    if not over:
        del record["winner"], record["reason"]
    elif position.outcome() is None:
        record.update(winner="white", reason="resign")
    return record


def read_events(chunks, count: int) -> list[tuple[str, str, dict]]:
    """The next ``count`` events of a stream: (id, event, data), comments and the retry line skipped."""
    found = []
    for chunk in chunks:
        text = chunk.decode()
        if text.startswith((":", "retry:")):
            continue
        fields = dict(line.split(": ", 1) for line in text.strip().splitlines())
        found.append((fields.get("id", ""), fields["event"], json.loads(fields["data"])))
        if len(found) == count:
            return found
    raise AssertionError(f"the stream ended after {found}")


def close(response) -> None:
    """What the server does when a response ends; without closing the test's database connection (the test
    client does the same for the streams it reads to the end)."""
    from django.core.signals import request_finished
    from django.db import close_old_connections

    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(streams, "TICK_SECONDS", 0.02)
    monkeypatch.setattr(streams, "ASK_DATABASE_SECONDS", 0.05)


@pytest.mark.django_db
def test_a_stream_follows_each_ply_then_the_next_game_then_ends_with_the_match(player, other_player, quick):
    from tournaments.services import finish_match

    match, token = running_match(player, other_player)
    live.publish(match.pk, 1, game_so_far(0))
    response = Client().get(f"/matches/{match.pk}/live/events?game=1&have=0", **THREADED)
    assert response.status_code == 200 and response["Content-Type"] == "text/event-stream"
    assert response["Cache-Control"] == "no-store"
    chunks = iter(response.streaming_content)
    assert next(chunks) == f"retry: {streams.RETRY_MS}\n\n".encode()
    [(event_id, kind, start)] = read_events(chunks, 1)
    # The names come from the match row, before any ply: A (north) is White in game 1.
    assert (event_id, kind, start["number"], start["white"], start["black"]) == ("1:1", "plies", 1, "north", "south")
    assert (start["first"], len(start["plies"]), start["over"]) == (0, 1, False)
    live.publish(match.pk, 1, game_so_far(3))
    [(event_id, _, after)] = read_events(chunks, 1)
    assert (event_id, after["first"]) == ("1:4", 1)
    assert [ply["action"] for ply in after["plies"]] == game_so_far(3)["actions"]
    first = game_so_far(4, over=True)
    live.publish(match.pk, 1, first)
    [(event_id, _, ended)] = read_events(chunks, 1)
    assert event_id == "1:5+" and ended["over"] and ended["outcome"]["reason"] == first["reason"]
    live.publish(match.pk, 2, game_so_far(1, seed=1))
    [(event_id, _, second)] = read_events(chunks, 1)
    # Game 2, colours swapped, from its first position.
    assert (event_id, second["number"], second["white"], second["black"]) == ("2:2", 2, "south", "north")
    assert second["first"] == 0 and len(second["plies"]) == 2
    last = game_so_far(2, seed=1, over=True)
    assert finish_match(match.pk, token, [first, last])
    [(event_id, _, _), (_, kind, _)] = read_events(chunks, 2)
    assert event_id == "2:3+" and kind == "end"
    assert list(chunks) == []  # the stream is over


@pytest.mark.django_db
def test_a_finished_match_streams_its_stored_games_and_a_reconnect_resumes(player, other_player, quick):
    from tournaments.services import finish_match

    match, token = running_match(player, other_player)
    records = [game_so_far(3, over=True), game_so_far(2, seed=5, over=True)]
    assert finish_match(match.pk, token, records)  # never published: only the database has the games
    client = Client()
    chunks = iter(client.get(f"/matches/{match.pk}/live/events", HTTP_LAST_EVENT_ID="1:2", **THREADED)
                  .streaming_content)
    (first_id, _, rest), (second_id, _, second), (_, kind, _) = read_events(chunks, 3)
    assert (first_id, rest["first"], [p["action"] for p in rest["plies"]]) == ("1:4+", 2, records[0]["actions"][1:])
    assert (second_id, second["number"], second["first"], len(second["plies"])) == ("2:3+", 2, 0, 3)
    assert kind == "end"


@pytest.mark.django_db
def test_the_page_names_both_bots_before_the_first_ply_and_points_at_its_stream(player, other_player):
    match, _ = running_match(player, other_player)  # claimed: no ply published yet
    page = Client().get(f"/matches/{match.pk}/live/").content.decode()
    assert "White <span data-live-white>north</span>, Black <span data-live-black>south</span>" in page
    assert f'data-live-events="/matches/{match.pk}/live/events"' in page
    assert f'data-live-poll="/matches/{match.pk}/live/"' in page and 'data-live-games="2"' in page


@pytest.mark.django_db
def test_the_polling_fallback_names_each_games_bots(player, other_player):
    match, _ = running_match(player, other_player)
    live.publish(match.pk, 2, game_so_far(1))
    polled = Client().get(f"/matches/{match.pk}/live/2.json").json()
    assert (polled["number"], polled["white"], polled["black"], polled["first"]) == (2, "south", "north", 0)


@pytest.mark.django_db
def test_bad_resume_points_are_refused_naming_the_field(player, other_player):
    match, _ = running_match(player, other_player)
    client = Client()
    url = f"/matches/{match.pk}/live/events"
    for extra, field in [({"HTTP_LAST_EVENT_ID": "one"}, "Last-Event-ID"), ({"HTTP_LAST_EVENT_ID": "3:0"}, "game"),
                         ({"QUERY_STRING": "game=x"}, "game"), ({"QUERY_STRING": "game=3"}, "game"),
                         ({"QUERY_STRING": "game=1&have=-1"}, "have")]:
        refused = client.get(url, **extra, **THREADED)
        assert refused.status_code == 400 and field in refused.json()["detail"], (extra, refused.content)
    assert streams.SLOTS.used == 0  # nothing held
    assert client.get("/matches/999999/live/events", **THREADED).status_code == 404


@pytest.mark.django_db
def test_a_server_that_cannot_hold_streams_says_poll_instead(player, other_player, monkeypatch):
    match, _ = running_match(player, other_player)
    url = f"/matches/{match.pk}/live/events"
    one_at_a_time = Client().get(url)  # a sync worker: wsgi.multithread is False
    assert one_at_a_time.status_code == 503 and "poll" in one_at_a_time.json()["detail"]
    monkeypatch.setattr(streams, "SLOTS", streams.Slots(1))
    held = Client().get(url, **THREADED)
    assert held.status_code == 200
    full = Client().get(url, **THREADED)
    assert full.status_code == 503 and int(full["Retry-After"]) > 0
    close(held)  # the server closes a finished response: its slot is free again
    assert streams.SLOTS.used == 0
    again = Client().get(url, **THREADED)
    assert again.status_code == 200
    close(again)


@pytest.mark.django_db
def test_streams_are_throttled_like_the_polls(player, other_player, settings):
    from tests.support import throttle_rates

    throttle_rates(settings, live="2/minute")
    match, _ = running_match(player, other_player)
    client = Client()
    codes = []
    for _ in range(3):
        response = client.get(f"/matches/{match.pk}/live/events", **THREADED)
        codes.append(response.status_code)
        close(response)
    assert codes == [200, 200, 429]


@pytest.mark.django_db(transaction=True)
def test_a_client_that_never_reads_is_dropped_when_its_stream_ends(player, other_player, live_server, monkeypatch):
    """A real socket on the live server (threaded, as runserver): the client sends its request and reads nothing
    while plies are published; the server still ends the stream on time, its bytes waiting in the kernel."""
    monkeypatch.setattr(streams, "STREAM_SECONDS", 1.5)
    monkeypatch.setattr(streams, "TICK_SECONDS", 0.05)
    match, _ = running_match(player, other_player)
    host, port = live_server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(f"GET /matches/{match.pk}/live/events?game=1 HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
        for plies in range(0, 30, 2):
            live.publish(match.pk, 1, game_so_far(plies))
            time.sleep(0.1)
        time.sleep(1.5)
        assert streams.SLOTS.used == 0  # the stream ended and gave its slot back, unread
        sock.settimeout(2)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    assert b"200 OK" in received.split(b"\r\n", 1)[0] and received.count(b"event: plies") >= 2
    assert len(received) < streams.STREAM_BYTES + 16 * 1024


@pytest.mark.slow
def test_this_module_on_postgresql():
    rerun_on_postgresql(__file__, "the live streams", "arena_live")


@pytest.mark.django_db
def test_one_client_holds_at_most_its_share_of_the_streams(player, other_player, monkeypatch):
    # The throttle counts streams by the minute; a stream lasts STREAM_SECONDS, so one client at the allowed rate
    # could hold every slot of the process and leave every other watcher polling.
    monkeypatch.setattr(streams, "SLOTS", streams.Slots(8, per_client=2))
    match, _ = running_match(player, other_player)
    url = f"/matches/{match.pk}/live/events"
    greedy = [Client().get(url, REMOTE_ADDR="203.0.113.5", **THREADED) for _ in range(3)]
    assert [response.status_code for response in greedy] == [200, 200, 429]
    assert greedy[2].json()["detail"].startswith("you hold 2 streams on this server already")
    watcher = Client().get(url, REMOTE_ADDR="198.51.100.7", **THREADED)  # another address is not refused
    assert watcher.status_code == 200 and streams.SLOTS.used == 3
    close(greedy[0])  # one ends: the greedy client may open one again
    again = Client().get(url, REMOTE_ADDR="203.0.113.5", **THREADED)
    assert again.status_code == 200
    for response in (greedy[1], watcher, again):
        close(response)
    assert streams.SLOTS.used == 0 and not streams.SLOTS.held
