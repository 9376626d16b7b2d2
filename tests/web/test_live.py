"""Live games: the worker publishes each game as it goes (``play.live``), the live page's viewer polls it."""

from __future__ import annotations

import pytest
from django.test import Client

from play import live
from tests.support import make_bot, ready_version

from .conftest import kit_version

pytestmark = pytest.mark.django_db


def running_match(player, other_player, game_id: str = "tafl9"):
    from tournaments.services import claim_match, create_match

    a = kit_version(player, f"{game_id}-random", "a")
    b = kit_version(other_player, f"{game_id}-random", "b")
    match = create_match(a, b, games=2, rated=False, time_control="move:200")
    claim_match(match.pk, "test-worker")
    match.refresh_from_db()
    return match


def test_the_runner_publishes_the_plies_as_they_come_and_never_the_bots_text(player, other_player, monkeypatch):
    from play.referee import play_game
    from tournaments import referee
    from tournaments.services.matches import MatchPlan

    match = running_match(player, other_player)
    bots = [referee.load_version(match.version_a), referee.load_version(match.version_b)]
    seen = []
    publish = live.publish

    def spy(match_id, number, record, *store):  # what watchers could have read after each ply
        publish(match_id, number, {**record, "stderr": {"white": "SECRET"}, "log": ["SECRET"]}, *store)
        seen.append(list(live.game(match_id, number)["actions"]))

    monkeypatch.setattr(live, "publish", spy)
    record = play_game(MatchPlan.of(match), 1, *bots, referee.open_sandbox())
    assert seen[0] == [] and seen[-1] == record["actions"]
    # the plies of each live.PLY_SECONDS go together, in order; the finished record comes last
    plies = [len(actions) for actions in seen]
    assert plies == sorted(plies) and len(plies) > 2
    assert all(actions == record["actions"][:len(actions)] for actions in seen)
    kept = live.game(match.pk, 1)
    assert kept["actions"] == record["actions"] and kept["reason"] == record["reason"]
    assert "stderr" not in kept and "log" not in kept
    assert live.current(match.pk) == 1


def test_live_json_gives_the_plies_after_since(player, other_player):
    from engines import get_game
    from engines.record import record_of_play

    match = running_match(player, other_player)
    initial = get_game("tafl9").initial()
    first = initial.legal_moves()[0]
    second = initial.play(first).legal_moves()[0]
    record = {key: value for key, value in record_of_play(initial, [first, second]).items()
              if key not in ("winner", "reason")}
    live.publish(match.pk, 1, {**record, "stderr": {"white": "SECRET-STDERR"}})
    client = Client()
    whole = client.get(f"/matches/{match.pk}/live/1.json")
    assert whole.status_code == 200 and whole["Cache-Control"] == "no-store"
    assert (whole.json()["first"], len(whole.json()["plies"]), whole.json()["over"]) == (0, 3, False)
    assert "SECRET" not in whole.content.decode()
    after = client.get(f"/matches/{match.pk}/live/1.json?since=1").json()
    assert after["first"] == 2 and [p["action"] for p in after["plies"]] == [second]
    page = client.get(f"/matches/{match.pk}/live/")
    assert page.status_code == 200 and f'data-live-url="/matches/{match.pk}/live/1.json"' in page.content.decode()
    assert client.get(f"/matches/{match.pk}/live/1.json?since=x").status_code == 400
    assert client.get(f"/matches/{match.pk}/live/1.json?since=-1").status_code == 400
    assert client.get(f"/matches/{match.pk}/live/2.json").status_code == 404
    assert client.get("/matches/999999/live/1.json").status_code == 404


def test_a_private_bots_live_game_is_404_to_others(player, other_player):
    from tournaments.services import claim_match, create_match

    secret = ready_version(make_bot(player, "secret", is_public=False))
    match = create_match(secret, ready_version(make_bot(other_player, "open")), games=1, rated=False)
    claim_match(match.pk, "w")
    client = Client()
    assert client.get(f"/matches/{match.pk}/live/").status_code == 404
    assert client.get(f"/matches/{match.pk}/live/1.json").status_code == 404
    client.force_login(player)
    assert client.get(f"/matches/{match.pk}/live/").status_code == 200


def test_the_live_page_of_a_match_not_running_is_the_match_page(player, other_player):
    from tournaments.services import requeue_match

    match = running_match(player, other_player)
    assert requeue_match(match.pk)  # the worker went away: back in the queue
    response = Client().get(f"/matches/{match.pk}/live/")
    assert response.status_code == 302 and response["Location"] == f"/matches/{match.pk}/"


def finished_games(match):
    """The running match reported by its worker: its games stored together, as ``finish_match`` stores them (a
    game is never stored while its match runs), game 1 with a record the referee played (two plies, then a
    resignation)."""
    from engines import get_game
    from engines.record import record_of_play
    from tests.support import record
    from tournaments.services import finish_match

    initial = get_game("tafl9").initial()
    first = initial.legal_moves()[0]
    second = initial.play(first).legal_moves()[0]
    played = record_of_play(initial, [first, second])
    played.update(winner="white", reason="resign")
    assert finish_match(match.pk, match.lease_token, [played, record("black")])
    return match.games.order_by("number").first()


def test_a_finished_game_is_replayed_once_from_its_stored_record(player, other_player):
    from tournaments.models import Game

    match = running_match(player, other_player)
    game = finished_games(match)  # a watcher still polls the match's live page as its worker reports
    client = Client()
    whole = client.get(f"/matches/{match.pk}/live/1.json")
    assert whole.status_code == 200
    body = whole.json()
    assert (body["first"], len(body["plies"]), body["over"]) == (0, 3, True)
    assert body["outcome"] == {"winner": "white", "reason": "resign"}
    # Kept: later polls read the kept replay, not the record (spoilt here, so that a replay would fail).
    # state: damaged (the record spoilt, so that a replay would fail)
    Game.objects.filter(pk=game.pk).update(record={"game": "tafl9", "actions": ["nonsense"]})
    assert client.get(f"/matches/{match.pk}/live/1.json").json() == body
    after = client.get(f"/matches/{match.pk}/live/1.json?since=1").json()
    assert after == {**body, "first": 2, "plies": body["plies"][2:]}
    assert client.get(f"/matches/{match.pk}/live/1.json?since=9").json()["plies"] == []


def test_live_polls_are_throttled_with_the_limit_named(player, other_player, settings):
    from tests.support import throttle_rates

    throttle_rates(settings, live="3/minute")
    match = running_match(player, other_player)
    finished_games(match)
    client = Client()
    codes = [client.get(f"/matches/{match.pk}/live/1.json").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    refused = client.get(f"/matches/{match.pk}/live/1.json")
    assert "the limit is 3 per minute and this address has made 3" in refused.json()["detail"]
    assert int(refused["Retry-After"]) > 0
    # Another watcher, from elsewhere, still sees it.
    assert client.get(f"/matches/{match.pk}/live/1.json", REMOTE_ADDR="198.51.100.3").status_code == 200
